"""The demo knowledge-graph component: a small in-memory graph built from its configuration."""

from __future__ import annotations

from typing import Any

from pydantic import Field, PrivateAttr

from tfrobotserver.actions.component import TFSComponent
from tfrobotserver.dtos.factory.base import Edge, Node
from tfrobotserver.robot.factory.brain.memory.graph_manage_mixin import EdgeKey, GraphManageMixin


class GraphComponent(TFSComponent, GraphManageMixin):
    """A graph whose initial nodes and edges are configuration; edits live until restart."""

    nodes: list[Node] = Field(default_factory=list)
    edges: list[Edge] = Field(default_factory=list)
    _graph_nodes: dict[str, Node] = PrivateAttr(default_factory=dict)
    _graph_edges: dict[EdgeKey, Edge] = PrivateAttr(default_factory=dict)

    def model_post_init(self, context: Any, /) -> None:
        self._graph_nodes = {n.iri: n for n in self.nodes}
        self._graph_edges = {(e.source, e.target, e.property): e for e in self.edges}

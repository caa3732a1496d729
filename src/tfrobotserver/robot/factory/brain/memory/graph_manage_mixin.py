"""Knowledge-graph actions for memory components (the seed's `graph_manage_mixin.py`).

Elements are kept by the component in memory (a small demo graph); the actions are what a
graphical console needs: the graph, a pageable node list, and row-level update/delete of nodes
and edges whose parameters come from the clicked element's namespace (nodeIri, edgeSource …).
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from tfrobotserver.actions.alias import ActionAlias
from tfrobotserver.actions.decorator import tfs_action
from tfrobotserver.actions.errors import ActionInputError
from tfrobotserver.dtos.factory.base import Edge, Node
from tfrobotserver.dtos.graph import Graph
from tfrobotserver.dtos.pageable import PageableList

EdgeKey = tuple[str, str, str]


class GraphManageMixin:
    """Graph actions over `self._graph_nodes` / `self._graph_edges` (set by the component)."""

    _graph_nodes: dict[str, Node]
    _graph_edges: dict[EdgeKey, Edge]

    @tfs_action(
        alias=ActionAlias(category="graphical", resource="graph", resource_op_type="get_graph"),
        description="The graph: every node and edge (up to `limit` nodes).",
    )
    async def aget_graph(self, limit: Annotated[int, Field(ge=1, le=10_000)] = 500) -> Graph[Node, Edge]:
        nodes = list(self._graph_nodes.values())[:limit]
        kept = {n.iri for n in nodes}
        edges = [e for e in self._graph_edges.values() if e.source in kept and e.target in kept]
        return Graph[Node, Edge](nodes=nodes, edges=edges)

    @tfs_action(
        alias=ActionAlias(category="pageable", resource="node", resource_op_type="get_list"),
        description="Nodes as a table.",
    )
    async def aget_nodes(
        self, page: Annotated[int, Field(ge=1)] = 1, page_size: Annotated[int, Field(ge=1, le=200)] = 20
    ) -> PageableList[Node]:
        nodes = list(self._graph_nodes.values())
        start = (page - 1) * page_size
        return PageableList[Node](
            items=nodes[start : start + page_size], page=page, page_size=page_size, total=len(nodes)
        )

    def _node(self, iri: str) -> Node:
        if iri not in self._graph_nodes:
            raise ActionInputError("iri", "no such node", iri)
        return self._graph_nodes[iri]

    @tfs_action(alias=ActionAlias(category="graphical", resource="node", resource_op_type="update"))
    async def aupdate_node(
        self,
        iri: Annotated[str, Field(json_schema_extra={"x-ref": "nodeIri"})],
        label: Annotated[str, Field(json_schema_extra={"x-default": "nodeLabel", "x-ref": "nodeLabel"})] | None = None,
        properties: Annotated[
            dict[str, Any], Field(json_schema_extra={"x-default": "nodeProperties", "x-ref": "nodeProperties"})
        ]
        | None = None,
    ) -> None:
        """Change a node's label and/or properties (omitted values are kept)."""
        node = self._node(iri)
        changes: dict[str, Any] = {}
        if label is not None:
            changes["label"] = label
        if properties is not None:
            changes["properties"] = properties
        self._graph_nodes[iri] = node.model_copy(update=changes)

    @tfs_action(alias=ActionAlias(category="graphical", resource="node", resource_op_type="delete"))
    async def adelete_node(self, iri: Annotated[str, Field(json_schema_extra={"x-ref": "nodeIri"})]) -> None:
        """Delete a node and every edge touching it."""
        self._node(iri)
        del self._graph_nodes[iri]
        for key in [k for k in self._graph_edges if iri in (k[0], k[1])]:
            del self._graph_edges[key]

    def _edge_key(self, source: str, target: str, property: str) -> EdgeKey:
        key = (source, target, property)
        if key not in self._graph_edges:
            raise ActionInputError("source", f"no edge {source} -[{property}]-> {target}", key)
        return key

    @tfs_action(alias=ActionAlias(category="graphical", resource="edge", resource_op_type="update"))
    async def aupdate_edge(
        self,
        source: Annotated[str, Field(json_schema_extra={"x-ref": "edgeSource"})],
        target: Annotated[str, Field(json_schema_extra={"x-ref": "edgeTarget"})],
        property: Annotated[str, Field(json_schema_extra={"x-ref": "edgeProperty"})],
        label: Annotated[str, Field(json_schema_extra={"x-default": "edgeLabel"})] | None = None,
        properties: Annotated[dict[str, Any], Field(json_schema_extra={"x-default": "edgeProperties"})] | None = None,
    ) -> None:
        """Change an edge's label and/or properties."""
        key = self._edge_key(source, target, property)
        changes: dict[str, Any] = {}
        if label is not None:
            changes["label"] = label
        if properties is not None:
            changes["properties"] = properties
        self._graph_edges[key] = self._graph_edges[key].model_copy(update=changes)

    @tfs_action(alias=ActionAlias(category="graphical", resource="edge", resource_op_type="delete"))
    async def adelete_edge(
        self,
        source: Annotated[str, Field(json_schema_extra={"x-ref": "edgeSource"})],
        target: Annotated[str, Field(json_schema_extra={"x-ref": "edgeTarget"})],
        property: Annotated[str, Field(json_schema_extra={"x-ref": "edgeProperty"})],
    ) -> None:
        """Delete one edge."""
        del self._graph_edges[self._edge_key(source, target, property)]

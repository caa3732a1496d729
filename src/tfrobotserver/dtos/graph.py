"""The GraphicalProtocol container: what every `get_graph` action must return.

`category="graphical"` promises the console `nodes` and `edges` to draw. As with lists, the
per-element x-namespace / x-actions live on the node and edge types (see `Node`, `Edge`).
"""

from __future__ import annotations

from typing import Generic, TypeVar

from pydantic import Field

from tfrobotserver.dtos.base import HttpModel

N = TypeVar("N")
E = TypeVar("E")


class BaseGraph(HttpModel):
    """Marker base of graph containers: get_graph return types must subclass it."""


class Graph(BaseGraph, Generic[N, E]):
    """Nodes and edges; the console iterates each and gives every element its own scope."""

    nodes: list[N] = Field(default_factory=list)
    edges: list[E] = Field(default_factory=list)

"""The knowledge-graph component: nodes and edges of one collection in the SQL store.

`nodes` / `edges` are seed configuration: written once into an empty collection at start-up;
after that the store is the truth and the actions edit it.
"""

from __future__ import annotations

from pydantic import Field
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from tfrobotserver.actions.component import TFSComponent
from tfrobotserver.dtos.factory.base import Edge, Node
from tfrobotserver.robot.factory.brain.memory.graph_manage_mixin import GraphManageMixin, graph_nodes


def demo_graph_elements() -> tuple[list[Node], list[Edge]]:
    """People, a project and a city, with typed edges (the demo robot's graph)."""
    nodes = [
        Node(iri="ex:alice", label="Alice", cls="Person", properties={"age": 34}),
        Node(iri="ex:bob", label="Bob", cls="Person", properties={"age": 29}),
        Node(iri="ex:tfrobot", label="TFRobot", cls=["Project", "Software"], properties=None),
        Node(iri="ex:paris", label="Paris", cls="City", properties={"country": "FR"}),
    ]
    edges = [
        Edge(source="ex:alice", target="ex:tfrobot", label="maintains", property="ex:maintains", properties=None),
        Edge(source="ex:bob", target="ex:tfrobot", label="contributes to", property="ex:contributes"),
        Edge(source="ex:alice", target="ex:paris", label="lives in", property="ex:livesIn", properties={"since": 2019}),
        Edge(source="ex:alice", target="ex:bob", label="knows", property="ex:knows"),
    ]
    return nodes, edges


class GraphComponent(TFSComponent, GraphManageMixin):
    """A knowledge graph; `nodes` and `edges` seed an empty collection."""

    collection: str = Field(default="default", min_length=1, max_length=128)
    nodes: list[Node] = Field(default_factory=list)
    edges: list[Edge] = Field(default_factory=list)

    async def aon_startup(self, session: AsyncSession) -> None:
        query = select(func.count()).select_from(graph_nodes).where(graph_nodes.c.collection == self.collection)
        if (await session.execute(query)).scalar_one() > 0:
            return
        await self.insert_nodes(session, self.nodes)
        await self.insert_edges(session, self.edges)

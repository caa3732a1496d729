"""Knowledge-graph actions for memory components (the seed's `graph_manage_mixin.py`).

Nodes and edges live in the SQL store (`graph_nodes`, `graph_edges`, partitioned by the component's
`collection`; SQLite or PostgreSQL). The actions are what a graphical console needs: a node's
neighbourhood to a depth (or the whole graph when it is small), a pageable node list, and
create / update / delete of nodes and edges, whose row-level parameters come from the clicked
element's namespace (nodeIri, edgeSource …).

The neighbourhood is a breadth-first walk, two indexed queries per level (neighbour IRIs by source,
by target; on PostgreSQL one array parameter each), capped at `limit` nodes so a hub cannot return
the whole graph; then one query for the nodes and one for the edges among them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated, Any

from pydantic import Field
from sqlalchemy import (
    JSON,
    Column,
    Index,
    RowMapping,
    String,
    Table,
    bindparam,
    delete,
    func,
    insert,
    select,
    union_all,
    update,
)
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.ext.asyncio import AsyncSession

from tfrobotserver.actions.alias import ActionAlias
from tfrobotserver.actions.decorator import tfs_action
from tfrobotserver.actions.errors import ActionInputError
from tfrobotserver.dtos.factory.base import Edge, Node
from tfrobotserver.dtos.graph import Graph
from tfrobotserver.dtos.pageable import PageableList, PageNumber, PageSize
from tfrobotserver.storage import metadata

graph_nodes = Table(
    "graph_nodes",
    metadata,
    Column("collection", String(128), primary_key=True),
    Column("iri", String(512), primary_key=True),
    Column("label", String(512), nullable=False),
    Column("cls", JSON, nullable=False),
    Column("properties", JSON, nullable=True),
)

graph_edges = Table(
    "graph_edges",
    metadata,
    Column("collection", String(128), primary_key=True),
    Column("source", String(512), primary_key=True),
    Column("property", String(512), primary_key=True),
    Column("target", String(512), primary_key=True),
    Column("label", String(512), nullable=False),
    Column("properties", JSON, nullable=True),
    Index("ix_graph_edges_target", "collection", "target"),
)

_KEY = 512
"""Longest IRI, property and label the tables hold."""
NodeIri = Annotated[str, Field(min_length=1, max_length=_KEY, json_schema_extra={"x-ref": "nodeIri"})]
EdgeSource = Annotated[str, Field(min_length=1, max_length=_KEY, json_schema_extra={"x-ref": "edgeSource"})]
EdgeTarget = Annotated[str, Field(min_length=1, max_length=_KEY, json_schema_extra={"x-ref": "edgeTarget"})]
EdgeProperty = Annotated[str, Field(min_length=1, max_length=_KEY, json_schema_extra={"x-ref": "edgeProperty"})]
Key = Annotated[str, Field(min_length=1, max_length=_KEY)]
_CHUNK = 500


def _node(row: RowMapping) -> Node:
    return Node(iri=row["iri"], label=row["label"], cls=row["cls"], properties=row["properties"])


def _edge(row: RowMapping) -> Edge:
    # rows were written from validated `Edge`s: constructing without re-validation is safe and cheaper
    return Edge.model_construct(
        source=row["source"],
        target=row["target"],
        label=row["label"],
        property=row["property"],
        properties=row["properties"],
    )


def _member(session: AsyncSession, column: Any, values: list[str], name: str = "members") -> Any:
    """`column IN values`: on PostgreSQL `IN (SELECT unnest(array))`, one parameter whatever the count, which
    the planner hashes (`= ANY(array)` compares each row with every element: 2.5x slower at 500 IRIs)."""
    if session.bind.dialect.name == "postgresql":  # type: ignore[union-attr]
        return column.in_(select(func.unnest(bindparam(name, values, type_=ARRAY(String)))))
    return column.in_(values)


def _chunks(items: list[str]) -> Iterable[list[str]]:
    for start in range(0, len(items), _CHUNK):
        yield items[start : start + _CHUNK]


class GraphManageMixin:
    """Graph actions over the rows of `self.collection`."""

    collection: str

    async def _nodes_in(self, session: AsyncSession, iris: list[str]) -> list[Node]:
        found: list[Node] = []
        for chunk in _chunks(iris):
            query = select(graph_nodes).where(
                graph_nodes.c.collection == self.collection, _member(session, graph_nodes.c.iri, chunk)
            )
            found.extend(_node(r) for r in (await session.execute(query)).mappings())
        order = {iri: i for i, iri in enumerate(iris)}
        return sorted(found, key=lambda n: order[n.iri])

    async def _neighbours(self, session: AsyncSession, iris: list[str]) -> list[str]:
        """The IRIs at the other end of every edge touching `iris` (both directions; one query per chunk)."""
        c = graph_edges.c
        found: list[str] = []
        for chunk in _chunks(iris):
            outgoing = select(c.target.label("iri")).where(
                c.collection == self.collection, _member(session, c.source, chunk)
            )
            incoming = select(c.source.label("iri")).where(
                c.collection == self.collection, _member(session, c.target, chunk)
            )
            found.extend((await session.execute(union_all(outgoing, incoming))).scalars())
        return found

    async def _edges_among(self, session: AsyncSession, iris: list[str]) -> list[Edge]:
        """Every edge whose both ends are in `iris`."""
        c = graph_edges.c
        inside = set(iris)
        edges: list[Edge] = []
        for chunk in _chunks(iris):
            by_source = [c.collection == self.collection, _member(session, c.source, chunk)]
            if len(iris) <= _CHUNK:  # both ends in one parameter: the database drops the outside edges
                by_source.append(_member(session, c.target, chunk, "others"))
            rows = (await session.execute(select(graph_edges).where(*by_source))).mappings()
            edges.extend(_edge(r) for r in rows if r["target"] in inside)
        return edges

    @tfs_action(
        alias=ActionAlias(category="graphical", resource="graph", resource_op_type="get_graph"),
        description="A node's neighbourhood to `depth` hops (both directions), or the whole graph up to `limit` "
        "nodes when no node is given.",
    )
    async def aget_graph(
        self,
        async_session: AsyncSession,
        iri: Annotated[str | None, Field(max_length=_KEY, description="centre node; none: the whole graph")] = None,
        depth: Annotated[int, Field(ge=0, le=5)] = 1,
        limit: Annotated[int, Field(ge=1, le=10_000)] = 500,
    ) -> Graph[Node, Edge]:
        where = graph_nodes.c.collection == self.collection
        if iri is None:
            query = select(graph_nodes).where(where).order_by(graph_nodes.c.iri).limit(limit)
            nodes = [_node(r) for r in (await async_session.execute(query)).mappings()]
            kept = [n.iri for n in nodes]
        else:
            kept = [iri]
            seen = {iri}
            frontier = [iri]
            for _ in range(depth):
                if not frontier or len(kept) >= limit:
                    break
                following: list[str] = []
                for other in await self._neighbours(async_session, frontier):
                    if other not in seen and len(kept) < limit:
                        seen.add(other)
                        kept.append(other)
                        following.append(other)
                frontier = following
            nodes = await self._nodes_in(async_session, kept)
            if not nodes or nodes[0].iri != iri:
                raise ActionInputError("iri", "no such node", iri)
        return Graph[Node, Edge](nodes=nodes, edges=await self._edges_among(async_session, kept))

    @tfs_action(
        alias=ActionAlias(category="pageable", resource="node", resource_op_type="get_list"),
        description="Nodes as a table (by IRI).",
    )
    async def aget_nodes(
        self,
        async_session: AsyncSession,
        page: PageNumber = 1,
        page_size: PageSize = 20,
    ) -> PageableList[Node]:
        where = graph_nodes.c.collection == self.collection
        total = (await async_session.execute(select(func.count()).select_from(graph_nodes).where(where))).scalar_one()
        query = select(graph_nodes).where(where).order_by(graph_nodes.c.iri)
        rows = await async_session.execute(query.limit(page_size).offset((page - 1) * page_size))
        return PageableList[Node](
            items=[_node(r) for r in rows.mappings()], page=page, page_size=page_size, total=total
        )

    async def _require_node(self, session: AsyncSession, iri: str, path: str = "iri") -> None:
        query = select(graph_nodes.c.iri).where(graph_nodes.c.collection == self.collection, graph_nodes.c.iri == iri)
        if (await session.execute(query)).first() is None:
            raise ActionInputError(path, "no such node", iri)

    async def insert_nodes(self, session: AsyncSession, nodes: list[Node]) -> None:
        """Add nodes (seed data, imports); IRIs must be new."""
        if nodes:
            rows = [{"collection": self.collection, **n.model_dump(by_alias=False)} for n in nodes]
            await session.execute(insert(graph_nodes), rows)

    async def insert_edges(self, session: AsyncSession, edges: list[Edge]) -> None:
        """Add edges (seed data, imports); both ends must exist."""
        if edges:
            rows = [{"collection": self.collection, **e.model_dump(by_alias=False)} for e in edges]
            await session.execute(insert(graph_edges), rows)

    @tfs_action(alias=ActionAlias(category="graphical", resource="node", resource_op_type="create"))
    async def acreate_node(
        self,
        async_session: AsyncSession,
        iri: Key,
        label: Key,
        cls: Annotated[str | list[str], Field(json_schema_extra={"x-default": "nodeCls"})],
        properties: dict[str, Any] | None = None,
    ) -> Node:
        """Add a node (its class defaults to the clicked node's)."""
        query = select(graph_nodes.c.iri).where(graph_nodes.c.collection == self.collection, graph_nodes.c.iri == iri)
        if (await async_session.execute(query)).first() is not None:
            raise ActionInputError("iri", "a node with this IRI exists", iri)
        node = Node(iri=iri, label=label, cls=cls, properties=properties)
        await self.insert_nodes(async_session, [node])
        return node

    @tfs_action(alias=ActionAlias(category="graphical", resource="node", resource_op_type="update"))
    async def aupdate_node(
        self,
        async_session: AsyncSession,
        iri: NodeIri,
        label: Annotated[
            str, Field(max_length=_KEY, json_schema_extra={"x-default": "nodeLabel", "x-ref": "nodeLabel"})
        ]
        | None = None,
        properties: Annotated[
            dict[str, Any], Field(json_schema_extra={"x-default": "nodeProperties", "x-ref": "nodeProperties"})
        ]
        | None = None,
    ) -> None:
        """Change a node's label and/or properties (omitted values are kept)."""
        await self._require_node(async_session, iri)
        changes: dict[str, Any] = {}
        if label is not None:
            changes["label"] = label
        if properties is not None:
            changes["properties"] = properties
        if changes:
            where = (graph_nodes.c.collection == self.collection) & (graph_nodes.c.iri == iri)
            await async_session.execute(update(graph_nodes).where(where).values(**changes))

    @tfs_action(alias=ActionAlias(category="graphical", resource="node", resource_op_type="delete"))
    async def adelete_node(self, async_session: AsyncSession, iri: NodeIri) -> None:
        """Delete a node and every edge touching it."""
        await self._require_node(async_session, iri)
        edges = graph_edges.c
        touching = (edges.collection == self.collection) & ((edges.source == iri) | (edges.target == iri))
        await async_session.execute(delete(graph_edges).where(touching))
        where = (graph_nodes.c.collection == self.collection) & (graph_nodes.c.iri == iri)
        await async_session.execute(delete(graph_nodes).where(where))

    def _edge_where(self, source: str, target: str, property: str) -> Any:
        c = graph_edges.c
        return (
            (c.collection == self.collection) & (c.source == source) & (c.target == target) & (c.property == property)
        )

    async def _require_edge(self, session: AsyncSession, source: str, target: str, property: str) -> None:
        query = select(graph_edges.c.source).where(self._edge_where(source, target, property))
        if (await session.execute(query)).first() is None:
            raise ActionInputError("source", f"no edge {source} -[{property}]-> {target}", [source, property, target])

    @tfs_action(alias=ActionAlias(category="graphical", resource="edge", resource_op_type="create"))
    async def acreate_edge(
        self,
        async_session: AsyncSession,
        source: Annotated[str, Field(min_length=1, max_length=_KEY, json_schema_extra={"x-default": "nodeIri"})],
        target: Key,
        property: Key,
        label: Key,
        properties: dict[str, Any] | None = None,
    ) -> Edge:
        """Add an edge between two existing nodes (its source defaults to the clicked node)."""
        await self._require_node(async_session, source, "source")
        await self._require_node(async_session, target, "target")
        if (
            await async_session.execute(select(graph_edges.c.source).where(self._edge_where(source, target, property)))
        ).first():
            raise ActionInputError("property", "this edge exists", property)
        edge = Edge(source=source, target=target, property=property, label=label, properties=properties)
        await self.insert_edges(async_session, [edge])
        return edge

    @tfs_action(alias=ActionAlias(category="graphical", resource="edge", resource_op_type="update"))
    async def aupdate_edge(
        self,
        async_session: AsyncSession,
        source: EdgeSource,
        target: EdgeTarget,
        property: EdgeProperty,
        label: Annotated[str, Field(max_length=_KEY, json_schema_extra={"x-default": "edgeLabel"})] | None = None,
        properties: Annotated[dict[str, Any], Field(json_schema_extra={"x-default": "edgeProperties"})] | None = None,
    ) -> None:
        """Change an edge's label and/or properties."""
        await self._require_edge(async_session, source, target, property)
        changes: dict[str, Any] = {}
        if label is not None:
            changes["label"] = label
        if properties is not None:
            changes["properties"] = properties
        if changes:
            await async_session.execute(
                update(graph_edges).where(self._edge_where(source, target, property)).values(**changes)
            )

    @tfs_action(alias=ActionAlias(category="graphical", resource="edge", resource_op_type="delete"))
    async def adelete_edge(
        self, async_session: AsyncSession, source: EdgeSource, target: EdgeTarget, property: EdgeProperty
    ) -> None:
        """Delete one edge."""
        await self._require_edge(async_session, source, target, property)
        await async_session.execute(delete(graph_edges).where(self._edge_where(source, target, property)))

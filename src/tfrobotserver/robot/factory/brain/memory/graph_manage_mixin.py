"""Knowledge-graph actions for memory components (the seed's `graph_manage_mixin.py`).

Nodes and edges live in the SQL store (`graph_nodes`, `graph_edges`, partitioned by the component's
`collection`; SQLite or PostgreSQL). The actions are what a graphical console needs: a node's
neighbourhood to a depth (or the whole graph when it is small), a pageable node list, and
create / update / delete of nodes and edges, whose row-level parameters come from the clicked
element's namespace (nodeIri, edgeSource …).

The neighbourhood is a breadth-first walk, two indexed queries per level (neighbour IRIs by source,
by target; on PostgreSQL one array parameter each), capped at `limit` nodes so a hub cannot return
the whole graph; then one query for the nodes and one for the edges among them.

Nodes and edges carry a `version` as documents do: `aupdate_node` / `aupdate_edge` take back the version
read (`nodeVersion` / `edgeVersion` from the element's scope) and refuse a stale write with 409. A create
whose IRI or (source, property, target) exists is a 409 too, also when two creates race (the primary key
decides, and the loser's `IntegrityError` becomes the 409).
"""

from __future__ import annotations

from typing import Annotated, Any, cast

from pydantic import Field
from sqlalchemy import (
    JSON,
    Column,
    CursorResult,
    Index,
    Integer,
    RowMapping,
    String,
    Table,
    bindparam,
    delete,
    func,
    insert,
    select,
    text,
    union_all,
    update,
)
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from tfrobotserver.actions.alias import ActionAlias
from tfrobotserver.actions.decorator import tfs_action
from tfrobotserver.actions.errors import ActionConflictError, ActionInputError
from tfrobotserver.dtos.factory.base import Edge, Node
from tfrobotserver.dtos.graph import Graph
from tfrobotserver.dtos.pageable import MAX_INT32, PageableList, PageNumber, PageSize
from tfrobotserver.robot.factory.brain.memory.batches import CHUNK, chunks
from tfrobotserver.storage import metadata

graph_nodes = Table(
    "graph_nodes",
    metadata,
    Column("collection", String(128), primary_key=True),
    Column("iri", String(512), primary_key=True),
    Column("label", String(512), nullable=False),
    Column("cls", JSON, nullable=False),
    Column("properties", JSON, nullable=True),
    Column("version", Integer, nullable=False, server_default=text("1")),
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
    Column("version", Integer, nullable=False, server_default=text("1")),
    Index("ix_graph_edges_target", "collection", "target"),
)

_KEY = 512
"""Longest IRI, property and label the tables hold."""
NodeIri = Annotated[str, Field(min_length=1, max_length=_KEY, json_schema_extra={"x-ref": "nodeIri"})]
EdgeSource = Annotated[str, Field(min_length=1, max_length=_KEY, json_schema_extra={"x-ref": "edgeSource"})]
EdgeTarget = Annotated[str, Field(min_length=1, max_length=_KEY, json_schema_extra={"x-ref": "edgeTarget"})]
EdgeProperty = Annotated[str, Field(min_length=1, max_length=_KEY, json_schema_extra={"x-ref": "edgeProperty"})]
Key = Annotated[str, Field(min_length=1, max_length=_KEY)]


_STALE_HINT = "; if it changed since, the update is refused with 409 and nothing is written."
NodeVersion = Annotated[
    int,
    Field(
        ge=1,
        le=MAX_INT32,
        description="The node's version as you read it (nodeVersion)" + _STALE_HINT,
        json_schema_extra={"x-default": "nodeVersion"},
    ),
]
EdgeVersion = Annotated[
    int,
    Field(
        ge=1,
        le=MAX_INT32,
        description="The edge's version as you read it (edgeVersion)" + _STALE_HINT,
        json_schema_extra={"x-default": "edgeVersion"},
    ),
]


def _node(row: RowMapping) -> Node:
    return Node(
        iri=row["iri"], label=row["label"], cls=row["cls"], properties=row["properties"], version=row["version"]
    )


def _edge(row: RowMapping) -> Edge:
    # rows were written from validated `Edge`s: constructing without re-validation is safe and cheaper
    return Edge.model_construct(
        source=row["source"],
        target=row["target"],
        label=row["label"],
        property=row["property"],
        properties=row["properties"],
        version=row["version"],
    )


def _member(session: AsyncSession, column: Any, values: list[str], name: str = "members") -> Any:
    """`column IN values`: on PostgreSQL `IN (SELECT unnest(array))`, one parameter whatever the count, which
    the planner hashes (`= ANY(array)` compares each row with every element: 2.5x slower at 500 IRIs)."""
    if session.bind.dialect.name == "postgresql":  # type: ignore[union-attr]
        return column.in_(select(func.unnest(bindparam(name, values, type_=ARRAY(String)))))
    return column.in_(values)


def _stale(resource: str, shown: str, sent: int, current: Node | Edge) -> ActionConflictError:
    return ActionConflictError(
        f"{resource}_version",
        f"{resource} {shown} changed since you read it: you sent version {sent}, it is at version {current.version} "
        f"now (see `current`); reload it and apply your change again, or overwrite it by sending "
        f"{resource}_version {current.version}",
        sent,
        current=current.model_dump(mode="json", by_alias=True),
        overwrite={f"{resource}_version": current.version},
    )


def _changes(label: str | None, properties: dict[str, Any] | None, version: Any) -> dict[str, Any]:
    """The columns an update sets: what was given, and the next version (also when nothing was given, so
    that even an empty update tells a stale version from a current one)."""
    changes: dict[str, Any] = {"version": version + 1}
    if label is not None:
        changes["label"] = label
    if properties is not None:
        changes["properties"] = properties
    return changes


class GraphManageMixin:
    """Graph actions over the rows of `self.collection`."""

    collection: str

    async def _nodes_in(self, session: AsyncSession, iris: list[str]) -> list[Node]:
        found: list[Node] = []
        for chunk in chunks(iris):
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
        for chunk in chunks(iris):
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
        for chunk in chunks(iris):
            by_source = [c.collection == self.collection, _member(session, c.source, chunk)]
            if len(iris) <= CHUNK:  # both ends in one parameter: the database drops the outside edges
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

    def _node_where(self, iri: str) -> Any:
        return (graph_nodes.c.collection == self.collection) & (graph_nodes.c.iri == iri)

    async def _require_node(self, session: AsyncSession, iri: str, path: str = "iri") -> Node:
        row = (await session.execute(select(graph_nodes).where(self._node_where(iri)))).mappings().first()
        if row is None:
            raise ActionInputError(path, "no such node", iri)
        return _node(row)

    async def insert_nodes(self, session: AsyncSession, nodes: list[Node]) -> None:
        """Add nodes (seed data, imports) at version 1; IRIs must be new."""
        if nodes:
            rows = [{"collection": self.collection, **n.model_dump(by_alias=False, exclude={"version"})} for n in nodes]
            await session.execute(insert(graph_nodes), rows)

    async def insert_edges(self, session: AsyncSession, edges: list[Edge]) -> None:
        """Add edges (seed data, imports) at version 1; both ends must exist."""
        if edges:
            rows = [{"collection": self.collection, **e.model_dump(by_alias=False, exclude={"version"})} for e in edges]
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
        """Add a node (its class defaults to the clicked node's); an IRI that exists is a 409."""
        query = select(graph_nodes.c.iri).where(self._node_where(iri))
        exists = (await async_session.execute(query)).first() is not None
        node = Node(iri=iri, label=label, cls=cls, properties=properties)
        try:
            if not exists:
                await self.insert_nodes(async_session, [node])
        except IntegrityError:  # created by another request since the check: the primary key decided
            exists = True
        if exists:
            raise ActionConflictError(
                "iri", f"a node {iri!r} exists; update it (aupdate_node) or choose another IRI", iri
            ) from None
        return node

    @tfs_action(alias=ActionAlias(category="graphical", resource="node", resource_op_type="update"))
    async def aupdate_node(
        self,
        async_session: AsyncSession,
        iri: NodeIri,
        node_version: NodeVersion,
        label: Annotated[
            str, Field(max_length=_KEY, json_schema_extra={"x-default": "nodeLabel", "x-ref": "nodeLabel"})
        ]
        | None = None,
        properties: Annotated[
            dict[str, Any], Field(json_schema_extra={"x-default": "nodeProperties", "x-ref": "nodeProperties"})
        ]
        | None = None,
    ) -> None:
        """Change a node's label and/or properties (omitted values are kept) if it is still at `node_version`."""
        changes = _changes(label, properties, graph_nodes.c.version)
        where = self._node_where(iri) & (graph_nodes.c.version == node_version)
        result = await async_session.execute(update(graph_nodes).where(where).values(**changes))
        if not cast("CursorResult[Any]", result).rowcount:
            current = await self._require_node(async_session, iri)
            raise _stale("node", repr(iri), node_version, current)

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

    async def _require_edge(self, session: AsyncSession, source: str, target: str, property: str) -> Edge:
        row = (await session.execute(select(graph_edges).where(self._edge_where(source, target, property)))).first()
        if row is None:
            raise ActionInputError("source", f"no edge {source} -[{property}]-> {target}", [source, property, target])
        return _edge(row._mapping)

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
        """Add an edge between two existing nodes (its source defaults to the clicked node); one that exists is
        a 409."""
        await self._require_node(async_session, source, "source")
        await self._require_node(async_session, target, "target")
        where = self._edge_where(source, target, property)
        exists = (await async_session.execute(select(graph_edges.c.source).where(where))).first() is not None
        edge = Edge(source=source, target=target, property=property, label=label, properties=properties)
        try:
            if not exists:
                await self.insert_edges(async_session, [edge])
        except IntegrityError:  # created by another request since the check: the primary key decided
            exists = True
        if exists:
            raise ActionConflictError(
                "property",
                f"the edge {source} -[{property}]-> {target} exists; update it (aupdate_edge) or use another property",
                [source, property, target],
            ) from None
        return edge

    @tfs_action(alias=ActionAlias(category="graphical", resource="edge", resource_op_type="update"))
    async def aupdate_edge(
        self,
        async_session: AsyncSession,
        source: EdgeSource,
        target: EdgeTarget,
        property: EdgeProperty,
        edge_version: EdgeVersion,
        label: Annotated[str, Field(max_length=_KEY, json_schema_extra={"x-default": "edgeLabel"})] | None = None,
        properties: Annotated[dict[str, Any], Field(json_schema_extra={"x-default": "edgeProperties"})] | None = None,
    ) -> None:
        """Change an edge's label and/or properties (omitted values are kept) if it is still at `edge_version`."""
        changes = _changes(label, properties, graph_edges.c.version)
        where = self._edge_where(source, target, property) & (graph_edges.c.version == edge_version)
        result = await async_session.execute(update(graph_edges).where(where).values(**changes))
        if not cast("CursorResult[Any]", result).rowcount:
            current = await self._require_edge(async_session, source, target, property)
            raise _stale("edge", f"{source} -[{property}]-> {target}", edge_version, current)

    @tfs_action(alias=ActionAlias(category="graphical", resource="edge", resource_op_type="delete"))
    async def adelete_edge(
        self, async_session: AsyncSession, source: EdgeSource, target: EdgeTarget, property: EdgeProperty
    ) -> None:
        """Delete one edge."""
        await self._require_edge(async_session, source, target, property)
        await async_session.execute(delete(graph_edges).where(self._edge_where(source, target, property)))

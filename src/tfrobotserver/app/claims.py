"""Which robot a document or graph collection belongs to, on a database, whichever server runs the robot.

One server refuses two of its robots naming one collection (`check_collections`), but two `tfrobot
serve` processes on one database each checked only their own robots: a robot of the second that named
the first's collection read and changed another robot's documents and graph. So the database remembers
the owner (`robot_claims`: kind, collection → robot name): the first robot that keeps data in a collection
claims it at start-up, and a robot of another name that names it later is refused with the fix.

A robot is identified by its `name`: robot files with the same name on one database are the same robot
(replicas, or a file edited between starts) and share its conversations, saved configurations,
documents and graph on purpose. Conversations need no claim: their scope is the robot's name itself.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from sqlalchemy import Column, Connection, String, Table, insert, select

from tfrobotserver.robot.base import Robot
from tfrobotserver.robot.factory.brain.memory.dpe_manage_mixin import DpeManageMixin
from tfrobotserver.robot.factory.brain.memory.graph_manage_mixin import GraphManageMixin
from tfrobotserver.storage import metadata

robot_claims = Table(
    "robot_claims",
    metadata,
    Column("kind", String(32), primary_key=True),
    Column("collection", String(300), primary_key=True),
    Column("robot", String(300), nullable=False),
)


def robot_collections(robot: Robot) -> Iterator[tuple[str, str, str]]:
    """(kind, collection, component name) of each document or graph collection the robot keeps."""
    for comp_name, comp in robot.components.items():
        collection = getattr(comp, "collection", None)
        if isinstance(comp, DpeManageMixin | GraphManageMixin) and isinstance(collection, str):
            yield ("documents" if isinstance(comp, DpeManageMixin) else "graph"), collection, comp_name


def check_collections(robots: Sequence[Robot]) -> None:
    """Refuse a document or graph collection that two robots of one server name."""
    owners: dict[tuple[str, str], str] = {}
    for robot in robots:
        for kind, collection, comp_name in robot_collections(robot):
            owner = owners.setdefault((kind, collection), robot.name)
            if owner != robot.name:
                raise ValueError(
                    f"robots {owner!r} and {robot.name!r} both keep {kind} in collection {collection!r} "
                    f"({robot.name}/{comp_name}): a collection belongs to one robot, so that neither sees or changes "
                    f"the other's; give one of them its own `{kind}.collection` (default: the robot's name)"
                )


def claim_collections(conn: Connection, robots: Sequence[Robot]) -> None:
    """Claim each robot's collections on this database; `ValueError` with the fix for one another robot owns.
    Run inside the start-up transaction (and, on PostgreSQL, its advisory lock): two servers starting
    together claim one after the other."""
    for robot in robots:
        for kind, collection, _ in robot_collections(robot):
            found = select(robot_claims.c.robot).where(
                robot_claims.c.kind == kind, robot_claims.c.collection == collection
            )
            owner = conn.execute(found).scalar_one_or_none()
            if owner is None:
                conn.execute(insert(robot_claims).values(kind=kind, collection=collection, robot=robot.name))
            elif owner != robot.name:
                where = robot.source or f"robot {robot.name!r}"
                raise ValueError(
                    f"{where}: {kind} collection {collection!r} belongs to robot {owner!r} on this database (another "
                    f"server's robot), so robot {robot.name!r} would read and change its {kind}. Fix: set "
                    f"`{kind}.collection` in {where} to a collection of its own (default: the robot's name), or name "
                    f'the robot {owner!r} if it is that robot (docs/robots.md, "The same robot")'
                )

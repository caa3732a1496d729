"""Two `tfrobot serve` processes with different robot files on one database (a SQLite file, PostgreSQL).

Regression (issue 13, B): collections were unique only within one server's robots, so a robot of the second
server that named the first server's collection read and changed another robot's documents and graph. A
collection now belongs to the robot that first keeps data in it, on that database, whichever server runs
it; robots with one `name` are one robot and share on purpose (docs/robots.md, "The same robot").

Each `tfrobot serve` start costs seconds of imports, so one first server per database kind serves every test
here, and the second servers (one refused per collection kind, one replica) start together while it runs:
the claims are made in the start-up transaction, one server after the other, so starting together is also
the harder case."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.robot_servers import action, serve_fails, serve_robots
from tests.tfrobotserver.conftest import empty_server_database

ALPHA = """name: {name}
description: the first server's robot
llm: {{provider: scripted}}
documents: {{seed_docs: 2}}
graph: {{seed: none, nodes: [{{iri: "ex:alpha", label: Alpha, cls: Page}}]}}
"""
KINDS = ("documents", "graph")


def settings(server_url: str) -> str:
    return f"database_url = {json.dumps(server_url)}\n"


@dataclass
class _Servers:
    """The first server's robot, what it answered, and what the second servers did on its database."""

    alpha: str
    first_docs: int
    refused: dict[str, Future[str]]
    """Collection kind → the output of a server whose robot `beta` names alpha's collection of that kind."""
    replica_docs: Future[int]
    """The document count a second server's robot named `alpha` (another file, no seed) answered."""


def _refused(config: Path, server_url: str, kind: str, alpha: str) -> str:
    config.mkdir()
    beta = f"name: beta\nllm: {{provider: scripted}}\n{kind}: {{collection: {alpha}}}\n"
    return serve_fails(config, {"beta.yaml": beta}, settings=settings(server_url))


def _replica_docs(config: Path, server_url: str, alpha: str) -> int:
    config.mkdir()
    again = f"name: {alpha}\ndescription: a replica\nllm: {{provider: scripted}}\ndocuments: {{seed_docs: 0}}\n"
    with serve_robots(config, {"alpha.yaml": again}, {}, settings=settings(server_url)) as url:
        total: int = action(url, alpha, "memory", "aget_docs")["total"]
    return total


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def servers(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[_Servers]:
    """The first server (robot alpha: two documents, a graph) on an empty database, and the second servers
    started together once it answered; it runs until they are done."""
    tmp = tmp_path_factory.mktemp("claims")
    server_url = empty_server_database(request, tmp)
    alpha = f"alpha_{uuid.uuid4().hex[:8]}"
    (tmp / "first").mkdir()
    with (
        serve_robots(tmp / "first", {"alpha.yaml": ALPHA.format(name=alpha)}, {}, settings=settings(server_url)) as url,
        ThreadPoolExecutor(len(KINDS) + 1) as pool,
    ):
        first_docs = action(url, alpha, "memory", "aget_docs")["total"]
        refused = {kind: pool.submit(_refused, tmp / f"second-{kind}", server_url, kind, alpha) for kind in KINDS}
        replica = pool.submit(_replica_docs, tmp / "replica", server_url, alpha)
        yield _Servers(alpha, first_docs, refused, replica)


@pytest.mark.parametrize("kind", KINDS)
def test_a_robot_of_another_server_cannot_take_over_a_collection(servers: _Servers, kind: str) -> None:
    assert servers.first_docs == 2
    out = servers.refused[kind].result()
    alpha = servers.alpha
    assert f"{kind} collection {alpha!r} belongs to robot {alpha!r} on this database" in out
    assert f"set `{kind}.collection` in" in out
    assert "beta.yaml" in out
    assert "Traceback" not in out


def test_one_name_is_one_robot_across_servers(servers: _Servers) -> None:
    """Robot files with the same `name` on one database are the same robot: they share on purpose."""
    assert servers.first_docs == 2
    assert servers.replica_docs.result() == 2

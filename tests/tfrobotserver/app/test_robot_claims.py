"""Two `tfrobot serve` processes with different robot files on one database (a SQLite file, PostgreSQL).

Regression (issue 13, B): collections were unique only within one server's robots, so a robot of the second
server that named the first server's collection read and changed another robot's documents and graph. A
collection now belongs to the robot that first keeps data in it, on that database, whichever server runs
it; robots with one `name` are one robot and share on purpose (docs/robots.md, "The same robot")."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from tests.robot_servers import action, serve_fails, serve_robots

ALPHA = """name: {name}
description: the first server's robot
llm: {{provider: scripted}}
documents: {{seed_docs: 2}}
graph: {{seed: none, nodes: [{{iri: "ex:alpha", label: Alpha, cls: Page}}]}}
"""


def settings(server_url: str) -> str:
    return f"database_url = {json.dumps(server_url)}\n"


@pytest.mark.parametrize("kind", ["documents", "graph"])
def test_a_robot_of_another_server_cannot_take_over_a_collection(server_url: str, tmp_path: Path, kind: str) -> None:
    alpha = f"alpha_{uuid.uuid4().hex[:8]}"
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    with serve_robots(first, {"alpha.yaml": ALPHA.format(name=alpha)}, {}, settings=settings(server_url)) as url:
        assert action(url, alpha, "memory", "aget_docs")["total"] == 2
        beta = f"name: beta\nllm: {{provider: scripted}}\n{kind}: {{collection: {alpha}}}\n"
        out = serve_fails(second, {"beta.yaml": beta}, settings=settings(server_url))
    assert f"{kind} collection {alpha!r} belongs to robot {alpha!r} on this database" in out
    assert f"set `{kind}.collection` in" in out
    assert "beta.yaml" in out
    assert "Traceback" not in out


def test_one_name_is_one_robot_across_servers(server_url: str, tmp_path: Path) -> None:
    """Robot files with the same `name` on one database are the same robot: they share on purpose."""
    alpha = f"alpha_{uuid.uuid4().hex[:8]}"
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    with serve_robots(first, {"alpha.yaml": ALPHA.format(name=alpha)}, {}, settings=settings(server_url)) as url:
        assert action(url, alpha, "memory", "aget_docs")["total"] == 2
    again = f"name: {alpha}\ndescription: a replica\nllm: {{provider: scripted}}\ndocuments: {{seed_docs: 0}}\n"
    with serve_robots(second, {"alpha.yaml": again}, {}, settings=settings(server_url)) as url:
        assert action(url, alpha, "memory", "aget_docs")["total"] == 2

"""Start-up on a database an older TFRobot created: columns added since are added, rows kept; on both stores."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

import httpx
import pytest
from sqlalchemy.engine import make_url

from tfrobotserver.robot.base import Robot

from ...conftest import pg_execute
from ..conftest import act

VERSIONED = ("memory_docs", "graph_nodes", "graph_edges")


async def _drop_version_columns(url: str) -> None:
    """Make the database what TFRobot 0.1.0 left: the same tables without their `version` columns."""
    statements = [f"ALTER TABLE {table} DROP COLUMN version" for table in VERSIONED]
    if url.startswith("sqlite"):
        with sqlite3.connect(str(make_url(url).database)) as conn:
            for statement in statements:
                conn.execute(statement)
        return
    await pg_execute(url, *statements)


async def test_an_old_database_gets_the_new_columns_and_keeps_its_rows(
    server_url: str,
    serve: Callable[[list[Robot] | None], httpx.AsyncClient],
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Regression: a database without `version` columns was refused at start-up ("drop the tables")."""
    async with serve(None) as first:
        doc = await act(first, "memory", "acreate_doc", {"file_uri": "m://kept", "file_type": "md", "text": "kept"})
        await act(first, "graph", "acreate_node", {"iri": "ex:kept", "label": "Kept", "cls": "Thing"})
    await _drop_version_columns(server_url)
    async with serve(None) as upgraded:
        kept = await act(upgraded, "memory", "aget_doc", {"doc_id": doc["docId"]})
        assert (kept["fileUri"], kept["version"]) == ("m://kept", 1)
        assert (await act(upgraded, "memory", "aget_docs"))["total"] == 43
        nodes = await act(upgraded, "graph", "aget_nodes", {"page_size": 200})
        assert {n["iri"]: n["version"] for n in nodes["items"]}["ex:kept"] == 1
        update = {"doc_id": doc["docId"], "doc_version": 1, "keywords": ["new"], "metadata": {}}
        assert (await act(upgraded, "memory", "aupdate_doc", update))["version"] == 2
    added = [r.getMessage() for r in caplog.records if "lacked" in r.getMessage()]
    assert len(added) == len(VERSIONED), added
    assert any(
        "memory_docs.version (an older TFRobot): added as version INTEGER DEFAULT 1 NOT NULL" in a for a in added
    )

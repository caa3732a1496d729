"""`tfrobot mcp ROBOT` as a real subprocess, started the way docs/server.md tells an MCP client to start it.

The stdio configuration is read from docs/server.md itself, so that it is what runs.
"""

from __future__ import annotations

import json

from mcp import types
from pydantic import AnyUrl
from typer.testing import CliRunner

from tfrobotserver.cli import app
from tfrobotserver.mcp import resource_uri

from .conftest import doc_configs, stdio_session


def _text(result: types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


async def test_the_documented_stdio_configuration_operates_the_demo_robot() -> None:
    config = doc_configs()[0]
    assert (config["command"], config["args"]) == ("tfrobot", ["mcp", "demo"])
    async with stdio_session(config["command"], config["args"]) as session:
        names = {t.name for t in (await session.list_tools()).tools}
        assert {"memory__aget_docs", "memory__adelete_doc", "chat"} <= names
        docs = await session.call_tool("memory__aget_docs_by_cursor", {"page_size": 3})
        assert not docs.isError
        assert docs.structuredContent is not None
        assert [d["docId"] for d in docs.structuredContent["items"]] == [1, 2, 3]
        version = docs.structuredContent["items"][1]["version"]  # the version read: a stale one is a 409
        updated = await session.call_tool(
            "memory__aupdate_doc",
            {"doc_id": 2, "doc_version": version, "keywords": ["mcp"], "metadata": {"via": "stdio"}},
        )
        assert not updated.isError, _text(updated)
        assert updated.structuredContent is not None
        assert updated.structuredContent["keywords"] == ["mcp"]
        turn = await session.call_tool("chat", {"message": "weather in Paris and Tokyo?"})
        assert turn.structuredContent is not None, _text(turn)
        assert turn.structuredContent["answer"].startswith("Paris is 18C and Tokyo 24C")
        conversation = turn.structuredContent["conversationId"]
        read = await session.read_resource(AnyUrl(resource_uri("demo", "conversations", conversation)))
        content = read.contents[0]
        assert isinstance(content, types.TextResourceContents)
        assert [m["role"] for m in json.loads(content.text)["messages"]] == ["user", "assistant"]
        bad = await session.call_tool("memory__aget_doc", {"doc_id": "two"})
        assert bad.isError
        assert json.loads(_text(bad))["errors"][0]["path"] == "doc_id"


async def test_read_only_offers_and_allows_reads_only() -> None:
    config = doc_configs()[0]
    async with stdio_session(config["command"], [*config["args"], "--read-only"]) as session:
        tools = (await session.list_tools()).tools
        refused = await session.call_tool("memory__adelete_doc", {"doc_id": 1})
        kept = await session.call_tool("memory__aget_doc", {"doc_id": 1})
    assert tools
    assert all(t.annotations is not None and t.annotations.readOnlyHint for t in tools)
    assert "chat" not in {t.name for t in tools}
    assert refused.isError
    assert json.loads(_text(refused))["error"] == "forbidden"
    assert not kept.isError


def test_an_unknown_robot_is_a_clear_start_up_error() -> None:
    result = CliRunner().invoke(app, ["mcp", "nobody"])
    assert result.exit_code == 2
    assert "cannot start: no robot 'nobody' in this configuration; configured robots: ['demo']" in result.output
    assert "Traceback" not in result.output

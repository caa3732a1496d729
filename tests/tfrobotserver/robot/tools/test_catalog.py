"""A robot's tools from its file's entries: built-ins, Python callables, MCP servers; options and clashes."""

from __future__ import annotations

import logging
import re
import sys

import pytest

from tests.drive.mcp.conftest import ROOT, TOKEN, HttpServer
from tfrobotserver.robot.tools import BUILTIN_TOOLS, MCPTools, PythonTools, ToolCatalog

SHOP = "tests.tfrobotserver.robot.tools.shop"
BUILT_INS = re.escape(str(sorted(BUILTIN_TOOLS)))


def names(catalog: ToolCatalog) -> list[str]:
    return [t.name for t in catalog.tools()]


def stdio_entry(**extra: object) -> MCPTools:
    args = ["-m", "tests.drive.mcp.example_server", "stdio"]
    env = {"PYTHONPATH": str(ROOT), "EXAMPLE_GREETING": "${GREETING}"}
    return MCPTools.model_validate({"mcp": "files", "command": sys.executable, "args": args, "env": env, **extra})


def test_builtins_functions_and_modules() -> None:
    catalog = ToolCatalog(["weather", f"{SHOP}:lookup_order", PythonTools(python=f"{SHOP}:*", prefix="shop_")])
    assert names(catalog) == ["weather", "lookup_order", "shop_lookup_order", "shop_refund_order"]
    tools = {t.name: t for t in catalog.tools()}
    assert tools["shop_refund_order"].confirm  # the @tool's own option
    assert not tools["lookup_order"].confirm
    assert tools["lookup_order"].spec.parameters["required"] == ["order_id"]
    assert [(s.name, s.kind, s.state, s.tools) for s in catalog.sources()] == [
        ("weather", "python", "ready", 1),
        (f"{SHOP}:lookup_order", "python", "ready", 1),
        (f"{SHOP}:*", "python", "ready", 2),
    ]


def test_word_count_is_a_built_in_name() -> None:
    (counter,) = ToolCatalog(["word_count"]).tools()
    assert counter.name == "word_count"
    assert counter.description.startswith("Count the words")


def test_entry_options_apply_on_top_of_the_tools_own() -> None:
    entry = PythonTools(python=f"{SHOP}:lookup_order", confirm=True, timeout=3, read_only=True)
    (lookup,) = ToolCatalog([entry]).tools()
    assert (lookup.confirm, lookup.timeout, lookup.read_only) == (True, 3, True)


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ("teleport", rf"tools\[0\] \(teleport\): unknown built-in tool 'teleport'; built-ins: {BUILT_INS}"),
        (
            "nowhere.mod:fn",
            r"cannot import module 'nowhere\.mod' .*; put nowhere\.py .*next to the robot file, install it",
        ),
        (f"{SHOP}:missing", r"has no 'missing'; check the name after the colon"),
        (f"{SHOP}:NOT_CALLABLE", r"is a int, not a function or a Tool; name a function"),
        ("tests.tfrobotserver.robot.tools:*", r"gives no tools: list the module's tool functions in its __all__"),
        ("shop:", r"is not `module:attribute`"),
    ],
)
def test_wrong_python_entries_name_the_entry_and_the_fix(entry: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ToolCatalog([entry])


def test_two_tools_with_one_name_are_an_error_naming_both_sources() -> None:
    with pytest.raises(ValueError, match=r"two tools are named 'lookup_order' \(from '.*:lookup_order' and '.*:\*'\)"):
        ToolCatalog([f"{SHOP}:lookup_order", f"{SHOP}:*"])


def test_mcp_entries_are_checked_before_anything_starts(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValueError, match="give exactly one of `command` \\(stdio\\) or `url` \\(HTTP\\)"):
        MCPTools.model_validate({"mcp": "x"})
    with pytest.raises(ValueError, match="header 'Authorization' is written inline; header values come from the"):
        MCPTools.model_validate({"mcp": "x", "url": "http://127.0.0.1:1/mcp", "headers": {"Authorization": "abc"}})
    monkeypatch.delenv("GREETING", raising=False)
    with pytest.raises(ValueError, match=r"env\.EXAMPLE_GREETING names the environment variable GREETING, which is"):
        ToolCatalog([stdio_entry()])


async def test_mcp_servers_over_stdio_and_http_with_prefixes_and_per_tool_options(
    http_server: HttpServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GREETING", "Salut")
    monkeypatch.setenv("WEB_TOKEN", TOKEN)
    web = MCPTools(mcp="web", url=http_server.url, headers={"Authorization": "Bearer ${WEB_TOKEN}"}, prefix="web_")
    files = stdio_entry(prefix="fs_", tools={"greet": {"confirm": True, "timeout": 4}})
    catalog = ToolCatalog([f"{SHOP}:lookup_order", files, web])
    assert names(catalog) == ["lookup_order"]  # MCP tools come with start()
    await catalog.start()
    try:
        tools = {t.name: t for t in catalog.tools()}
        assert {"fs_greet", "fs_delete_note", "web_greet", "web_stats"} <= set(tools)
        assert (tools["fs_greet"].confirm, tools["fs_greet"].timeout) == (True, 4)
        assert tools["fs_delete_note"].confirm  # from the server's destructiveHint
        assert tools["web_greet"].read_only  # from its readOnlyHint
        greeted = await tools["fs_greet"].ainvoke({"name": "Lu"})
        assert greeted.result == "Salut, Lu!"
        assert [s.state for s in catalog.sources()] == ["ready", "ready", "ready"]
    finally:
        await catalog.aclose()
    assert [s.state for s in catalog.sources()][1:] == ["stopped", "stopped"]


async def test_a_server_that_cannot_start_stops_the_start_unless_optional() -> None:
    ghost = {"mcp": "ghost", "command": "/nonexistent/server", "startup_timeout": 5}
    required = ToolCatalog([MCPTools.model_validate(ghost)])
    with pytest.raises(
        RuntimeError, match=r"MCP server 'ghost' \(/nonexistent/server\) did not start: .*optional: true"
    ):
        await required.start()
    optional = ToolCatalog(["weather", MCPTools.model_validate({**ghost, "optional": True})])
    await optional.start()
    try:
        assert names(optional) == ["weather"]
        ghost_status = optional.sources()[1]
        assert (ghost_status.state, ghost_status.optional) == ("failed", True)
        assert ghost_status.error is not None
        assert "No such file or directory" in ghost_status.error
    finally:
        await optional.aclose()


async def test_sources_are_described_with_their_credentials_masked(caplog: pytest.LogCaptureFixture) -> None:
    """Start-up errors, statuses and log lines name a source by its command line or URL: never with the key
    on its command line, its URL's password or a secret query parameter."""
    caplog.set_level(logging.INFO)
    url = "http://admin:SECRET-pw@127.0.0.1:9/mcp?api_key=SECRET-query"
    remote = ToolCatalog(
        [MCPTools.model_validate({"mcp": "remote", "url": url, "optional": True, "startup_timeout": 5})]
    )
    await remote.start()
    try:
        status = remote.sources()[0]
        assert status.state == "failed"
    finally:
        await remote.aclose()
    ghost = {
        "mcp": "ghost",
        "command": "/nonexistent/server",
        "args": ["--api-key", "SECRET-arg"],
        "startup_timeout": 5,
    }
    with pytest.raises(RuntimeError) as caught:
        await ToolCatalog([MCPTools.model_validate(ghost)]).start()
    assert "(/nonexistent/server --api-key ***)" in str(caught.value)
    shown = [str(caught.value), status.error or "", caplog.text]
    assert "http://admin:***@127.0.0.1:9/mcp" in caplog.text
    assert all("SECRET" not in text for text in shown), shown

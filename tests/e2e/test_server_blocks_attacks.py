"""R15 (issue 15, outsider review): hostile provider blocks in the console.

What a reply keeps of the provider's side (`server_tool_blocks`, `text_blocks`) is attacker-controlled: a model
or a page it read can put any URL or text there. A `tfrobot serve` of its own, its store seeded with such
conversations through the store the server uses, opened in Chromium (the trace explorer and the chat): no script
may run, no link may lead anywhere but http(s), nothing the CSP blocks, and thousands of citations must not freeze
the page.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Dialog, Page, expect

from tests.e2e.conftest import _serve, console_page, seed_store
from tfrobot.brain.memory import DATA_FILE
from tfrobot.schema.message import AssistantTextMessage, BaseMessage, TextMessage
from tfrobot.schema.message.llms.llm_response import ServerToolBlock

T0 = 1_790_000_000_000
HOSTILE_URLS = [
    "javascript:window.__xss='js'",
    "JavaScript:window.__xss='JS'",
    " javascript:window.__xss='space'",
    "java\tscript:window.__xss='tab'",
    "data:text/html,<script>window.__xss='data'</script>",
    "vbscript:msgbox(1)",
    "//evil.test/protocol-relative",
    "file:///etc/passwd",
    'https://ok.test/"><img src=x onerror="window.__xss=\'attr\'">',
]
HTML_TITLE = "<img src=x onerror=\"window.__xss='title'\"><b>bold</b>"


def _hostile_blocks() -> tuple[list[ServerToolBlock], list[ServerToolBlock]]:
    """Every shape `ServerBlocks` reads links from, each with the hostile URLs and an HTML title."""
    sources = [{"url": u, "title": HTML_TITLE} for u in HOSTILE_URLS]
    web = {"type": "web_search_call", "status": "completed", "action": {"query": HTML_TITLE, "sources": sources}}
    chunks = [{"web": {"uri": u, "title": HTML_TITLE}} for u in HOSTILE_URLS]
    pages = [{"retrieved_url": u, "url_retrieval_status": HTML_TITLE} for u in HOSTILE_URLS]
    code = {"language": HTML_TITLE, "code": "</code><script>window.__xss='code'</script>"}
    odd = {"type": "<img src=x onerror=\"window.__xss='type'\">", "x": HTML_TITLE}
    server = [
        {"provider": "openai", "block": web},
        {"provider": "anthropic", "block": {"type": "web_search_tool_result", "content": sources}},
        {
            "provider": "gemini",
            "block": {"grounding_metadata": {"grounding_chunks": chunks, "web_search_queries": [HTML_TITLE]}},
        },
        {"provider": "gemini", "block": {"url_context_metadata": {"url_metadata": pages}}},
        {"provider": "gemini", "block": {"executable_code": code}},
        {"provider": "anthropic", "block": {"type": "server_tool_use", "name": HTML_TITLE, "input": {"q": HTML_TITLE}}},
        {"provider": "<script>window.__xss='prov'</script>", "block": odd},
    ]
    notes = [{"type": "url_citation", "url": u, "title": HTML_TITLE} for u in HOSTILE_URLS]
    text = [
        {
            "provider": "openai",
            "block": {"type": "message", "content": [{"type": "output_text", "text": "t", "annotations": notes}]},
        }
    ]
    return [ServerToolBlock.model_validate(b) for b in server], [ServerToolBlock.model_validate(b) for b in text]


def _many(n: int, tag: str) -> list[ServerToolBlock]:
    notes = [{"type": "url_citation", "url": f"https://cite.test/{tag}/{i}", "title": f"source {i}"} for i in range(n)]
    block = {"type": "message", "content": [{"type": "output_text", "text": "t", "annotations": notes}]}
    return [ServerToolBlock.model_validate({"provider": "openai", "block": block})]


def _turn(cid: str, i: int, question: str, **answer: Any) -> list[BaseMessage]:
    user = TextMessage(content=question, conversation_id=cid, create_ts=T0 + i * 60_000)
    reply = AssistantTextMessage(
        content="answer", conversation_id=cid, create_ts=T0 + i * 60_000 + 500, model="openai:gpt-5.2", **answer
    )
    return [user, reply]


MANY_TURNS = 100
CITES_PER_TURN = 1000
HUGE_CITES = 20_000


def _conversations() -> dict[str, list[BaseMessage]]:
    server, text = _hostile_blocks()
    huge_code = ServerToolBlock(
        provider="gemini", block={"executable_code": {"language": "PYTHON", "code": "x = 1\n" * 400_000}}
    )
    return {
        "hostile": _turn("hostile", 0, "hostile blocks", server_tool_blocks=server, text_blocks=text),
        "huge": _turn(
            "huge", 0, "thousands of citations", text_blocks=_many(HUGE_CITES, "h"), server_tool_blocks=[huge_code]
        ),
        "long": [
            m for i in range(MANY_TURNS) for m in _turn("long", i, f"q{i}", text_blocks=_many(CITES_PER_TURN, str(i)))
        ],
    }


@pytest.fixture(scope="module")
def hostile_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    config = tmp_path_factory.mktemp("serve-hostile-blocks")
    with _serve(config) as url:
        seed_store(config / "data" / DATA_FILE, _conversations().values())
        yield url


@pytest.fixture
def hpage(browser: Browser, hostile_server: str) -> Iterator[Page]:
    with console_page(browser, hostile_server, timeout=60_000) as page:
        dialogs: list[str] = []

        def opened(dialog: Dialog) -> None:
            dialogs.append(dialog.message)
            dialog.dismiss()

        page.on("dialog", opened)
        yield page
        assert not dialogs, f"a script ran: {dialogs}"


def _no_script_and_only_web_links(page: Page) -> None:
    assert page.evaluate("() => window.__xss") is None, "a script of the stored data ran"
    assert page.locator("[data-testid='server-block'] img").count() == 0
    hrefs: list[str] = page.locator("[data-testid='server-block'] a").evaluate_all("(as) => as.map((a) => a.href)")
    assert hrefs, "no link shown at all"
    for href in hrefs:
        assert href.startswith(("https://", "http://")), f"a link to {href!r}"
        assert "evil.test" not in href, href
        assert "/etc/passwd" not in href, href


def test_hostile_blocks_in_the_trace_explorer_run_no_script(hpage: Page) -> None:
    """Attack: `javascript:`/`data:`/protocol-relative URLs and HTML in titles, types, code and queries."""
    hpage.goto("/#/r/demo/traces/hostile")
    hpage.locator("[data-turn-row='1']").click()
    detail = hpage.get_by_test_id("turn-detail")
    expect(detail.locator("[data-testid='server-block']").first).to_be_visible()
    expect(detail).to_contain_text(HTML_TITLE)  # shown as text
    for link in detail.locator("[data-testid='server-block'] a").all():
        link.hover()
    _no_script_and_only_web_links(hpage)


def test_hostile_blocks_in_the_chat_run_no_script(hpage: Page) -> None:
    """Attack: the same blocks under a resumed conversation's answer in the chat."""
    hpage.goto("/#/r/demo/chat/hostile")
    expect(hpage.locator("[data-testid='server-block']").first).to_be_visible()
    expect(hpage.locator("body")).to_contain_text(HTML_TITLE)
    _no_script_and_only_web_links(hpage)


_LONGEST_TASK = """() => { window.__long = 0; new PerformanceObserver((l) => { for (const e of l.getEntries())
  window.__long = Math.max(window.__long, e.duration); }).observe({type: "longtask", buffered: true}); }"""
"""Records the longest task the page's main thread ran (the time it could not answer a click)."""
LINKS_SHOWN_AT_ONCE = 1000
"""A generous bound on the links one block may put in the page before the user asks for more."""


def _links(page: Page) -> int:
    return page.locator("[data-testid='server-block'] a").count()


def test_twenty_thousand_citations_do_not_all_become_links_at_once(hpage: Page) -> None:
    """Attack: one answer citing 20,000 sources with a 2.4 MB code block, in the trace explorer and the chat."""
    shown: dict[str, int] = {}
    for view, route in {"trace explorer": "/#/r/demo/traces/huge", "chat": "/#/r/demo/chat/huge"}.items():
        started = time.perf_counter()
        hpage.goto(route)
        hpage.evaluate(_LONGEST_TASK)
        if view == "trace explorer":
            hpage.locator("[data-turn-row='1']").click()
        expect(hpage.get_by_role("link", name="source 0", exact=True)).to_be_attached(timeout=120_000)
        shown[view] = _links(hpage)
        print(
            f"\n{HUGE_CITES:,} citations, {view}: {(time.perf_counter() - started) * 1000:.0f} ms to show, "
            f"{shown[view]:,} links, longest main-thread task {hpage.evaluate('() => window.__long'):.0f} ms"
        )
    assert all(n <= LINKS_SHOWN_AT_ONCE for n in shown.values()), shown


def test_a_long_conversation_full_of_citations_opens_in_the_chat(hpage: Page) -> None:
    """Attack: 100 turns each citing 1,000 sources resumed in the chat, which renders every turn (the trace
    explorer renders only the opened turn's steps)."""
    started = time.perf_counter()
    hpage.goto("/#/r/demo/chat/long")
    hpage.evaluate(_LONGEST_TASK)
    expect(hpage.get_by_test_id("reply")).to_have_count(MANY_TURNS, timeout=180_000)
    links = _links(hpage)
    shown_ms = (time.perf_counter() - started) * 1000
    longest = hpage.evaluate("() => window.__long")
    print(
        f"\n{MANY_TURNS} turns x {CITES_PER_TURN:,} citations in the chat: {shown_ms:.0f} ms to show, {links:,} links, "
        f"longest main-thread task {longest:.0f} ms"
    )
    assert links <= MANY_TURNS * LINKS_SHOWN_AT_ONCE // 10, links

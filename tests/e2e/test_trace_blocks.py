"""What a provider ran or cited on its side, in the trace explorer and the chat (issue 15, console leftovers).

A `tfrobot serve` of its own whose store is seeded with one conversation of three turns, each answered by a
reply recorded from a real provider and parsed by its adapter (`replay_llm`, the recordings the adapters'
tests replay): an OpenAI Responses answer with `url_citation` annotations and its web search
(`text_blocks`, `server_tool_blocks`), a Gemini answer with code execution parts, and a Gemini answer grounded
on Google Search. The console must name each block in words and show what it holds: the cited sources as
links, the code and its result, the search queries — not the provider's raw block type.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.brain.chain.llms.conftest import Recorder, recording, replay_llm
from tests.e2e.conftest import _serve, console_page, seed_store, shot
from tfrobot.brain.memory import DATA_FILE
from tfrobot.schema.message import BaseMessage, TextMessage

CONVERSATION = "provider-blocks"
T0 = 1_790_000_000_000
TURNS = [  # (recording, model, question)
    ("openai-responses/web_search_citations", "gpt-5.2", "What is the tallest mountain in Alberta?"),
    ("gemini/code_execution", "gemini-2.5-flash", "What is 3 * 12390? Use code."),
    ("gemini/web_search", "gemini-2.5-flash", "Weather in San Francisco?"),
]


def _conversation() -> list[BaseMessage]:
    out: list[BaseMessage] = []
    for i, (name, model, question) in enumerate(TURNS):
        user = TextMessage(content=question, conversation_id=CONVERSATION, create_ts=T0 + i * 60_000)
        llm = replay_llm(name.split("/")[0], Recorder(), recording(name), model=model)
        answer = llm.generate(user)
        answer.conversation_id, answer.create_ts = CONVERSATION, user.create_ts + 500
        out += [user, answer]
    return out


@pytest.fixture(scope="module")
def blocks_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    config = tmp_path_factory.mktemp("serve-blocks")
    with _serve(config) as url:
        seed_store(config / "data" / DATA_FILE, [_conversation()])
        yield url


@pytest.fixture
def bpage(browser: Browser, blocks_server: str) -> Iterator[Page]:
    with console_page(browser, blocks_server, timeout=20_000) as page:
        yield page


def test_the_trace_explorer_names_provider_blocks_and_shows_their_content(bpage: Page) -> None:
    """Before: the trace explorer showed none of these blocks, and the chat labelled them by raw type
    (`executable_code`, `grounding_metadata`) without their content; a Responses answer's citations were
    not shown at all."""
    bpage.goto(f"/#/r/demo/traces/{CONVERSATION}")
    bpage.locator("[data-turn-row='1']").click()
    detail = bpage.get_by_test_id("turn-detail")
    cited = detail.locator("[data-testid='server-block'][data-label='Sources cited']")
    expect(cited).to_be_visible()
    link = cited.get_by_role("link", name=re.compile("Mount Columbia"))
    expect(link).to_have_attribute("href", re.compile(r"^https://www\.britannica\.com/place/Mount-Columbia"))
    expect(detail.locator("[data-testid='server-block'][data-label='Web search']")).to_contain_text(
        "tallest mountain in Alberta"
    )
    shot(bpage, "trace-citations")

    bpage.locator("[data-turn-row='2']").click()
    code = detail.locator("[data-testid='server-block'][data-label='Code run by Gemini (Python)']")
    expect(code.first).to_contain_text("print(3 * 12390)")
    expect(detail.locator("[data-testid='server-block']", has_text="Code result: failed").first).to_contain_text(
        "must be followed by"
    )

    bpage.locator("[data-turn-row='3']").click()
    grounded = detail.locator("[data-testid='server-block'][data-label='Google Search sources']")
    expect(grounded.get_by_role("link", name="weather.gov")).to_be_visible()
    expect(detail).not_to_contain_text("grounding_metadata")
    expect(detail).not_to_contain_text("executable_code")


def test_the_chat_shows_an_answer_s_cited_sources_under_its_text(bpage: Page) -> None:
    """The resumed conversation in the chat: each answer's sources and code under its text, in words."""
    bpage.goto(f"/#/r/demo/chat/{CONVERSATION}")
    replies = bpage.get_by_test_id("reply")
    expect(replies).to_have_count(len(TURNS))
    cited = bpage.locator("[data-testid='server-block'][data-label='Sources cited']")
    expect(cited.get_by_role("link", name=re.compile("Mount Columbia"))).to_be_visible()
    expect(
        bpage.locator("[data-testid='server-block'][data-label='Code run by Gemini (Python)']").first
    ).to_be_visible()
    expect(bpage.locator("[data-testid='server-block'][data-label='Google Search sources']")).to_be_visible()
    expect(bpage.locator("body")).not_to_contain_text("grounding_metadata")

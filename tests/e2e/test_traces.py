"""The trace explorer in Chromium against a real `tfrobot serve` (issue 15, part 1).

A server of its own, so that its store can be seeded before the console reads it: a real turn of the
demo robot (the scripted model: tools, a TFL chart, timing), a failed turn stored in the form older
versions wrote (no timing: it must still load), a conversation of 1,000 turns with traces, and 100,000
conversations (rows of the conversations table, written directly: the list pages by cursor, so what
it must stay fast for is the size of the table). The figures are printed with the other console figures.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.conftest import LOCAL_TOKEN, _serve, console_page, record_perf, shot
from tfrobot.brain.memory import DATA_FILE, SQLMessageStore
from tfrobot.schema.message import (
    TRACE_META_KEY,
    AssistantTextMessage,
    BaseMessage,
    TextMessage,
    ToolCall,
    ToolReturn,
)
from tfrobot.schema.message.llms.llm_response import Usage

CORPUS = Path(__file__).resolve().parents[1] / "schema" / "message" / "corpus"
OLD_FAILED_TURN = CORPUS / "v2" / "00_TextMessage_failed_turn.json"
BIG = "big-1000-turns"
TURNS = 1000
CONVERSATIONS = 100_000
T0 = 1_790_000_000_000  # 2026-09-21, epoch ms


def _post(url: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
    req = urllib.request.Request(
        f"{url}{path}",
        data=json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {LOCAL_TOKEN}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=60) as res:
        out: dict[str, Any] = json.loads(res.read())
        return out


def _big_conversation() -> list[BaseMessage]:
    """1,000 turns: each an LLM call with a tool call, the tool's result, the answer; every 10th turn on
    another model, every 100th with a tool error; timed as the chain times them."""
    out: list[BaseMessage] = []
    for i in range(TURNS):
        ts = T0 + i * 60_000
        model = "model-b" if i % 10 == 9 else "model-a"
        error = i % 100 == 99
        call = ToolCall(id=f"call-{i}", name="weather", arguments=json.dumps({"city": f"City {i}"}))
        thinking = AssistantTextMessage(
            content="",
            tool_calls=[call],
            model=model,
            usage=Usage(input_tokens=120 + i, output_tokens=12, cache_read_tokens=64),
            finish_reason="tool_calls",
            create_ts=ts + 400,
            conversation_id=BIG,
        )
        said = "boom" if error else f"City {i}: 18C"
        result = ToolReturn(call_id=call.id, name="weather", result=said, is_error=error)
        tool = BaseMessage(role="tool", tool_reses=[result], create_ts=ts + 450, conversation_id=BIG)
        user = TextMessage(content=f"question {i + 1}", create_ts=ts, conversation_id=BIG, msg_id=f"big-u{i + 1}")
        timings = [
            {"started_at": ts + 10, "duration_ms": 390, "provider": "scripted"},
            {"started_at": ts + 400, "duration_ms": 50, "call_ms": {call.id: 48}},
        ]
        for (msg, source), timing in zip(((thinking, "thinking"), (tool, "doing")), timings, strict=True):
            user.intermediate_trace.append(msg, source=source, step=0, timing=timing)  # type: ignore[arg-type]
        answer = AssistantTextMessage(
            content=f"answer {i + 1}",
            model=model,
            usage=Usage(input_tokens=150 + i, output_tokens=8),
            finish_reason="stop",
            create_ts=ts + 900,
            conversation_id=BIG,
        )
        mark = {"source": "thinking", "step": 1, "started_at": ts + 460, "duration_ms": 430}
        answer.additional_kwargs[TRACE_META_KEY] = mark
        out += [user, answer]
    return out


def _seed_store(db: Path) -> None:
    async def work() -> None:
        opened = await SQLMessageStore.open(f"sqlite+aiosqlite:///{db}")
        store = opened.scoped("demo")
        try:
            old = json.loads(OLD_FAILED_TURN.read_text())["record"]
            await store.sync_msgs([TextMessage.model_validate(old)])
            await store.sync_msgs(_big_conversation())
        finally:
            await opened.aclose()

    # in a thread of its own: the browser tests' Playwright may hold this thread's event loop
    failures: list[BaseException] = []
    thread = threading.Thread(target=lambda: _catch(failures, lambda: asyncio.run(work())))
    thread.start()
    thread.join()
    if failures:
        raise failures[0]
    rows = ((f"bulk-{n:06d}", "demo", f"Bulk {n}", T0 - n * 1000, T0 - 10**9 - n) for n in range(CONVERSATIONS))
    with closing(sqlite3.connect(db, timeout=30)) as conn, conn:
        conn.executemany(
            "INSERT INTO conversations (conversation_id, scope, title, created_ts, updated_ts) VALUES (?, ?, ?, ?, ?)",
            rows,
        )


def _catch(failures: list[BaseException], run: Any) -> None:
    try:
        run()
    except BaseException as exc:  # handed to the caller's thread
        failures.append(exc)


@pytest.fixture(scope="module")
def traces_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """A server whose demo robot has a real timed turn, an old-form failed turn, a 1,000-turn conversation and
    100,000 conversations; yields its URL and the real turn's conversation id."""
    config = tmp_path_factory.mktemp("serve-traces")
    with _serve(config) as url:
        real = _post(url, "/api/robots/demo/chat", {"message": "weather in Paris and Tokyo, chart it"})
        _seed_store(config / "data" / DATA_FILE)
        yield url, str(real["conversationId"])


@pytest.fixture
def tpage(browser: Browser, traces_server: tuple[str, str]) -> Iterator[Page]:
    with console_page(browser, traces_server[0], timeout=20_000) as page:
        yield page


def _ms_since(t0: float) -> float:
    return (time.perf_counter() - t0) * 1000


def test_a_real_turn_shows_every_step_timed_and_the_request_it_sent(
    tpage: Page, traces_server: tuple[str, str]
) -> None:
    conversation = traces_server[1]
    tpage.goto("/#/r/demo/traces")
    tpage.get_by_role("link", name="Trace explorer").click()
    tpage.locator(f"[data-conversation='{conversation}']").click()
    tpage.locator("[data-turn-row='1']").click()
    detail = tpage.get_by_test_id("turn-detail")
    expect(detail).to_be_visible()
    assert conversation in tpage.url  # the URL links to this one turn
    steps = detail.locator("[data-step]")
    kinds = [steps.nth(i).get_attribute("data-step") for i in range(steps.count())]
    assert kinds == ["llm", "tool", "tool", "llm", "console", "llm"], kinds
    llm = detail.locator("[data-step='llm']").first
    expect(llm).to_contain_text("scripted:scripted-1")  # the model names its provider: no "scripted · " before it
    expect(detail.locator("[data-step='tool']").first).to_contain_text("Paris: 18C")
    durations = detail.get_by_test_id("step-duration").all_inner_texts()
    assert all(d.endswith(("ms", " s")) for d in durations), durations  # every step is timed
    expect(detail.get_by_test_id("step-script")).to_have_count(1)  # the TFL script, shown once
    expect(detail.get_by_test_id("step-image")).to_be_visible()
    shot(tpage, "trace-explorer")

    detail.locator("[data-llm-step='1']").get_by_role("button", name="Request").click()
    request = tpage.get_by_test_id("step-request")
    expect(tpage.get_by_test_id("request-rendered")).to_have_text("re-rendered")
    expect(request).to_contain_text('"role": "tool"')
    shot(tpage, "trace-request")

    other = tpage.context.new_page()  # the turn's link opens it again, in a fresh page
    other.goto(tpage.url)
    expect(other.get_by_test_id("turn-detail")).to_have_attribute("data-turn-id", tpage.url.rsplit("/", 1)[1])


def test_an_old_failed_turn_loads_with_its_typed_error_and_filters(tpage: Page) -> None:
    """A record stored before per-step timing (the v2 corpus's failed turn) opens: its steps without
    durations, its failure typed; "failed only" keeps it."""
    tpage.goto("/#/r/demo/traces/c-failed/v2-00")
    detail = tpage.get_by_test_id("turn-detail")
    expect(detail.get_by_test_id("turn-failure")).to_contain_text("Rate limited — openai (HTTP 429)")
    expect(detail.get_by_test_id("failure-fix")).to_contain_text("retry in 2 s")
    expect(detail.locator("[data-step='llm']")).to_contain_text("weather")
    assert detail.get_by_test_id("step-duration").first.inner_text() == "—"
    tpage.get_by_label("Failed only").check()
    expect(tpage.get_by_test_id("turn-count")).to_have_text("1 of 1 turns")


def test_a_thousand_turn_conversation_and_100000_conversations_stay_responsive(tpage: Page) -> None:
    t0 = time.perf_counter()
    tpage.goto(f"/#/r/demo/traces/{BIG}")
    expect(tpage.locator("[data-turn-row='1']")).to_be_visible()  # the first page is readable at once
    first_rows = _ms_since(t0)
    expect(tpage.get_by_test_id("turns-render-ms")).to_contain_text(f"{TURNS} turns", timeout=60_000)
    first_render = _ms_since(t0)
    rows = tpage.locator("[data-turn-row]").count()
    assert rows < 100, f"{rows} turn rows in the DOM: the timeline is not virtualised"

    t1 = time.perf_counter()
    tpage.get_by_test_id("turn-scroll").evaluate("el => { el.scrollTop = el.scrollHeight; }")
    tpage.locator(f"[data-turn-row='{TURNS}']").click()
    expect(tpage.get_by_test_id("turn-detail")).to_have_attribute("data-turn-id", f"big-u{TURNS}")
    open_last = _ms_since(t1)

    t2 = time.perf_counter()
    tpage.get_by_label("Tool errors").check()
    expect(tpage.get_by_test_id("turn-count")).to_have_text(f"10 of {TURNS} turns")
    filter_ms = _ms_since(t2)
    tpage.get_by_label("Tool errors").uncheck()
    tpage.get_by_role("combobox", name="Model").click()
    tpage.get_by_role("option", name="model-b").click()
    expect(tpage.get_by_test_id("turn-count")).to_have_text(f"100 of {TURNS} turns")
    tpage.get_by_label("Since").fill("2026-09-21")
    expect(tpage.get_by_test_id("turn-count")).to_contain_text(f"of {TURNS} turns")
    shot(tpage, "trace-1000-turns")

    t3 = time.perf_counter()
    tpage.goto("/#/r/demo/traces")
    expect(tpage.get_by_test_id("conversations-render-ms")).to_contain_text("50 conversations")
    list_first = _ms_since(t3)
    t4 = time.perf_counter()
    first_id = tpage.locator("[data-conversation]").first.get_attribute("data-conversation")
    tpage.get_by_role("button", name="Next").click()
    expect(tpage.locator("[data-conversation]").first).not_to_have_attribute("data-conversation", first_id or "")
    list_next = _ms_since(t4)

    record_perf("traces_1000_turns_first_rows_ms", first_rows)
    record_perf("traces_1000_turns_first_render_ms", first_render)
    record_perf("traces_1000_turns_open_last_turn_ms", open_last)
    record_perf("traces_1000_turns_filter_ms", filter_ms)
    record_perf("traces_100000_conversations_first_page_ms", list_first)
    record_perf("traces_100000_conversations_next_page_ms", list_next)


def test_chat_enter_sends_steps_once_images_at_size_and_a_stored_conversation_resumes(tpage: Page) -> None:
    """The chat defects of issue 15: Enter sends and Shift+Enter is a newline; a normal turn has no
    "provider request" box; the TFL script is shown once; the chart at its natural size; the turn's time as
    a date; a stored conversation resumes from its link; "New conversation" starts one."""
    tpage.goto("/#/r/demo/chat")
    box = tpage.get_by_label("Message")
    box.fill("weather in Paris and Tokyo")
    box.press("Shift+Enter")
    box.type("chart it")
    assert box.input_value() == "weather in Paris and Tokyo\nchart it"
    box.press("Enter")
    chat = tpage.get_by_test_id("chat")
    expect(chat.get_by_test_id("reply").first).to_contain_text("Paris is 18C and Tokyo 24C")
    assert box.input_value() == ""
    expect(chat.locator("[data-trace-kind='provider request']")).to_have_count(0)
    expect(chat.locator("[data-trace-kind='console']")).to_be_visible()
    scripts = chat.locator("[data-trace-kind] .mantine-Code-root").filter(has_text="chart(")
    expect(scripts).to_have_count(1)
    image = chat.get_by_test_id("trace-image").first
    expect(image).to_be_visible()
    natural, shown = image.evaluate("img => [img.naturalWidth, img.getBoundingClientRect().width]")
    assert natural > 0
    assert abs(natural - shown) <= 1, (natural, shown)
    stamp = chat.get_by_test_id("turn-time").first.inner_text()
    assert any(ch.isdigit() for ch in stamp)
    assert not stamp.isdigit()  # a date, not epoch milliseconds
    shot(tpage, "chat-live")

    expect(chat.get_by_test_id("chat-conversation")).to_contain_text("Conversation ")
    resumed = tpage.url
    assert "/chat/" in resumed  # the link names the conversation
    other = tpage.context.new_page()
    other.goto(resumed)
    again = other.get_by_test_id("chat")
    expect(again.locator("[data-turn='1']")).to_contain_text("chart it")
    expect(again.get_by_test_id("reply").first).to_contain_text("Paris is 18C and Tokyo 24C")
    again.get_by_label("Message").fill("and tomorrow?")
    again.get_by_label("Message").press("Enter")
    expect(again.locator("[data-turn='2']").get_by_test_id("reply")).to_have_text("Tomorrow looks the same.")
    again.get_by_role("button", name="New conversation").click()
    expect(again.locator("[data-turn]")).to_have_count(0)
    expect(again.get_by_test_id("chat-conversation")).to_have_text("New conversation")


def test_the_playground_resends_a_step_edited_to_two_models_side_by_side(
    tpage: Page, traces_server: tuple[str, str]
) -> None:
    """From a stored LLM step: its messages prefilled, the user's edited, a system prompt drafted and rendered
    unsaved, then sent to the robot's model and to the same provider with other parameters, side by side,
    each with the exact request it sent."""
    tpage.goto(f"/#/r/demo/traces/{traces_server[1]}")
    tpage.locator("[data-turn-row='1']").click()
    tpage.get_by_test_id("turn-detail").locator("[data-llm-step='0']").get_by_role("button", name="Playground").click()
    play = tpage.get_by_test_id("playground")
    expect(play.locator("[data-play-message]")).to_have_count(2)  # the system prompt and the question
    expect(play.get_by_label("Message 2", exact=True)).to_have_value("weather in Paris and Tokyo, chart it")
    play.get_by_label("Message 2", exact=True).fill("ping")
    play.get_by_label("Template (unsaved)").fill("Be {{ mood }}.")
    play.get_by_label("Variables (JSON)").fill('{"mood": "brief"}')
    play.get_by_role("button", name="Render draft").click()
    expect(play.get_by_test_id("draft-rendered")).to_have_text("Be brief.")
    play.get_by_role("button", name="Use as system prompt").click()
    expect(play.get_by_label("Message 1", exact=True)).to_have_value("Be brief.")
    play.get_by_label("Compare with a second model").check()
    play.get_by_label("B parameters (JSON)").fill('{"fallback": "B heard: {user}"}')
    play.get_by_role("button", name="Send", exact=True).click()
    b = play.locator("[data-testid='play-outcome'][data-column='B']")
    expect(b.get_by_test_id("play-reply")).to_have_text("B heard: ping")
    a = play.locator("[data-testid='play-outcome'][data-column='A']")
    expect(a.get_by_test_id("play-request")).to_contain_text('"content": "ping"')
    expect(a.get_by_test_id("play-request")).to_contain_text('"content": "Be brief."')
    expect(play.get_by_test_id("play-original")).to_contain_text("weather(")
    shot(tpage, "trace-playground")


def test_the_dry_run_opens_in_the_playground(tpage: Page) -> None:
    tpage.goto("/#/r/demo/chat")
    tpage.get_by_role("switch", name="Dry run (show the provider request)").check(force=True)
    tpage.get_by_label("Message").fill("what about tomorrow?")
    tpage.get_by_label("Message").press("Enter")
    tpage.get_by_role("button", name="Open in playground").click()
    play = tpage.get_by_test_id("playground")
    expect(play.get_by_label("Message 2", exact=True)).to_have_value("what about tomorrow?")
    play.get_by_role("button", name="Send", exact=True).click()
    expect(play.get_by_test_id("play-reply")).to_have_text("Tomorrow looks the same.")

"""A new user finds why a turn failed, in the trace explorer (review of issue 15, parts 1-2).

A `tfrobot serve` of its own with a robot file whose OpenAI-compatible endpoint is a loopback server
answering 401 (a wrong key), as a user meets it: the turn is stored failed, and the user opens the
trace explorer to see which step failed and why, and to re-send that request to another model.
"""

from __future__ import annotations

import json
import re
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.conftest import LOCAL_TOKEN, _serve, console_page, shot

REFUSED = {
    "error": {
        "message": "Incorrect API key provided: sk-bad***.",
        "type": "invalid_request_error",
        "code": "invalid_api_key",
    }
}


class _Refusing(BaseHTTPRequestHandler):
    """OpenAI's documented answer to a wrong key: HTTP 401 with an `error` object."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", "0")))
        body = json.dumps(REFUSED).encode()
        self.send_response(401)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        """Quiet: the test reads the console, not this log."""


def _chat(url: str, robot: str, message: str) -> dict[str, Any]:
    req = urllib.request.Request(
        f"{url}/api/robots/{robot}/chat",
        data=json.dumps({"message": message}).encode(),
        headers={"Authorization": f"Bearer {LOCAL_TOKEN}", "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(req, timeout=60) as res:
            out: dict[str, Any] = json.loads(res.read())
    except urllib.error.HTTPError as err:
        out = json.loads(err.read())
    return out


_CONVERSATIONS: dict[str, str] = {}
"""The conversation id of the other turns the module's server made, by robot."""


@pytest.fixture(scope="module")
def failed_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """A server with robot `badkey` (openai, model `m401`, its endpoint refusing the key) and one failed turn
    of it; yields the URL and the failed turn's conversation id."""
    provider = ThreadingHTTPServer(("127.0.0.1", 0), _Refusing)
    threading.Thread(target=provider.serve_forever, daemon=True).start()
    config = tmp_path_factory.mktemp("serve-failed")
    base = f"http://127.0.0.1:{provider.server_port}/v1"
    (config / "badkey.yaml").write_text(
        "name: badkey\ndescription: a wrong key\nllm:\n  provider: openai\n  model: m401\n"
        f'  params: {{base_url: "{base}", max_retries: 0, timeout: 10}}\n'
        "tools: [weather]\nmemory: {url: null}\n"
    )
    (config / "review_tools.py").write_text(
        "from tfrobot.drive import tool\n\n\n@tool(confirm=True)\ndef wipe(target: str) -> str:\n"
        '    """Wipe a target (asks the user first)."""\n    return f"wiped {target}"\n'
    )
    (config / "asks.yaml").write_text(
        "name: asks\ndescription: a tool that needs confirmation\nllm:\n  provider: scripted\n  params:\n"
        "    rules:\n      - {user: wipe, tool_calls: [{name: wipe, arguments: {target: disk}}]}\n"
        '      - {after: "tool:*", reply: "Done: {results}"}\n'
        "tools: [review_tools:wipe]\nmemory: {url: null}\n"
    )
    try:
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv("OPENAI_API_KEY", "sk-bad")
            with _serve(config) as url:
                failed = _chat(url, "badkey", "weather in Paris?")
                assert failed.get("kind") == "auth", failed
                _CONVERSATIONS["asks"] = str(_chat(url, "asks", "wipe the disk")["conversationId"])
                _CONVERSATIONS["demo"] = str(_chat(url, "demo", "weather in Paris and Tokyo")["conversationId"])
                yield url, str(failed["conversationId"])
    finally:
        provider.shutdown()
        provider.server_close()


@pytest.fixture
def fpage(browser: Browser, failed_server: tuple[str, str]) -> Iterator[Page]:
    with console_page(browser, failed_server[0], timeout=20_000) as page:
        yield page


def test_a_turn_whose_llm_call_failed_shows_that_call_as_a_step_with_its_request(
    fpage: Page, failed_server: tuple[str, str]
) -> None:
    """The provider refused the turn's first LLM call: the turn shows the typed error, but not the step that
    failed — no model, no duration, no Request, no Playground — so the user cannot see what was sent nor
    re-send it to another model. Expected: the failed LLM call is a step (`data-step='llm'`) naming the
    model (`m401`), with a Request button."""
    fpage.goto(f"/#/r/badkey/traces/{failed_server[1]}")
    fpage.locator("[data-turn-row='1']").click()
    detail = fpage.get_by_test_id("turn-detail")
    expect(detail.get_by_test_id("turn-failure")).to_contain_text("API key refused")
    shot(fpage, "review-failed-turn")
    llm = detail.locator("[data-step='llm']")
    expect(llm).to_have_count(1)
    expect(llm).to_contain_text("m401")
    llm.get_by_role("button", name="Request").click()
    expect(fpage.get_by_test_id("step-request")).to_contain_text("weather in Paris?")  # what that call was sent


def test_the_turn_row_says_1_step_not_1_steps(fpage: Page, failed_server: tuple[str, str]) -> None:
    """The failed turn's row says "1 steps" (its one "step" is the failure itself). Expected: "1 step"."""
    fpage.goto(f"/#/r/badkey/traces/{failed_server[1]}")
    row = fpage.locator("[data-turn-row='1']")
    expect(row).to_contain_text(re.compile("failed", re.IGNORECASE))
    assert not re.search(r"\b1 steps\b", row.inner_text()), row.inner_text()


def test_the_conversation_list_marks_a_conversation_with_a_failed_turn(
    fpage: Page, failed_server: tuple[str, str]
) -> None:
    """The robot's conversation list shows only titles and dates: a user with many conversations must open each
    one to find the failed turn ("Failed only" exists only inside a conversation). Expected: the row of a
    conversation holding a failed turn says so."""
    fpage.goto("/#/r/badkey/traces")
    row = fpage.locator(f"[data-conversation='{failed_server[1]}']")
    expect(row).to_be_visible()
    shot(fpage, "review-conversation-list")
    expect(row).to_contain_text(re.compile("failed", re.IGNORECASE))


def test_a_call_not_run_for_want_of_confirmation_is_not_labelled_a_tool_error(
    fpage: Page, failed_server: tuple[str, str]
) -> None:
    """A `confirm=True` tool the chat could not ask about was never run, yet its step is titled "tool error"
    (red) and the turn gets a "1 tool error(s)" badge, so "Tool errors" finds it as a broken tool. Expected:
    the step says the call was not run (refused / not confirmed), not that the tool failed."""
    fpage.goto(f"/#/r/asks/traces/{_CONVERSATIONS['asks']}")
    fpage.locator("[data-turn-row='1']").click()
    step = fpage.get_by_test_id("turn-detail").locator("[data-step='tool']")
    expect(step).to_contain_text("wipe was not run")
    shot(fpage, "review-not-confirmed")
    expect(step).not_to_contain_text(re.compile("tool error", re.IGNORECASE))


def test_the_playground_of_a_step_after_a_tool_result_keeps_that_result(fpage: Page) -> None:
    """Playground on the LLM step that read the tool results (step 1 of the demo turn) drafts only the text
    messages: the weather results the step answered from are dropped, the draft ends with the assistant's
    "Checking both cities." and Send is disabled ("The last message must be the user's.") — a dead end: the
    step cannot be re-sent to another model as it was. Expected: Send works on the opened draft and the
    request it sends carries the tool results the step's request held."""
    fpage.goto(f"/#/r/demo/traces/{_CONVERSATIONS['demo']}")
    fpage.locator("[data-turn-row='1']").click()
    detail = fpage.get_by_test_id("turn-detail")
    detail.locator("[data-llm-step='1']").get_by_role("button", name="Request").click()
    expect(fpage.get_by_test_id("step-request")).to_contain_text("Paris: 18C")  # the step's request held it
    fpage.keyboard.press("Escape")
    detail.locator("[data-llm-step='1']").get_by_role("button", name="Playground").click()
    play = fpage.get_by_test_id("playground")
    shot(fpage, "review-playground-step-1-draft")
    expect(play.get_by_role("button", name="Send", exact=True)).to_be_enabled()
    play.get_by_role("button", name="Send", exact=True).click()
    sent = play.locator("[data-testid='play-outcome'][data-column='A']").get_by_test_id("play-request")
    expect(sent).to_be_visible()
    shot(fpage, "review-playground-step-1")
    expect(sent).to_contain_text("Paris: 18C")


def test_the_console_loads_with_no_404(fpage: Page, failed_server: tuple[str, str]) -> None:
    """The page named no icon, so a browser falls back to /favicon.ico, a 404 in every load's console.
    Expected: the page names its icon, and nothing it asks for at load is missing."""
    missing: list[str] = []
    fpage.on("response", lambda r: missing.append(r.url) if r.status == 404 else None)
    fpage.goto(f"/#/r/badkey/traces/{failed_server[1]}")
    expect(fpage.locator("[data-turn-row='1']")).to_be_visible()
    expect(fpage.locator("link[rel='icon']")).to_have_count(1)
    assert not missing, missing

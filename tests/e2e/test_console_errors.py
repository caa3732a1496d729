"""The console shows every provider failure where the reply would be, typed, and a component's saved
configuration as overriding its robot file. Chromium against a real `tfrobot serve` whose robot files point a
provider's `base_url` at a loopback fake (robot files are deployment settings), with the real OpenAI SDK."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.conftest import shot
from tests.fake_provider import KEY_ENV, RETRY_AFTER, base_url, closed_port, fake_provider, robot_file, with_fault
from tests.robot_servers import LOCAL_TOKEN, post, serve_robots

CASES = {
    "401": ("typed", "auth", "API key refused — openai (HTTP 424)", "check OPENAI_API_KEY: openai refused it"),
    "403": ("typed", "auth", "API key refused — openai (HTTP 424)", "lacks access to this model"),
    "404": ("typed", "model_not_found", "Unknown model — openai (HTTP 424)", "check the model name ('gpt-4o')"),
    "429": ("typed", "rate_limited", "Rate limited — openai (HTTP 429)", f"retry in {RETRY_AFTER} s"),
    "500": ("typed", "unavailable", "Provider failed — openai (HTTP 502)", "retry in a moment"),
    "timeout": ("typed", "timeout", "Provider timed out — openai (HTTP 504)", "raise the LLM's `timeout` setting"),
    "html": ("typed", "bad_response", "Not the provider's API — openai (HTTP 502)", "check base_url"),
    "refused": ("refused", "connection", "Provider unreachable — openai (HTTP 502)", "check the network"),
    "missing_key": ("nokey", "missing_key", "No API key — anthropic (HTTP 424)", "set ANTHROPIC_API_KEY"),
    "429-late": ("typed", "rate_limited", "Rate limited — openai (HTTP 429)", f"retry in {RETRY_AFTER} s"),
}
"""Failure → (robot, kind, the notice's title, a piece of its fix); `-late` fails after the stream began."""


@pytest.fixture(scope="module")
def provider_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with fake_provider() as root:
        typed = robot_file("typed", "openai", base_url(root, "openai"), timeout=0.5)
        typed += 'prompt: {template: "You are {{ robot }}.", defaults: {robot: Typed}}\n'
        robots = {
            "typed.yaml": typed,
            "refused.yaml": robot_file("refused", "openai", f"http://127.0.0.1:{closed_port()}/v1"),
            "nokey.yaml": robot_file("nokey", "anthropic", base_url(root, "anthropic")),
        }
        env = {KEY_ENV["openai"]: "sk-test-0123456789", KEY_ENV["anthropic"]: None, "ANTHROPIC_AUTH_TOKEN": None}
        with serve_robots(tmp_path_factory.mktemp("serve-providers"), robots, env) as url:
            yield url


@pytest.fixture
def console(browser: Browser, provider_server: str) -> Iterator[Page]:
    context = browser.new_context(base_url=provider_server, viewport={"width": 1400, "height": 900})
    context.add_init_script(f"sessionStorage.setItem('tfrobot.token', {json.dumps(LOCAL_TOKEN)})")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.set_default_timeout(15_000)
    yield page
    context.close()
    assert not errors, f"errors in the page: {errors}"


def test_every_provider_failure_shows_typed_where_the_reply_would_be(console: Page) -> None:
    shown = 0
    for fault, (robot, kind, title, fix) in CASES.items():
        console.goto(f"/#/r/{robot}/chat")
        message = "weather in Paris?" if robot != "typed" else with_fault("weather in Paris?", fault)
        console.get_by_label("Message").fill(message)
        console.get_by_role("button", name="Send").click()
        notice = console.get_by_test_id("turn-failure")
        expect(notice).to_have_attribute("data-kind", kind)
        expect(notice).to_contain_text(title)
        expect(console.get_by_test_id("failure-fix")).to_contain_text(fix)
        expect(console.get_by_test_id("reply")).to_have_text("")  # no half reply where the answer would be
        if fault == "429":
            expect(notice).to_contain_text(f"Retry after {RETRY_AFTER} s.")
            shot(console, "chat-typed-error")
        shown += 1
        console.reload()  # a fresh chat for the next case
    print(f"\nconsole: {shown} provider failures shown typed, none as a bare 500")


def test_the_failed_turn_shows_in_the_conversation_history(console: Page, provider_server: str) -> None:
    status, body = post(f"{provider_server}/api/robots/typed/chat", {"message": with_fault("weather?", "500-late")})
    assert status == 502
    console.goto("/#/r/typed/c/conversations/a/aget_conversations")
    row = console.locator("tr[data-row]", has_text=body["conversationId"])
    row.locator('[data-action="aget_messages"]').click()
    dialog = console.get_by_role("dialog")
    dialog.get_by_role("button", name="Run").click()
    dialog.get_by_role("tab", name="JSON").click()
    expect(dialog.get_by_role("tabpanel", name="JSON")).to_contain_text('"failed": "unavailable: openai: server error')


def test_a_saved_configuration_says_it_overrides_the_file_and_reverts(console: Page, provider_server: str) -> None:
    status, _ = post(
        f"{provider_server}/api/robots/typed/components/prompt/actions/aset_template", {"template": "Be brief."}
    )
    assert status == 200
    console.goto("/#/r/typed/c/prompt")
    provenance = console.get_by_test_id("config-provenance")
    expect(provenance).to_have_attribute("data-saved", "true")
    expect(provenance).to_contain_text("A configuration saved through the console is in effect")
    expect(provenance).to_contain_text("differs from the file in template")
    row = console.get_by_test_id("config-differences").locator('tr[data-field="template"]')
    expect(row).to_contain_text("You are {{ robot }}.")
    expect(row).to_contain_text("Be brief.")
    shot(console, "config-provenance")
    console.get_by_role("button", name="Revert to the robot file").click()
    console.get_by_role("dialog").get_by_role("button", name="Revert").click()
    expect(provenance).to_have_attribute("data-saved", "false")
    expect(console.get_by_test_id("config-json")).to_contain_text('"template": "You are {{ robot }}."')

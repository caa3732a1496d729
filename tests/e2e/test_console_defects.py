"""The console defects a new user found (issue 15, part 3), each driven in Chromium against a real
`tfrobot serve`: list views with required parameters, row actions at laptop widths, labels and inputs,
feedback after changes and on errors, `/docs` offline, stored messages shown as messages."""

from __future__ import annotations

import json
import urllib.request

import pytest
from playwright.sync_api import Browser, Locator, Page, Route, expect

from tests.e2e.conftest import LOCAL_TOKEN, Calls, shot
from tests.e2e.test_console import cell, open_action, row, settled


def _post(server: str, path: str, body: dict[str, object]) -> dict[str, object]:
    """A plain HTTP call beside the page (another client), with the local secret."""
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {LOCAL_TOKEN}"}
    request = urllib.request.Request(f"{server}{path}", data=json.dumps(body).encode(), headers=headers)
    with urllib.request.urlopen(request, timeout=30) as response:
        answer: dict[str, object] = json.loads(response.read())
        return answer


@pytest.fixture(scope="module")
def conversation(server: str) -> str:
    """One stored conversation of the demo robot (a user turn and the scripted answer)."""
    reply = _post(server, "/api/robots/demo/chat", {"message": "weather in Paris?"})
    conversation_id = reply["conversationId"]
    assert isinstance(conversation_id, str)
    assert conversation_id
    return conversation_id


def action_dialog(page: Page, action: str) -> Locator:
    """The modal an element action opened in (found by its form, whatever its title)."""
    return page.get_by_role("dialog").filter(has=page.locator(f'[data-form="{action}"]'))


# 1. List views whose action takes more than paging get their parameter form.


def test_a_search_list_asks_for_its_query_first(page: Page, calls: Calls) -> None:
    """Regression: `asearch_docs` opened with no query input and showed "1 invalid parameter(s)"."""
    open_action(page, "memory", "asearch_docs")
    form = page.get_by_test_id("list-params")
    expect(page.get_by_test_id("list-needs")).to_contain_text("Fill in Query")
    expect(page.get_by_role("alert")).to_have_count(0)
    assert calls.to("asearch_docs") == []  # nothing is asked before the query is there
    form.get_by_label("Query").fill("topic-3")
    form.get_by_role("combobox", name="Mode").click()
    page.get_by_role("option", name="keyword").click()
    form.get_by_role("button", name="Apply").click()
    expect(cell(page, 1, "docId")).to_have_text("3")
    expect(cell(page, 1, "keywords")).to_contain_text("topic-3")
    shot(page, "list-params")
    assert calls.to("asearch_docs") == [{"query": "topic-3", "mode": "keyword", "page_size": 20}]


def test_the_messages_list_asks_for_its_conversation(page: Page, calls: Calls, conversation: str) -> None:
    open_action(page, "conversations", "aget_messages", robot="demo")
    expect(page.get_by_test_id("list-needs")).to_contain_text("Conversation Id")
    expect(page.get_by_role("alert")).to_have_count(0)
    page.get_by_test_id("list-params").get_by_label("Conversation Id").fill(conversation)
    page.get_by_role("button", name="Apply").click()
    expect(cell(page, 1, "role")).to_have_text("user")
    expect(cell(page, 1, "text")).to_have_text("weather in Paris?")
    assert [body["conversation_id"] for body in calls.to("aget_messages")] == [conversation]


# 2. Row actions stay on screen at laptop widths.


@pytest.mark.parametrize("width", [1280, 1400])
def test_row_actions_stay_in_view(browser: Browser, server: str, width: int) -> None:
    """Regression: the memory table's row actions were clipped at 1400 px and out of view at 1280 px."""
    context = browser.new_context(base_url=server, viewport={"width": width, "height": 900})
    context.add_init_script(f"sessionStorage.setItem('tfrobot.token', {json.dumps(LOCAL_TOKEN)})")
    page = context.new_page()
    try:
        open_action(page, "memory", "aget_docs", robot="demo")
        settled(page)
        for action in ("aupdate_doc", "adelete_doc"):
            expect(row(page, 1).locator(f'[data-action="{action}"]')).to_be_in_viewport(ratio=1)
        shot(page, f"row-actions-{width}")
        row(page, 1).locator('[data-action="aupdate_doc"]').click()
        expect(action_dialog(page, "aupdate_doc")).to_be_visible()
    finally:
        context.close()


# 6. Stored messages are shown as messages.


def test_a_conversations_messages_open_as_messages(page: Page, conversation: str) -> None:
    """Regression: a row's aget_messages opened a JSON tree of the whole page."""
    page.goto("/#/r/demo/c/conversations/a/aget_conversations")
    settled(page)
    page.locator("tr[data-row]", has_text=conversation).locator('[data-action="aget_messages"]').click()
    form = action_dialog(page, "aget_messages")
    form.get_by_role("button", name="Run").click()
    messages = form.get_by_test_id("message")
    expect(messages.first).to_have_attribute("data-role", "user")
    expect(messages.first).to_contain_text("weather in Paris?")
    expect(form.locator('[data-testid="message"][data-role="assistant"]').last).to_contain_text("Paris")
    shot(page, "messages-result")


# 5. The API docs work offline.


def test_the_api_docs_load_with_every_cdn_blocked(browser: Browser, server: str) -> None:
    """Regression: /docs loaded Swagger UI from a CDN, so it was blank offline; its CSP named the CDN."""
    context = browser.new_context(base_url=server, viewport={"width": 1280, "height": 900})
    outside: list[str] = []

    def only_this_server(route: Route) -> None:
        if route.request.url.startswith(server):
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    context.route("**/*", only_this_server)
    page = context.new_page()
    try:
        response = page.goto("/docs")
        assert response is not None
        assert response.ok
        policy = response.headers["content-security-policy"]
        assert "http" not in policy, policy  # no CDN, no other origin: 'self' and hashes only
        expect(page.locator(".swagger-ui .information-container")).to_contain_text("TFRobotServer")
        expect(page.locator(".opblock-summary-path").filter(has_text="/api/robots").first).to_be_visible()
        shot(page, "docs-offline")
        assert outside == [], outside
    finally:
        context.close()

"""The console defects a new user found (issue 15, part 3), each driven in Chromium against a real
`tfrobot serve`: list views with required parameters, row actions at laptop widths, labels and inputs,
feedback after changes and on errors, `/docs` offline, stored messages shown as messages."""

from __future__ import annotations

import json
import re
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


# 3. Labels and inputs.


def test_actions_and_fields_are_shown_by_their_titles(page: Page) -> None:
    """Regression: the nav, the heading, row buttons and the modal said `aupdate_doc`."""
    open_action(page, "memory", "aget_docs")
    expect(page.get_by_role("heading", name="Get docs")).to_be_visible()
    expect(page.get_by_role("navigation").locator('a[title="aget_docs"]')).to_contain_text("Get docs")
    settled(page)
    button = row(page, 2).locator('[data-action="aupdate_doc"]')
    expect(button).to_have_text("Update doc")
    button.click()
    form = action_dialog(page, "aupdate_doc")
    expect(form.locator(".mantine-Modal-title")).to_have_text(re.compile(r"^Update doc\s*aupdate_doc$"))
    expect(form.get_by_label("Doc Id")).to_be_visible()


def test_timestamps_show_as_dates(page: Page, conversation: str) -> None:
    """Regression: `createdTs` showed as 1796123953090."""
    page.goto("/#/r/demo/c/conversations/a/aget_conversations")
    created = page.locator("tr[data-row]", has_text=conversation).locator('td[data-col="createdTs"]')
    expect(created).to_have_text(re.compile(r"20\d\d"))
    expect(created).not_to_have_text(re.compile(r"^\d{10,}$"))


def test_known_choices_are_selects_and_config_forms_start_from_the_config(page: Page) -> None:
    """Regression: the provider was a free text box and a config form started empty."""
    open_action(page, "llm", "aset_llm", robot="demo")
    provider = page.get_by_role("combobox", name="Provider")
    expect(provider).to_have_value("scripted")  # the configuration in effect
    provider.click()
    expect(page.get_by_role("option", name="openai", exact=True)).to_be_visible()
    expect(page.get_by_role("option", name="anthropic", exact=True)).to_be_visible()
    page.keyboard.press("Escape")
    open_action(page, "prompt", "aset_template", robot="demo")
    expect(page.get_by_label("Template")).to_have_value("You are {{ robot }}. Answer {{ user }} in {{ language }}.")


def test_ingest_takes_a_file_and_names_are_one_line(page: Page) -> None:
    """Regression: ingest asked for pasted base64; IRIs and file names were multi-line boxes."""
    open_action(page, "memory", "aingest_file", robot="demo")
    expect(page.get_by_role("textbox", name="File Name")).to_have_js_property("tagName", "INPUT")
    page.get_by_role("textbox", name="File Name").fill("notes.txt")
    with page.expect_file_chooser() as chooser:
        page.locator('[data-field="content_base64"]').click()
    chooser.value.set_files(files=[{"name": "notes.txt", "mimeType": "text/plain", "buffer": b"hello offline console"}])
    expect(page.locator('[data-field="content_base64"][data-file-state="read"]')).to_have_count(1)  # bytes in the form
    with page.expect_request("**/actions/aingest_file") as sent:
        page.get_by_role("button", name="Run").click()
    # The file's bytes, as base64: what the server reads (in a worker process whose start, on a loaded
    # machine, can pass the ingest's 20 s bound, so the test checks what the console sent).
    assert json.loads(sent.value.post_data or "{}") == {
        "file_name": "notes.txt",
        "content_base64": "aGVsbG8gb2ZmbGluZSBjb25zb2xl",
    }
    open_action(page, "graph", "acreate_node")
    expect(page.get_by_role("textbox", name="Iri")).to_have_js_property("tagName", "INPUT")


def test_an_empty_value_is_an_empty_field_not_null(page: Page) -> None:
    """A node without properties opens its update form with an empty Properties field, not `null` (a guard:
    this one did not show `null` on main either; the form now maps every null to an empty field)."""
    open_action(page, "graph", "aget_graph")
    find = page.get_by_role("combobox", name="Find node")
    find.click()
    find.fill("TFRobot")
    page.get_by_role("option", name=re.compile("TFRobot")).click()
    page.get_by_test_id("graph-selection").locator('[data-action="aupdate_node"]').click()
    form = action_dialog(page, "aupdate_node")
    expect(form.get_by_label("Label")).to_have_value("TFRobot")
    expect(form.get_by_label("Properties")).to_have_value("")


# 4. Feedback after a change and on errors.


def test_a_change_says_so_in_a_toast(page: Page) -> None:
    open_action(page, "memory", "aget_docs")
    settled(page)
    row(page, 6).locator('[data-action="aupdate_doc"]').click()
    action_dialog(page, "aupdate_doc").get_by_role("button", name="Run").click()
    toast = page.get_by_test_id("toast")
    expect(toast).to_contain_text("Update doc")
    expect(toast).to_contain_text("Saved.")
    shot(page, "toast")


def test_no_answer_is_said_in_words(page: Page) -> None:
    """Regression: a request that got no answer showed the browser's "Failed to fetch"."""
    open_action(page, "memory", "aget_docs")
    settled(page)
    page.route("**/actions/aupdate_doc", lambda route: route.abort("connectionrefused"))
    row(page, 7).locator('[data-action="aupdate_doc"]').click()
    form = action_dialog(page, "aupdate_doc")
    form.get_by_role("button", name="Run").click()
    alert = form.get_by_role("alert")
    expect(alert).to_contain_text("No answer from")
    expect(alert).to_contain_text("tfrobot serve")
    expect(alert).not_to_contain_text("Failed to fetch")


def test_a_422_is_shown_once_on_its_field(page: Page) -> None:
    """Regression: beside the field's message an alert said "1 invalid parameter(s) …; see `errors`"."""
    open_action(page, "tasks", "aget_tasks")
    settled(page)
    row(page, 3).locator('[data-action="acomment_task"]').click()
    form = action_dialog(page, "acomment_task")
    form.get_by_label("Text").fill("ab")
    form.get_by_role("button", name="Run").click()
    expect(form.locator('[data-field="text"]').locator("xpath=../..")).to_contain_text("at least 3 characters")
    expect(form.get_by_text(re.compile("at least 3 characters"))).to_have_count(1)
    expect(form.get_by_text(re.compile(r"invalid parameter|see `errors`"))).to_have_count(0)

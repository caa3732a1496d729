"""The web console in Chromium against a real `tfrobot serve` (issue 7, section 4).

Each test drives the console the way a user does (clicks, typing, the keyboard) and checks both
what the page shows and what the console sent to the server.
"""

from __future__ import annotations

import json
import re
import time
import urllib.request

from playwright.sync_api import Browser, Locator, Page, expect

from tests.e2e.conftest import LOCAL_TOKEN, READ_TOKEN, Calls, record_perf, shot
from tests.e2e.robots import HOSTILE

LIMIT_ZH = "自动补全触发次数过多，已中止，请手动补全参数或检查依赖关系"
CYCLE_ZH = "自动补全存在循环依赖，已中止，请手动补全参数或检查依赖关系"


def open_action(page: Page, component: str, action: str, robot: str = "e2e") -> None:
    page.goto(f"/#/r/{robot}/c/{component}/a/{action}")
    expect(page.get_by_role("heading", name=action)).to_be_visible()


def row(page: Page, n: int) -> Locator:
    return page.locator(f'tr[data-row="{n}"]')


def cell(page: Page, n: int, column: str) -> Locator:
    return row(page, n).locator(f'td[data-col="{column}"]')


def settled(page: Page) -> None:
    """The rows are there and every row button has finished resolving its params."""
    expect(page.locator("tr[data-row] button[data-action]").first).to_be_visible()
    expect(page.locator("button[data-action][data-loading]")).to_have_count(0)


def dialog(page: Page, title: str) -> Locator:
    """The modal of the action named `title` (its heading is the action's title, its form carries the
    name), or the confirmation titled `title`."""
    if title.startswith("Confirm"):
        return page.get_by_role("dialog", name=title, exact=True)
    return page.get_by_role("dialog").filter(has=page.locator(f'[data-form="{title}"]'))


def test_paging_by_page_number(page: Page) -> None:
    open_action(page, "memory", "aget_docs")
    expect(cell(page, 1, "docId")).to_have_text("1")
    expect(page.get_by_test_id("data-table")).to_have_attribute("data-rows", "20")
    pager = page.locator(".mantine-Pagination-root")
    pager.get_by_role("button", name="2", exact=True).click()
    expect(cell(page, 1, "docId")).to_have_text("21")
    pager.get_by_role("button", name="3", exact=True).click()
    expect(cell(page, 1, "docId")).to_have_text("41")
    expect(page.get_by_test_id("data-table")).to_have_attribute("data-rows", "17")
    pager.get_by_label("previous page").click()
    expect(cell(page, 1, "docId")).to_have_text("21")
    shot(page, "table-paging")


def test_paging_by_cursor(page: Page, calls: Calls) -> None:
    open_action(page, "memory", "aget_docs_by_cursor")
    expect(cell(page, 1, "docId")).to_have_text("1")
    page.get_by_role("button", name="Next").click()
    expect(cell(page, 1, "docId")).to_have_text("21")
    page.get_by_role("button", name="Next").click()
    expect(cell(page, 1, "docId")).to_have_text("41")
    expect(page.get_by_role("button", name="Next")).to_be_disabled()
    page.get_by_role("button", name="Previous").click()
    expect(cell(page, 1, "docId")).to_have_text("21")
    cursors = [body.get("cursor") for body in calls.to("aget_docs_by_cursor")]
    assert cursors[:3] == [None, "20", "40"], cursors


def test_update_row_3_uses_its_own_doc(page: Page, calls: Calls) -> None:
    open_action(page, "memory", "aget_docs")
    expect(cell(page, 3, "docId")).to_have_text("3")
    settled(page)
    row(page, 3).locator('[data-action="aupdate_doc"]').click()
    form = dialog(page, "aupdate_doc")
    doc_id = form.get_by_label("Doc Id")
    expect(doc_id).to_have_value("3")
    expect(doc_id).to_have_attribute("readonly", "")
    expect(form.locator('[data-field="keywords"]').locator("..").get_by_text("topic-3")).to_be_visible()
    keywords = form.get_by_label("Keywords")
    keywords.click()
    keywords.fill("third-row")
    keywords.press("Enter")
    shot(page, "row-update-form")
    form.get_by_role("button", name="Run").click()
    expect(form).to_be_hidden()
    expect(cell(page, 3, "keywords")).to_have_text("topic-3, pdf, third-row")
    expect(cell(page, 1, "keywords")).to_have_text("topic-1, md")
    sent = calls.to("aupdate_doc")
    assert sent == [{"doc_id": 3, "doc_version": 1, "keywords": ["topic-3", "pdf", "third-row"],
                     "metadata": {"seeded": True, "n": 3}}]  # fmt: skip


def _update_behind_the_form(server: str, doc_id: int, keywords: list[str]) -> None:
    """Another client (a plain HTTP call, not the page) updates the document at its current version."""
    base = f"{server}/api/robots/e2e/components/memory/actions"
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {LOCAL_TOKEN}"}

    def post(action: str, body: dict[str, object]) -> dict[str, object]:
        request = urllib.request.Request(f"{base}/{action}", data=json.dumps(body).encode(), headers=headers)
        with urllib.request.urlopen(request, timeout=10) as response:
            answer: dict[str, object] = json.loads(response.read())
            return answer

    doc = post("aget_doc", {"doc_id": doc_id})
    post("aupdate_doc", {"doc_id": doc_id, "doc_version": doc["version"], "keywords": keywords, "metadata": {}})


def test_a_stale_update_shows_the_conflict_with_reload_and_overwrite(page: Page, calls: Calls, server: str) -> None:
    """Regression: a form opened before another client's update wrote over that update silently."""
    open_action(page, "memory", "aget_docs")
    settled(page)
    row(page, 4).locator('[data-action="aupdate_doc"]').click()
    form = dialog(page, "aupdate_doc")
    expect(form.get_by_label("Doc Version")).to_have_value("1")
    _update_behind_the_form(server, 4, ["theirs"])
    keywords = form.get_by_label("Keywords")
    keywords.click()
    keywords.fill("mine")
    keywords.press("Enter")
    form.get_by_role("button", name="Run").click()
    conflict = form.get_by_test_id("conflict")
    expect(conflict).to_contain_text("document 4 changed since you read it")
    expect(form.get_by_test_id("conflict-current")).to_contain_text('"theirs"')
    shot(page, "stale-update-409")
    form.get_by_role("button", name="Overwrite").click()
    expect(form).to_be_hidden()
    expect(cell(page, 4, "keywords")).to_have_text("topic-4, md, mine")
    assert [body["doc_version"] for body in calls.to("aupdate_doc")] == [1, 2]

    row(page, 5).locator('[data-action="aupdate_doc"]').click()
    form = dialog(page, "aupdate_doc")
    _update_behind_the_form(server, 5, ["theirs"])
    form.get_by_role("button", name="Run").click()
    expect(form.get_by_test_id("conflict")).to_be_visible()
    form.get_by_role("button", name="Reload").click()
    expect(form).to_be_hidden()
    expect(cell(page, 5, "keywords")).to_have_text("theirs")
    row(page, 5).locator('[data-action="aupdate_doc"]').click()
    expect(dialog(page, "aupdate_doc").get_by_label("Doc Version")).to_have_value("2")
    assert len(calls.to("aupdate_doc")) == 3


def test_delete_asks_confirmation_and_keeps_the_page(page: Page, calls: Calls) -> None:
    open_action(page, "memory", "aget_docs")
    page.locator(".mantine-Pagination-root").get_by_role("button", name="3", exact=True).click()
    expect(cell(page, 2, "docId")).to_have_text("42")
    settled(page)
    row(page, 2).locator('[data-action="adelete_doc"]').click()
    form = dialog(page, "adelete_doc")
    form.get_by_role("button", name="Delete").click()
    confirm = dialog(page, "Confirm: Delete doc")
    expect(confirm).to_contain_text("doc_id=42")
    shot(page, "delete-confirm")
    confirm.get_by_role("button", name="Cancel").click()
    assert calls.to("adelete_doc") == []
    form.get_by_role("button", name="Delete").click()
    dialog(page, "Confirm: Delete doc").get_by_role("button", name="Delete").click()
    expect(form).to_be_hidden()
    expect(cell(page, 2, "docId")).to_have_text("43")
    expect(cell(page, 1, "docId")).to_have_text("41")
    expect(page.locator(".mantine-Pagination-root [data-active]")).to_have_text("3")
    assert calls.to("adelete_doc") == [{"doc_id": 42}]


def test_graph_node_update(page: Page, calls: Calls) -> None:
    open_action(page, "graph", "aget_graph")
    expect(page.get_by_test_id("render-ms")).to_contain_text("4 nodes")
    find = page.get_by_role("combobox", name="Find node")
    find.click()
    find.fill("Alice")
    page.get_by_role("option", name=re.compile("Alice")).click()
    panel = page.get_by_test_id("graph-selection")
    expect(panel.get_by_role("heading")).to_have_text("Node Alice")
    panel.locator('[data-action="aupdate_node"]').click()
    form = dialog(page, "aupdate_node")
    expect(form.get_by_label("Iri")).to_have_value("ex:alice")
    expect(form.get_by_label("Iri")).to_have_attribute("readonly", "")
    label = form.get_by_label("Label")
    expect(label).to_have_value("Alice")
    label.fill("Alice Liddell")
    shot(page, "graph-node-update")
    form.get_by_role("button", name="Run").click()
    expect(form).to_be_hidden()
    expect(panel.get_by_role("heading")).to_have_text("Node Alice Liddell")
    assert calls.to("aupdate_node") == [
        {"iri": "ex:alice", "node_version": 1, "label": "Alice Liddell", "properties": {"age": 34}}
    ]


def test_options_select(page: Page, calls: Calls) -> None:
    open_action(page, "tasks", "aget_tasks")
    settled(page)
    row(page, 5).locator('[data-action="aassign_task"]').click()
    form = dialog(page, "aassign_task")
    assignee = form.get_by_label("Assignee")
    expect(assignee).to_have_value("Person 3")  # x-default: assigneeOptions.keys[0] of row 5
    assignee.click()
    expect(page.get_by_role("option")).to_have_count(3)
    page.get_by_role("option", name="Person 2").click()
    shot(page, "options-select")
    form.get_by_role("button", name="Run").click()
    expect(form).to_be_hidden()
    expect(cell(page, 5, "assignee")).to_have_text("u2")
    assert calls.to("aassign_task") == [{"task_id": 5, "assignee": "u2"}]


def test_unresolvable_xref_disables_until_resolvable(page: Page) -> None:
    open_action(page, "tasks", "aget_tasks")
    settled(page)
    unassign = row(page, 7).locator('[data-action="aunassign_task"]')
    expect(unassign).to_be_disabled()
    expect(unassign).to_have_attribute("data-blocked-reason", re.compile('variable "assigneeId" is not available'))
    row(page, 7).locator('[data-action="aassign_task"]').click()
    dialog(page, "aassign_task").get_by_role("button", name="Run").click()
    expect(cell(page, 7, "assignee")).to_have_text("u2")
    expect(unassign).to_be_enabled()


def test_xfetch_fills_a_missing_variable_with_one_request(page: Page, calls: Calls) -> None:
    open_action(page, "tasks", "aget_tasks")
    settled(page)
    # 20 rows x 2 buttons (acomment_task, aflag_task) need userId: one aget_current_user call.
    assert len(calls.to("aget_current_user")) == 1
    row(page, 1).locator('[data-action="acomment_task"]').click()
    form = dialog(page, "acomment_task")
    expect(form.get_by_label("Author")).to_have_value("e2e-user")
    expect(form.get_by_label("Author")).to_have_attribute("readonly", "")
    form.get_by_label("Text").fill("ab")
    form.get_by_role("button", name="Run").click()  # 422: min_length 3, shown on the field
    expect(form.locator('[data-field="text"]').locator("xpath=../..")).to_contain_text("at least 3 characters")
    shot(page, "field-422")
    form.get_by_label("Text").fill("looks good")
    form.get_by_role("button", name="Run").click()
    expect(form).to_be_hidden()
    expect(cell(page, 1, "comments")).to_have_text("e2e-user: looks good")
    row(page, 1).locator('[data-action="aflag_task"]').click()
    flag = dialog(page, "aflag_task")
    expect(flag.get_by_label("Reporter")).to_have_value("e2e-user")
    flag.get_by_role("button", name="Run").click()
    expect(cell(page, 1, "flaggedBy")).to_have_text("e2e-user")
    assert len(calls.to("aget_current_user")) == 1
    assert calls.to("aflag_task") == [{"task_id": 1, "reporter": "e2e-user"}]


def test_xfetch_chain_stops_at_ten_with_the_warning(page: Page, calls: Calls) -> None:
    open_action(page, "chain", "aexport")
    warning = page.get_by_role("alert").filter(has_text=LIMIT_ZH)
    expect(warning).to_contain_text("more than 10")
    hops = [name for name, _ in calls.posts if name.startswith("ahop")]
    assert hops == [f"ahop{i}" for i in range(11, 1, -1)], hops  # 10 calls; the 11th refused
    shot(page, "xfetch-limit")
    page.get_by_role("textbox", name="Token", exact=True).fill("by hand")
    page.get_by_role("button", name="Run").click()
    expect(page.get_by_test_id("result")).to_have_text("by hand")


def test_xfetch_cycle_aborts_before_any_call(page: Page, calls: Calls) -> None:
    open_action(page, "tasks", "acycle")
    warning = page.get_by_role("alert").filter(has_text=CYCLE_ZH)
    expect(warning).to_contain_text("acycle → aget_cycle_a → aget_cycle_b → aget_cycle_a")
    assert not [name for name, _ in calls.posts if name.startswith("aget_cycle")]


def test_server_data_is_shown_as_text(page: Page) -> None:
    open_action(page, "tasks", "aget_tasks")
    title = cell(page, 2, "title")
    expect(title).to_have_text(HOSTILE)
    assert title.locator("img").count() == 0
    assert page.evaluate("() => window.__xss") is None
    shot(page, "hostile-text")


def test_chat_is_hidden_when_the_server_has_no_chat(page: Page) -> None:
    page.goto("/#/r/e2e/chat")
    expect(page.get_by_text("memory", exact=True)).to_be_visible()
    expect(page.get_by_role("link", name="Chat")).to_have_count(0)
    expect(page.get_by_test_id("chat")).to_have_count(0)


def test_chat_turn_streams_and_shows_tools_console_and_image(page: Page) -> None:
    """A chat turn with the demo robot: streamed answer, then the trace in order — reasoning, the two
    parallel tool calls and their results, the TFL script with its console output and its image."""
    page.goto("/#/r/demo/chat")
    chat = page.get_by_test_id("chat")
    expect(chat).to_be_visible()
    page.get_by_label("Message").fill("weather in Paris and Tokyo, chart it")
    page.get_by_role("button", name="Send").click()
    reply = chat.get_by_test_id("reply").first
    expect(reply).to_contain_text("Paris is 18C and Tokyo 24C", timeout=15_000)
    # the trace is open: its steps appeared while the turn ran
    expect(chat.get_by_role("button", name=re.compile(r"Trace \(\d+ records\)"))).to_have_attribute(
        "aria-expanded", "true"
    )
    kinds = chat.locator("[data-trace-kind]")
    expect(kinds.first).to_be_visible()
    steps = [kinds.nth(i).get_attribute("data-trace-kind") for i in range(kinds.count())]
    assert steps[:1] == ["reasoning"]
    assert steps.count("tool call") == 2
    assert steps.count("tool result") == 2
    assert steps.index("tool call") < steps.index("tool result") < steps.index("TFL script") < steps.index("console")
    expect(chat.get_by_text("weather → Paris: 18C")).to_be_visible()
    expect(chat.get_by_text("chart ready for 2", exact=True)).to_be_visible()
    image = chat.get_by_test_id("trace-image").first
    expect(image).to_be_visible()
    assert (image.get_attribute("src") or "").startswith("data:image/png;base64,")
    shot(page, "chat-trace")


def _ms_since(t0: float) -> float:
    return (time.perf_counter() - t0) * 1000


def test_thousand_rows_stay_responsive(page: Page) -> None:
    open_action(page, "tasks", "aget_tasks")
    settled(page)
    t0 = time.perf_counter()
    page.get_by_role("combobox", name="Page size").click()
    page.get_by_role("option", name="1000", exact=True).click()
    expect(page.get_by_test_id("render-ms")).to_contain_text("1000 rows")
    first_render = _ms_since(t0)
    in_page = int(re.findall(r"1000 rows in (\d+) ms", page.get_by_test_id("render-ms").inner_text())[0])
    record_perf("table_1000_rows_in_page_ms", in_page)
    rendered_rows = page.locator("tbody tr[data-row]").count()
    assert rendered_rows < 100, f"{rendered_rows} rows in the DOM: the table is not virtualised"
    t1 = time.perf_counter()
    page.get_by_test_id("table-scroll").evaluate("el => { el.scrollTop = el.scrollHeight; }")
    expect(cell(page, 1000, "id")).to_have_text("1000")
    scroll = _ms_since(t1)
    settled(page)
    shot(page, "table-1000-rows")
    t2 = time.perf_counter()
    row(page, 1000).locator('[data-action="aassign_task"]').click()
    expect(dialog(page, "aassign_task").get_by_label("Task Id")).to_have_value("1000")
    open_form = _ms_since(t2)
    record_perf("table_1000_rows_first_render_ms", first_render)
    record_perf("table_1000_rows_scroll_to_end_ms", scroll)
    record_perf("table_1000_rows_open_row_form_ms", open_form)


def test_two_thousand_node_graph_stays_responsive(page: Page) -> None:
    open_action(page, "biggraph", "aget_graph")
    expect(page.get_by_test_id("render-ms")).to_contain_text("drawn in")
    limit = page.get_by_label("Limit")
    limit.fill("2000")
    t0 = time.perf_counter()
    page.get_by_role("button", name="Load").click()
    expect(page.get_by_test_id("render-ms")).to_contain_text(re.compile(r"2000 nodes · 4000 edges · drawn in \d+ ms"))
    first_render = _ms_since(t0)
    drawn = int(re.findall(r"drawn in (\d+) ms", page.get_by_test_id("render-ms").inner_text())[0])
    t1 = time.perf_counter()
    find = page.get_by_role("combobox", name="Find node")
    find.click()
    find.fill("N1999")
    page.get_by_role("option", name=re.compile(r"^N1999 ")).click()
    expect(page.get_by_test_id("graph-selection").get_by_role("heading")).to_have_text("Node N1999")
    select = _ms_since(t1)
    box = page.get_by_test_id("graph").bounding_box()
    assert box is not None
    t2 = time.perf_counter()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    for _ in range(5):
        page.mouse.wheel(0, 400)
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    zoom = _ms_since(t2)
    shot(page, "graph-2000-nodes")
    record_perf("graph_2000_nodes_first_render_ms", first_render)
    record_perf("graph_2000_nodes_layout_and_draw_ms", drawn)
    record_perf("graph_2000_nodes_find_and_select_ms", select)
    record_perf("graph_2000_nodes_zoom_5_steps_ms", zoom)


def test_one_off_form_and_result_view(page: Page, calls: Calls) -> None:
    open_action(page, "prompt", "arender", robot="demo")
    page.get_by_label("Variables").fill('{"robot": "R2", "user": "Ann", "language": "English"}')
    page.get_by_role("button", name="Run").click()
    result = page.get_by_test_id("result")
    expect(result).to_contain_text("text: You are R2. Answer Ann in English.")
    shot(page, "one-off-result")
    assert calls.to("arender") == [{"variables": {"robot": "R2", "user": "Ann", "language": "English"}}]
    page.get_by_label("Variables").fill("")
    page.get_by_role("button", name="Run").click()  # unset optional: omitted, not null; the defaults apply
    expect(result).to_contain_text("text: You are TFRobot demo. Answer the user in English.")
    assert calls.to("arender")[-1] == {}


def test_create_form_fills_its_select_and_owner_by_xfetch(page: Page, calls: Calls) -> None:
    open_action(page, "memory", "acreate_doc", robot="demo")
    file_type = page.get_by_role("combobox", name="File Type")
    expect(file_type).to_have_value("PDF document")
    expect(page.get_by_label("Owner Id")).to_have_value("local")
    file_type.click()
    page.get_by_role("option", name="Markdown").click()
    page.get_by_label("File Uri").fill("memory://demo/notes.md")
    page.get_by_role("button", name="Run").click()
    expect(page.get_by_test_id("result")).to_contain_text("fileType: md")
    assert len(calls.to("aget_doc_types")) == 1
    assert len(calls.to("aget_current_user")) == 1
    sent = calls.to("acreate_doc")
    assert sent == [{"file_uri": "memory://demo/notes.md", "file_type": "md", "owner_id": "local"}]


def test_bearer_tokens_401_then_403(browser: Browser, token_server: str, calls: Calls) -> None:
    context = browser.new_context(base_url=token_server, viewport={"width": 1400, "height": 900})
    page = context.new_page()
    page.on("request", calls.record)
    try:
        page.goto("/#/r/e2e/c/tasks/a/aget_tasks")
        expect(page.get_by_text("set an API token").first).to_be_visible()
        token = page.get_by_label("API token")
        token.fill(READ_TOKEN)
        token.blur()  # stored in localStorage; the page reloads with it
        expect(cell(page, 1, "id")).to_have_text("1")
        settled(page)
        row(page, 1).locator('[data-action="aassign_task"]').click()
        form = dialog(page, "aassign_task")
        form.get_by_role("button", name="Run").click()
        expect(form.get_by_role("alert")).to_contain_text("write")
        assert calls.to("aassign_task") == [{"task_id": 1, "assignee": "u2"}]
    finally:
        context.close()


def test_container_action_deletes_the_page_and_steps_back(page: Page, calls: Calls) -> None:
    open_action(page, "memory", "aget_docs", robot="demo")
    scope_line = page.get_by_test_id("container-scope")
    expect(scope_line).to_contain_text("allDocIds = [20]")  # the container's x-namespace, visible
    total = int(re.findall(r"total (\d+)", scope_line.inner_text())[0])
    last = -(-total // 20)
    page.locator(".mantine-Pagination-root").get_by_role("button", name=str(last), exact=True).click()
    on_last = total - 20 * (last - 1)
    expect(page.get_by_test_id("data-table")).to_have_attribute("data-rows", str(on_last))
    ids = [int(cell(page, n, "docId").inner_text()) for n in range(1, on_last + 1)]
    settled(page)
    page.locator('[data-action="adelete_docs"]').click()
    form = dialog(page, "adelete_docs")
    form.get_by_role("button", name="Delete").click()
    confirm = dialog(page, "Confirm: Delete docs")
    expect(confirm).to_contain_text(f"doc_ids={', '.join(map(str, ids))}")
    confirm.get_by_role("button", name="Delete").click()
    expect(form).to_be_hidden()
    expect(page.locator(".mantine-Pagination-root [data-active]")).to_have_text(str(last - 1))
    expect(page.get_by_test_id("data-table")).to_have_attribute("data-rows", "20")
    assert calls.to("adelete_docs") == [{"doc_ids": ids}]

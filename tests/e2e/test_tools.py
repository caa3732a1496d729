"""The console's tools view and chat confirmations, in Chromium, against a real `tfrobot serve` running the
shop robot (Python tools, the example MCP server over stdio and over HTTP), behind bearer tokens."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.drive.mcp.conftest import HttpServer
from tests.e2e.conftest import shot
from tests.tfrobotserver.robot.tools import shop
from tests.tfrobotserver.robot.tools.conftest import http_server
from tests.tfrobotserver.robot.tools.served import READ_TOKEN, WRITE_TOKEN, serve_shop

__all__ = ["http_server"]


@pytest.fixture(scope="module")
def shop_server(http_server: HttpServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serve_shop(tmp_path_factory.mktemp("shop-e2e"), http_server, tokens=True) as url:
        yield url


def page_with(browser: Browser, url: str, token: str) -> Page:
    context = browser.new_context(base_url=url, viewport={"width": 1400, "height": 900})
    context.add_init_script(f"localStorage.setItem('tfrobot.token', {token!r})")
    page = context.new_page()
    page.set_default_timeout(20_000)
    return page


def open_tool(page: Page, name: str) -> None:
    page.get_by_role("button", name=f"Open {name}").click()
    expect(page.locator(f"[data-tool-form='{name}']")).to_be_visible()


def test_tools_are_listed_and_called_from_their_schema(browser: Browser, shop_server: str) -> None:
    page = page_with(browser, shop_server, WRITE_TOKEN)
    page.goto("/#/r/shop/c/tools/a/aget_tools")
    table = page.get_by_test_id("tools-table")
    expect(table.locator("[data-tool='files_greet']")).to_contain_text("files")
    expect(table.locator("[data-tool='files_greet']")).to_contain_text("read-only")
    expect(table.locator("[data-tool='refund_order']")).to_contain_text("confirm")

    open_tool(page, "files_greet")
    page.locator("[data-field='name']").fill("Ann")
    page.get_by_test_id("call-tool").click()
    expect(page.get_by_test_id("tool-result")).to_contain_text("Hello, Ann!")
    shot(page, "tools-call")

    open_tool(page, "web_snapshot")
    page.get_by_test_id("call-tool").click()
    expect(page.get_by_test_id("tool-image")).to_be_visible()

    shop.REFUNDED.clear()
    open_tool(page, "refund_order")
    page.locator("[data-field='order_id']").fill("A-1")
    page.get_by_test_id("call-tool").click()
    page.get_by_role("button", name="Run").click()  # a confirm tool asks here too
    expect(page.get_by_test_id("tool-result")).to_contain_text("refunded A-1")
    page.context.close()


def test_a_read_token_calls_read_only_tools_only(browser: Browser, shop_server: str) -> None:
    page = page_with(browser, shop_server, READ_TOKEN)
    page.goto("/#/r/shop/c/tools/a/aget_tools")
    open_tool(page, "web_greet")
    page.locator("[data-field='name']").fill("Bo")
    page.get_by_test_id("call-tool").click()
    expect(page.get_by_test_id("tool-result")).to_contain_text("Hello, Bo!")
    open_tool(page, "lookup_order")
    page.locator("[data-field='order_id']").fill("A-1")
    page.get_by_test_id("call-tool").click()
    expect(page.get_by_role("alert")).to_contain_text("write")
    page.context.close()


def test_the_chat_asks_before_a_destructive_call(browser: Browser, shop_server: str) -> None:
    page = page_with(browser, shop_server, WRITE_TOKEN)
    page.goto("/#/r/shop/chat")
    page.get_by_label("Message").fill("refund please")
    page.get_by_role("button", name="Send").click()
    card = page.locator("[data-confirm]")
    expect(card).to_contain_text("Run the tool “refund_order”?")  # the card says what will run, and with what
    expect(card).to_contain_text('"order_id": "B-2"')
    # the turn waits for the answer: the step that asked is shown live, not only once the turn ends
    expect(page.locator("[data-trace-kind='tool call']")).to_contain_text("refund_order")
    shot(page, "chat-confirm")
    page.get_by_role("button", name="Approve").click()
    expect(page.get_by_test_id("reply")).to_have_text("Done: refunded B-2")
    expect(page.get_by_test_id("confirm-state")).to_have_text("approved")
    page.context.close()

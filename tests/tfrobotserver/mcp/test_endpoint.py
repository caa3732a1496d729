"""The MCP endpoint of a real `tfrobot serve`, driven by the official SDK's streamable HTTP client.

One server per module (PostgreSQL, a read and a write token). Every answer is compared with what
the HTTP API itself says for the same call: the MCP tools are the actions, not a second copy of them.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from mcp import types
from mcp.shared.exceptions import McpError
from pydantic import AnyUrl

from tests.reliability.servers import Server
from tfrobotserver.actions.alias import READ_OPS
from tfrobotserver.mcp import MCP_PATH, resource_uri
from tfrobotserver.mcp.resources import RESOURCE_NOT_FOUND

from .conftest import doc_configs, endpoint, http_session

pytestmark = pytest.mark.asyncio(loop_scope="module")
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
LIST_TOOLS = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}


async def _api(server: Server, token: str, component: str, action: str, params: Any) -> httpx.Response:
    url = f"http://127.0.0.1:{server.port}/api/robots/demo/components/{component}/actions/{action}"
    async with httpx.AsyncClient() as client:
        return await client.post(url, json=params, headers={"Authorization": f"Bearer {token}"})


async def _actions(server: Server) -> dict[str, bool]:
    """tool name → is a read action, from the HTTP API's own listing."""
    base = f"http://127.0.0.1:{server.port}/api/robots/demo"
    found: dict[str, bool] = {}
    async with httpx.AsyncClient(headers={"Authorization": f"Bearer {server.read}"}) as client:
        for component in (await client.get(f"{base}/components")).json():
            actions = (await client.get(f"{base}/components/{component['name']}/actions")).json()
            for a in actions:
                found[f"{component['name']}__{a['name']}"] = a["alias"]["resourceOpType"] in READ_OPS
    return found


def _body(result: types.CallToolResult) -> Any:
    assert result.isError
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return json.loads(block.text)


async def test_tools_list_shows_what_the_token_may_call(server: Server) -> None:
    actions = await _actions(server)
    async with http_session(server, server.read) as session:
        init_tools = {t.name for t in (await session.list_tools()).tools}
    async with http_session(server, server.write) as session:
        listed = (await session.list_tools()).tools
    assert init_tools == {name for name, read in actions.items() if read}
    assert {t.name for t in listed} == {*actions, "chat"}
    assert len(actions) - len(init_tools) >= 15  # the write actions a read token does not even see
    print(f"tools/list: read token {len(init_tools)} tools, write token {len(listed)} of {len(actions)} actions + chat")


async def test_a_read_action_answers_what_the_http_route_answers(server: Server) -> None:
    params = {"page": 2, "page_size": 5}
    async with http_session(server, server.read) as session:
        result = await session.call_tool("memory__aget_docs", params)
    http = await _api(server, server.read, "memory", "aget_docs", params)
    assert not result.isError
    assert result.structuredContent == http.json()
    assert [d["docId"] for d in http.json()["items"]] == [6, 7, 8, 9, 10]
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    assert json.loads(block.text) == http.json()


async def test_bad_arguments_get_the_http_apis_422_body(server: Server) -> None:
    params = {"page": 0, "page_size": 500, "colour": "red"}
    async with http_session(server, server.read) as session:
        result = await session.call_tool("memory__aget_docs", params)
        unknown = await session.call_tool("memory__aget_everything", {})
    http = await _api(server, server.read, "memory", "aget_docs", params)
    assert http.status_code == 422
    assert _body(unknown)["error"] == "not_found"
    assert "robot 'demo' has no tool 'memory__aget_everything'; it has ['chat', " in _body(unknown)["message"]
    assert _body(result) == http.json()
    assert {e["path"] for e in _body(result)["errors"]} == {"page", "page_size", "colour"}


async def test_a_write_action_needs_the_write_token(server: Server) -> None:
    create = {"file_uri": "mcp://notes.md", "file_type": "md", "text": "from an MCP client"}
    async with http_session(server, server.read) as session:
        refused = await session.call_tool("memory__acreate_doc", create)
        unlisted_delete = await session.call_tool("memory__adelete_doc", {"doc_id": 1})
    http = await _api(server, server.read, "memory", "acreate_doc", create)
    assert http.status_code == 403
    assert _body(refused) == http.json()
    assert _body(unlisted_delete)["error"] == "forbidden"
    async with http_session(server, server.write) as session:
        created = await session.call_tool("memory__acreate_doc", create)
        assert not created.isError
        assert created.structuredContent is not None
        doc_id = created.structuredContent["docId"]
        deleted = await session.call_tool("memory__adelete_doc", {"doc_id": doc_id})
    assert not deleted.isError
    assert deleted.structuredContent == {"result": None}  # a None return, wrapped: output schemas are objects
    gone = await _api(server, server.read, "memory", "aget_doc", {"doc_id": doc_id})
    assert gone.status_code == 422
    assert (await _api(server, server.read, "memory", "aget_doc", {"doc_id": 1})).status_code == 200


async def test_without_a_valid_token_nothing_is_read(server: Server) -> None:
    async with httpx.AsyncClient() as client:
        for headers in ({}, {"Authorization": "Bearer not-a-token-of-this-server"}, {"Authorization": "Basic eDp5"}):
            response = await client.post(endpoint(server), json=LIST_TOOLS, headers={**ACCEPT, **headers})
            assert response.status_code == 401, response.text
            assert response.headers["www-authenticate"] == "Bearer"
            assert response.json()["error"] == "unauthorized"
        unknown = await client.post(
            endpoint(server, "nobody"), json=LIST_TOOLS, headers={**ACCEPT, "Authorization": f"Bearer {server.read}"}
        )
        assert unknown.status_code == 404
        assert unknown.json()["message"] == "no robot 'nobody'; known robots: ['demo']"
        stream = await client.get(endpoint(server), headers={"Authorization": f"Bearer {server.read}"})
        assert stream.status_code == 405
    with pytest.raises(ExceptionGroup) as caught:  # the SDK's client surfaces the 401 as it is
        async with http_session(server, None):
            pass
    assert caught.value.subgroup(lambda e: isinstance(e, httpx.HTTPStatusError) and e.response.status_code == 401)


async def test_chat_a_turn_and_read_it_back_as_a_resource(server: Server) -> None:
    async with http_session(server, server.write) as session:
        first = await session.call_tool("chat", {"message": "weather in Paris and Tokyo?"})
        assert not first.isError, first.content
        answer = first.structuredContent
        assert answer is not None
        assert answer["answer"].startswith("Paris is 18C and Tokyo 24C")
        assert [r["role"] for r in answer["trace"]][:2] == ["assistant", "tool"]
        again = await session.call_tool("chat", {"message": "hello", "conversationId": answer["conversationId"]})
        assert again.structuredContent is not None
        assert again.structuredContent["conversationId"] == answer["conversationId"]
        refused = await session.call_tool("chat", {"message": ""})
        assert _body(refused)["errors"][0]["path"] == "message"
    uri = resource_uri("demo", "conversations", answer["conversationId"])
    async with http_session(server, server.read) as session:
        read = await session.read_resource(AnyUrl(uri))
        denied = await session.call_tool("chat", {"message": "hi"})
    assert _body(denied)["error"] == "forbidden"
    content = read.contents[0]
    assert isinstance(content, types.TextResourceContents)
    assert content.mimeType == "application/json"
    stored = json.loads(content.text)
    assert [m["role"] for m in stored["messages"]] == ["user", "assistant", "user", "assistant"]
    assert stored["messages"][0]["trace"] == answer["trace"]
    http = await _api(
        server, server.read, "conversations", "aget_messages", {"conversation_id": answer["conversationId"]}
    )
    assert stored["messages"] == http.json()["items"]


async def test_resources_list_pages_through_conversations_and_documents(server: Server) -> None:
    async with http_session(server, server.read) as session:
        templates = (await session.list_resource_templates()).resourceTemplates
        pages, cursor, uris = 0, None, []
        while True:
            page = await session.list_resources(params=types.PaginatedRequestParams(cursor=cursor))
            pages += 1
            uris += [str(r.uri) for r in page.resources]
            cursor = page.nextCursor
            if cursor is None:
                break
        doc = await session.read_resource(AnyUrl(resource_uri("demo", "memory", "3")))
        with pytest.raises(McpError) as missing:
            await session.read_resource(AnyUrl(resource_uri("demo", "memory", "999999")))
        with pytest.raises(McpError) as elsewhere:
            await session.read_resource(AnyUrl("tfrobot://other/memory/3"))
        with pytest.raises(McpError) as no_conversation:
            await session.read_resource(AnyUrl(resource_uri("demo", "conversations", "never-held")))
        with pytest.raises(McpError) as not_a_store:
            await session.read_resource(AnyUrl(resource_uri("demo", "graph", "ex:paris")))
        with pytest.raises(McpError) as bad_cursor:
            await session.list_resources(params=types.PaginatedRequestParams(cursor="7:"))
    assert [t.uriTemplate for t in templates] == [
        "tfrobot://demo/conversations/{conversationId}",
        "tfrobot://demo/memory/{docId}",
    ]
    docs = [u for u in uris if u.startswith("tfrobot://demo/memory/")]
    assert docs == [resource_uri("demo", "memory", str(n)) for n in range(1, 43)]
    assert len(uris) == len(set(uris))
    assert pages >= 2
    content = doc.contents[0]
    assert isinstance(content, types.TextResourceContents)
    http = await _api(server, server.read, "memory", "aget_doc", {"doc_id": 3})
    assert json.loads(content.text) == http.json()
    assert missing.value.error.code == RESOURCE_NOT_FOUND
    assert missing.value.error.data["error"] == "invalid_params"
    assert elsewhere.value.error.code == RESOURCE_NOT_FOUND
    assert no_conversation.value.error.code == RESOURCE_NOT_FOUND
    assert no_conversation.value.error.message.endswith("robot 'demo' has no conversation 'never-held'")
    assert not_a_store.value.error.code == RESOURCE_NOT_FOUND
    assert "keeps conversations or documents in ['conversations', 'memory']" in not_a_store.value.error.message
    assert bad_cursor.value.error.code == types.INVALID_PARAMS


async def test_the_documented_http_configuration_is_the_endpoint_with_a_bearer_token(server: Server) -> None:
    config = doc_configs()[1]
    assert config["url"] == "http://127.0.0.1:8000" + MCP_PATH.format(robot="demo")
    assert config["headers"] == {"Authorization": "Bearer ${env:TFROBOT_TOKEN}"}
    assert endpoint(server) == config["url"].replace(":8000", f":{server.port}")
    token = config["headers"]["Authorization"].replace("${env:TFROBOT_TOKEN}", server.read)
    async with httpx.AsyncClient() as client:
        answer = await client.post(endpoint(server), json=LIST_TOOLS, headers={**ACCEPT, "Authorization": token})
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "application/json"
    assert "memory__aget_docs" in {t["name"] for t in answer.json()["result"]["tools"]}

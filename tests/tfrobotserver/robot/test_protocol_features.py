"""Every protocol feature is used for real by the demo robot, as the console reads it over HTTP."""

from __future__ import annotations

from typing import Any

import httpx

from ..conftest import act


async def actions(api: httpx.AsyncClient, component: str) -> dict[str, Any]:
    listed = (await api.get(f"/api/robots/demo/components/{component}/actions")).json()
    return {a["name"]: a for a in listed}


async def test_options_xfetch_container_and_batch_variables(api: httpx.AsyncClient) -> None:
    memory = await actions(api, "memory")
    create = memory["acreate_doc"]["paramsSchema"]["properties"]
    # x-fetch: the owner defaults to the caller, fetched with a read action when no row provides it
    assert create["owner_id"]["x-fetch"] == "aget_current_user"
    assert memory["aget_current_user"]["alias"]["resourceOpType"] == "get"
    assert memory["aget_current_user"]["retSchema"]["x-namespace"] == {"userId": "userId", "userName": "displayName"}
    # an Options namespace feeds the file type select
    assert create["file_type"]["x-default"] == "fileTypeOptions.keys[0]"
    options = memory["aget_doc_types"]["retSchema"]["x-namespace"]["fileTypeOptions"]["Options"]
    assert options == {"labels": "values[*].label", "keys": "values[*].key", "values": "types"}
    types = await act(api, "memory", "aget_doc_types")
    assert [t["key"] for t in types["types"]] == ["pdf", "md", "txt"]
    # container-level variables (page, pageSize) and a batch variable (allDocIds → adelete_docs)
    page_schema = memory["aget_docs"]["retSchema"]
    assert page_schema["x-namespace"] == {"allDocIds": "items[*].docId", "page": "page", "pageSize": "pageSize"}
    assert page_schema["x-actions"] == ["adelete_docs"]
    assert memory["aget_docs"]["paramsSchema"]["properties"]["page_size"]["x-default"] == "pageSize"
    assert memory["adelete_docs"]["paramsSchema"]["properties"]["doc_ids"]["x-ref"] == "allDocIds"
    # row scopes: x-ref / x-default of the seed's Memory and graph examples
    update = memory["aupdate_doc"]["paramsSchema"]["properties"]
    assert (update["doc_id"]["x-ref"], update["keywords"]["x-default"], update["metadata"]["x-default"]) == (
        "docId", "keywords", "docMetadata",
    )  # fmt: skip
    graph = await actions(api, "graph")
    assert graph["aget_graph"]["alias"] == {"category": "graphical", "resource": "graph", "resourceOpType": "get_graph"}
    node_defs = graph["aget_graph"]["retSchema"]["$defs"]
    assert node_defs["Node"]["x-actions"] == ["aupdate_node", "adelete_node"]
    assert node_defs["Edge"]["x-namespace"]["edgeSource"] == "source"
    conversations = await actions(api, "conversations")
    item = conversations["aget_conversations"]["retSchema"]["$defs"]["ConversationItem"]
    assert item["x-actions"] == ["aget_messages", "adelete_conversation"]
    assert conversations["aget_messages"]["paramsSchema"]["properties"]["conversation_id"]["x-ref"] == "conversationId"

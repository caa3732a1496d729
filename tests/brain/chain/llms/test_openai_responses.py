"""OpenAIResponsesChat through the real `openai` SDK on recorded Responses API traffic (pydantic-ai's cassettes):
the tool loop with encrypted reasoning replayed, streams, images and files, refusals, errors, the payload."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import httpx2  # the HTTP client of the openai SDK
import pytest

from tests.brain.chain.llms.conftest import (
    TOOLS,
    Recorder,
    check_golden,
    conversation,
    current_turn,
    handler,
    recording,
    replay_llm,
    sse,
    x_keywords,
)
from tfrobot.brain.chain.llms import (
    InvalidRequestError,
    ModalityDegradedWarning,
    OpenAIChat,
    OpenAIResponsesChat,
    ProviderUnavailableError,
    ToolDefinition,
    create_llm,
)
from tfrobot.schema.message import (
    AssistantRefusalMessage,
    AssistantTextMessage,
    AttachmentMessage,
    BaseMessage,
    FileUserMsgPart,
    ImageUserMsgPart,
    MultiPartMessage,
    ReasoningBlock,
    TextMessage,
    TextUserMsgPart,
    ToolReturn,
)

PROVIDER = "openai-responses"


def _tool(name: str, properties: dict[str, Any], description: str = "") -> ToolDefinition:
    schema = {"type": "object", "properties": properties, "required": list(properties)}
    return ToolDefinition(name=name, description=description or name, parameters=schema)


def _results(call_id: str, name: str, result: str) -> BaseMessage:
    return BaseMessage(role="tool", tool_reses=[ToolReturn(call_id=call_id, name=name, result=result)])


def _llm(recorder: Recorder, respond: Any, **settings: Any) -> OpenAIResponsesChat:
    transport = httpx2.MockTransport(handler(recorder, respond, httpx2))
    return OpenAIResponsesChat(
        api_key="sk-test", max_retries=0, http_client=httpx2.Client(transport=transport), **settings
    )


def test_it_is_registered_under_its_name() -> None:
    assert type(create_llm(PROVIDER, model="gpt-5")) is OpenAIResponsesChat


# ------------------------------------------------------------------------------------------------ tool loops
def test_reasoning_items_go_back_byte_for_byte_with_their_encrypted_content_across_the_tool_loop() -> None:
    """The recorded gpt-5 loop: the second request must carry the first reply's reasoning item exactly as it
    came (id, every summary part, `encrypted_content`), then its call and the call's output, statelessly."""
    interactions = recording("openai-responses/reasoning_tool_loop")
    recorder = Recorder()
    chat = replay_llm(PROVIDER, recorder, interactions, model="gpt-5")
    first = interactions[0]["request"]
    question = TextMessage(content=first["input"][0]["content"])
    tools = [_tool("update_plan", {"plan": {"type": "string"}})]

    call = chat.generate(question, None, tools)
    assert call.finish_reason == "tool_calls"
    assert [b.data is not None for b in call.reasoning_blocks] == [True, False, False, False, False]
    results = _results(call.tool_calls[0].id, "update_plan", "plan updated")
    answer = chat.generate(question, None, tools, intermediate_msgs=[call, results])

    assert answer.content.startswith("Softly old fountains illumine alleys")
    assert answer.usage is not None
    assert answer.usage.cache_read_tokens == 2048
    sent, recorded = recorder.bodies[1], interactions[1]["request"]
    assert (sent["store"], sent["include"]) == (False, ["reasoning.encrypted_content"])
    assert sent["input"][1] == recorded["input"][1]  # the reasoning item, as OpenAI sent it
    recorded_call = {k: v for k, v in recorded["input"][2].items() if k != "id"}
    assert sent["input"][2] == recorded_call
    assert sent["input"][3] == recorded["input"][3]  # the function_call_output
    assert len(sent["input"]) == len(recorded["input"]) == 4


def test_a_commentary_message_goes_back_with_its_phase_before_the_call_it_announced() -> None:
    """gpt-5.5 narrates before a call (`phase: "commentary"` on the message, recorded): OpenAI asks callers who
    keep the conversation themselves to send `phase` back on assistant messages (dropping it degrades the
    model); the recorded second request did, the message item right after its reasoning item."""
    interactions = recording("openai-responses/phase")
    recorder = Recorder()
    chat = replay_llm(PROVIDER, recorder, interactions, model="gpt-5.5")
    question = TextMessage(content=interactions[0]["request"]["input"][0]["content"])
    tools = [_tool("get_capital", {"country": {"type": "string"}})]

    call = chat.generate(question, None, tools)
    assert call.finish_reason == "tool_calls"
    results = _results(call.tool_calls[0].id, "get_capital", "Potato City")
    chat.generate(question, None, tools, intermediate_msgs=[call, results])

    sent, recorded = recorder.bodies[1]["input"], interactions[1]["request"]["input"]
    assert [i.get("type", "message") for i in sent] == [i.get("type", "message") for i in recorded]
    assert sent[2].get("phase") == recorded[2]["phase"] == "commentary", sent[2]


def test_a_streamed_reasoning_item_goes_back_as_the_final_response_holds_it() -> None:
    interactions = recording("openai-responses/reasoning_tool_stream")
    chat = replay_llm(PROVIDER, Recorder(), interactions, model="gpt-5")
    question = TextMessage(content="Calculate 100 * 200 / 3")
    tools = [_tool("final_result", {"result": {"type": "integer"}})]
    reply = chat.generate_streamed(question, None, tools)
    events = [json.loads(line[6:]) for line in interactions[0]["sse"].splitlines() if line.startswith("data: ")]
    final = next(e["response"] for e in events if e["type"] == "response.completed")
    reasoning = final["output"][0]

    results = _results(reply.tool_calls[0].id, "final_result", "ok")
    sent = chat.construct_request_params(question, None, tools, intermediate_msgs=[reply, results])["input"]
    assert sent[1] == {key: reasoning[key] for key in ("type", "id", "summary", "encrypted_content")}
    assert sent[2] == {"type": "function_call", "call_id": "call_CWXgs68YprAjp6t0371hiPOI",
                       "name": "final_result", "arguments": '{"result":6666}'}  # fmt: skip


def test_a_recorded_two_request_stream_loop_sends_the_call_and_its_output_back() -> None:
    interactions = recording("openai-responses/tool_loop_stream")
    recorder = Recorder()
    chat = replay_llm(PROVIDER, recorder, interactions, model="gpt-4o")
    question = TextMessage(content="What is the capital of France?")
    tools = [_tool("get_capital", {"country": {"type": "string"}})]
    call = chat.generate_streamed(question, None, tools)
    results = _results(call.tool_calls[0].id, "get_capital", "Paris")
    answer = chat.generate_streamed(question, None, tools, intermediate_msgs=[call, results])
    assert answer.content == "The capital of France is Paris."
    assert (answer.finish_reason, answer.model) == ("stop", "openai-responses:gpt-4o-2024-08-06")
    assert "include" not in recorder.bodies[0]  # gpt-4o does not reason: OpenAI refuses the include for it
    assert [item.get("type", "message") for item in recorder.bodies[1]["input"]] == [
        "message", "function_call", "function_call_output"
    ]  # fmt: skip


def test_only_own_reasoning_with_its_encrypted_content_is_replayed() -> None:
    reply = AssistantTextMessage(
        content="Done.",
        reasoning_blocks=[
            ReasoningBlock(text="Claude's", signature="c2ln", provider="anthropic"),
            ReasoningBlock(text="no blob", provider=PROVIDER, id="rs_1"),
            ReasoningBlock(text="part 1", data="gAAA", provider=PROVIDER, id="rs_2"),
            ReasoningBlock(text="part 2", provider=PROVIDER, id="rs_2"),
        ],
        model="openai-responses:gpt-5",
    )
    sent = OpenAIResponsesChat().construct_request_params(
        TextMessage(content="next"), [TextMessage(content="q"), reply]
    )
    assert sent["input"][1:3] == [
        {"type": "reasoning", "id": "rs_2", "encrypted_content": "gAAA",
         "summary": [{"type": "summary_text", "text": "part 1"}, {"type": "summary_text", "text": "part 2"}]},
        {"role": "assistant", "content": "Done."},
    ]  # fmt: skip
    chat = OpenAIChat().construct_request_params(TextMessage(content="next"), [TextMessage(content="q"), reply])
    assert chat["messages"][1] == {"role": "assistant", "content": "Done."}  # Chat Completions gets none of it


# ------------------------------------------------------------------------------------------------ media
def test_an_image_by_url_is_sent_as_the_recorded_request_sent_it() -> None:
    interactions = recording("openai-responses/image_url")
    recorder = Recorder()
    chat = replay_llm(PROVIDER, recorder, interactions, model="gpt-4o")
    recorded = interactions[0]["request"]["input"][0]
    url = recorded["content"][1]["image_url"]
    message = MultiPartMessage(content=[TextUserMsgPart(text="hello"), ImageUserMsgPart(url=url, detail="a potato")])
    reply = chat.generate(message)
    assert recorder.bodies[0]["input"] == [recorded]
    assert reply.content.startswith("Hello! I see you've shared an image of a potato.")


def test_a_pdf_is_sent_as_the_recorded_request_sent_it() -> None:
    interactions = recording("openai-responses/document")
    recorder = Recorder()
    chat = replay_llm(PROVIDER, recorder, interactions, model="gpt-4o")
    recorded = interactions[0]["request"]["input"][0]
    pdf = base64.b64decode(recorded["content"][1]["file_data"].split(",", 1)[1])
    part = FileUserMsgPart(data=pdf, media_type="application/pdf", filename="filename.pdf", detail="a PDF")
    chat.generate(MultiPartMessage(content=[TextUserMsgPart(text="What is in the document?"), part]))
    assert recorder.bodies[0]["input"] == [recorded]


def test_a_file_by_url_is_an_input_file_with_its_url() -> None:
    part = FileUserMsgPart(url="https://example.com/report.pdf", media_type="application/pdf", detail="a report")
    sent = OpenAIResponsesChat().construct_request_params(AttachmentMessage(content=part))
    assert sent["input"][0]["content"] == [{"type": "input_file", "file_url": "https://example.com/report.pdf"}]


# ------------------------------------------------------------------------------------------------ refusals
REFUSAL = "I'm sorry, but I can't help with that."


def _refusal_response() -> dict[str, Any]:
    """A refused turn in the shape OpenAI documents (a `refusal` content part of the output message)."""
    return {
        "id": "resp_1", "object": "response", "created_at": 1_757_687_080, "status": "completed", "model": "gpt-5",
        "output": [{"id": "msg_1", "type": "message", "role": "assistant", "status": "completed",
                    "content": [{"type": "refusal", "refusal": REFUSAL}]}],
        "usage": {"input_tokens": 12, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 10,
                  "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 22},
        "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
    }  # fmt: skip


def _refusal_stream() -> str:
    response = _refusal_response()
    item = response["output"][0]
    added = {**item, "status": "in_progress", "content": []}
    events: list[tuple[str | None, dict[str, Any] | str]] = [
        ("response.created", {"type": "response.created", "sequence_number": 0,
                              "response": {**response, "status": "in_progress", "output": [], "usage": None}}),
        ("response.output_item.added", {"type": "response.output_item.added", "sequence_number": 1,
                                        "output_index": 0, "item": added}),
    ]  # fmt: skip
    for n, piece in enumerate((REFUSAL[:10], REFUSAL[10:])):
        events.append(("response.refusal.delta", {"type": "response.refusal.delta", "sequence_number": 2 + n,
                       "item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": piece}))  # fmt: skip
    events.append(("response.output_item.done", {"type": "response.output_item.done", "sequence_number": 4,
                   "output_index": 0, "item": item}))  # fmt: skip
    events.append(("response.completed", {"type": "response.completed", "sequence_number": 5, "response": response}))
    return sse(events)


def test_a_refusal_is_its_own_message_streamed_or_not_and_goes_back_as_text() -> None:
    plain = _llm(Recorder(), lambda _: (200, _refusal_response(), {})).generate(TextMessage(content="q"))
    streamed = _llm(Recorder(), lambda _: (200, _refusal_stream(), {})).generate_streamed(TextMessage(content="q"))
    assert type(plain) is AssistantRefusalMessage
    assert (plain.content, plain.refusal, plain.finish_reason) == ("", REFUSAL, "refusal")
    skip = {"msg_id", "create_ts"}
    assert streamed.model_dump(exclude=skip) == plain.model_dump(exclude=skip)
    sent = OpenAIResponsesChat().construct_request_params(
        TextMessage(content="Why?"), [TextMessage(content="q"), plain]
    )
    assert sent["input"][1] == {"role": "assistant", "content": REFUSAL}


# ------------------------------------------------------------------------------------------------ errors
def test_the_recorded_400_is_an_invalid_request_with_openais_message() -> None:
    interactions = recording("openai-responses/http_error") * 2
    chat = replay_llm(PROVIDER, Recorder(), interactions, model="gpt-4o", temperature=-1)
    for call in (chat.generate, chat.generate_streamed):
        with pytest.raises(InvalidRequestError) as caught:
            call(TextMessage(content="What is the capital of France?"))
        assert type(caught.value) is InvalidRequestError
        assert "Invalid 'temperature': decimal below minimum value" in str(caught.value)


def test_a_failed_response_and_a_cut_stream_are_unavailable_errors() -> None:
    failed = {**_refusal_response(), "status": "failed", "error": {"code": "server_error", "message": "boom"}}
    with pytest.raises(ProviderUnavailableError, match="boom"):
        _llm(Recorder(), lambda _: (200, failed, {})).generate(TextMessage(content="q"))
    cut = _refusal_stream().split("event: response.completed")[0]
    with pytest.raises(ProviderUnavailableError, match="stream ended"):
        _llm(Recorder(), lambda _: (200, cut, {})).generate_streamed(TextMessage(content="q"))


# ------------------------------------------------------------------------------------------------ payload
def _full_request(root: Path) -> dict[str, Any]:
    chat = OpenAIResponsesChat(media_roots=(root,))
    turn, chain = current_turn()
    with pytest.warns(ModalityDegradedWarning):
        return chat.construct_request_params(turn, conversation(root), TOOLS, intermediate_msgs=chain)


def test_golden_payload_every_message_kind(media_root: Path) -> None:
    check_golden(PROVIDER, _full_request(media_root))


def test_payload_validates_against_the_sdk_request_types(media_root: Path) -> None:
    from openai.types.responses import FunctionToolParam, ResponseInputItemParam
    from pydantic import TypeAdapter, ValidationError

    payload = _full_request(media_root)
    items = TypeAdapter(ResponseInputItemParam)
    for item in payload["input"]:
        items.validate_python(item, strict=True)
    for tool in payload["tools"]:
        TypeAdapter(FunctionToolParam).validate_python(tool, strict=True)
    with pytest.raises(ValidationError):  # the validator bites: a call needs its id
        items.validate_python({"type": "function_call", "name": "weather", "arguments": "{}"}, strict=True)
    assert x_keywords(payload["tools"][0]["parameters"]) == []
    assert payload["store"] is False


async def test_async_generate_and_stream_use_the_async_client() -> None:
    interactions = recording("openai-responses/tool_loop_stream")
    transport = httpx2.MockTransport(handler(Recorder(), lambda _: (200, interactions[1]["sse"], {}), httpx2))
    client = httpx2.AsyncClient(transport=transport)
    chat = OpenAIResponsesChat(api_key="sk-test", max_retries=0, async_http_client=client, model="gpt-4o")
    deltas = [delta async for delta in chat.astream(TextMessage(content="q"))]
    assert "".join(getattr(d, "text", "") for d in deltas) == "The capital of France is Paris."
    plain = recording("openai-responses/image_url")[0]["json"]
    chat = OpenAIResponsesChat(
        api_key="sk-test",
        max_retries=0,
        model="gpt-4o",
        async_http_client=httpx2.AsyncClient(
            transport=httpx2.MockTransport(handler(Recorder(), lambda _: (200, plain, {}), httpx2))
        ),
    )
    assert (await chat.agenerate(TextMessage(content="q"))).content.startswith("Hello!")


def test_a_stored_and_restored_reply_replays_the_same_reasoning_items() -> None:
    """The item ids ride on the blocks as extra fields: a store round trip must keep them, or the next request
    would lose its reasoning."""
    from pydantic import TypeAdapter

    from tfrobot.schema.message import Message

    interactions = recording("openai-responses/reasoning_tool_loop")
    chat = replay_llm(PROVIDER, Recorder(), interactions, model="gpt-5")
    question = TextMessage(content="Compose a poem.", msg_id="q")
    tools = [_tool("update_plan", {"plan": {"type": "string"}})]
    reply = chat.generate(question, None, tools)
    restored = TypeAdapter(Message).validate_json(reply.model_dump_json())
    assert type(restored) is AssistantTextMessage
    assert [type(b) for b in restored.reasoning_blocks] == [ReasoningBlock] * 5
    results = _results(reply.tool_calls[0].id, "update_plan", "ok")
    before = chat.construct_request_params(question, None, tools, intermediate_msgs=[reply, results])
    after = chat.construct_request_params(question, None, tools, intermediate_msgs=[restored, results])
    assert after == before
    assert after["input"][1]["id"] == interactions[0]["json"]["output"][0]["id"]


@pytest.mark.parametrize("name", ["openai-responses/web_search", "openai-responses/web_search_stream"])
def test_reasoning_items_go_back_between_the_server_side_items_where_they_came(name: str) -> None:
    """The recorded gpt-5 web searches answered [reasoning, web_search_call, reasoning, message]; each reasoning
    item must be followed by the item it led to, so the next request keeps that order (all items replayed)."""
    interactions = recording(name)
    chat = replay_llm(PROVIDER, Recorder(), interactions, model="gpt-5")
    first = TextMessage(content=interactions[0]["request"]["input"][0]["content"], msg_id="q1")
    reply = chat.generate_streamed(first) if "sse" in interactions[0] else chat.generate(first)
    recorded = interactions[1]["request"]["input"]
    follow_up = TextMessage(content=recorded[-1]["content"], msg_id="q2")
    sent = chat.construct_request_params(follow_up, [first, reply])["input"]
    assert [item.get("type", item.get("role")) for item in sent] == [
        "user", "reasoning", "web_search_call", "reasoning", "assistant", "user"
    ]  # fmt: skip
    assert [item["id"] for item in sent[1:4]] == [item["id"] for item in recorded[1:4]]
    if "sse" not in interactions[0]:  # (streamed, pydantic-ai sent the item events' encryption, and no `sources`)
        assert sent[1:4] == recorded[1:4]  # both reasoning items and the search, as OpenAI sent them


def test_the_url_citations_of_a_web_search_answer_are_kept_on_the_reply() -> None:
    """A web search answer cites its sources as `url_citation` annotations on the text (url, title, the span
    they support; recorded): the reply keeps them, as Anthropic's citations and Gemini's grounding are kept,
    so a console can show where the answer comes from."""
    interactions = recording("openai-responses/web_search_citations")
    reply = replay_llm(PROVIDER, Recorder(), interactions, model="gpt-5.2").generate(TextMessage(content="Q?"))
    [annotation] = interactions[0]["json"]["output"][1]["content"][0]["annotations"]
    kept = json.loads(reply.model_dump_json())
    assert annotation["title"] in json.dumps(kept), "the url_citation annotation is lost"


def test_a_compaction_item_goes_back_where_it_came_after_the_message_before_it() -> None:
    """gpt-4.1 compacted the context after its answer (output: the message, then a `compaction` item; recorded):
    the compaction stands for everything before it, and the recorded next request sent the items in the order
    they came, the message first. Replayed "as they came", they must keep that order."""
    interactions = recording("openai-responses/compaction_stream")
    recorder = Recorder()
    extra = {"context_management": interactions[0]["request"]["context_management"]}
    chat = replay_llm(PROVIDER, recorder, interactions, model="gpt-4.1", extra_params=extra)
    said = interactions[0]["request"]["input"]
    kind = {"user": TextMessage, "assistant": AssistantTextMessage}
    history: list[BaseMessage] = [kind[item["role"]](content=item["content"]) for item in said[:-1]]
    question = TextMessage(content=said[-1]["content"])
    reply = chat.generate_streamed(question, history)
    following = TextMessage(content=interactions[1]["request"]["input"][-1]["content"])
    chat.generate_streamed(following, [*history, question, reply])

    def kinds(items: list[dict[str, Any]]) -> list[str]:
        return [item.get("role") or item["type"] for item in items]

    assert kinds(recorder.bodies[1]["input"]) == kinds(interactions[1]["request"]["input"])


def test_a_cited_answer_goes_back_as_the_message_item_it_came_as() -> None:
    """The kept citations are not for display only: the next request sends the answer back as the `message`
    item OpenAI returned (its annotations, its id; without `logprobs`, output only), the text once."""
    interactions = recording("openai-responses/web_search_citations")
    chat = replay_llm(PROVIDER, Recorder(), interactions, model="gpt-5.2")
    question = TextMessage(content="Q?")
    reply = chat.generate(question)
    params = chat.construct_request_params(TextMessage(content="And the second?"), [question, reply])
    came = interactions[0]["json"]["output"][1]
    sent = [item for item in params["input"] if item.get("role") == "assistant"]
    assert sent == [{**came, "content": [{k: v for k, v in p.items() if k != "logprobs"} for p in came["content"]]}]


def test_raw_reasoning_goes_back_as_the_items_content_not_as_a_summary() -> None:
    """gpt-oss returns its raw reasoning (`reasoning_text` content, no summary): a reply that carries the item's
    encrypted content sends that text back where it came from, the item's `content`."""
    item = {
        "type": "reasoning",
        "id": "rs_1",
        "summary": [],
        "content": [{"type": "reasoning_text", "text": "2+2 is 4."}],
        "encrypted_content": "opaque",
    }
    body = {"id": "resp_1", "status": "completed", "model": "gpt-oss-120b", "output": [item], "usage": None}
    chat = replay_llm(PROVIDER, Recorder(), [{"status": 200, "json": body}], model="gpt-5")
    question = TextMessage(content="2+2?")
    reply = chat.generate(question)
    assert reply.reasoning_content == "2+2 is 4."
    params = chat.construct_request_params(TextMessage(content="And 3+3?"), [question, reply])
    assert params["input"][1] == item

"""Every recording of real traffic replays to the message the recording implies (issue #14).

Each recorded response goes through the provider's official SDK (a mock transport answers with it) and our
mapping; the table below says, read off the recording by hand, what the reply must hold. A recorded stream
must moreover give the message that its non-streamed equivalent gives: the SDK's own accumulator (or, for
Gemini, which has none, the chunks' parts joined) turns the same events into a response, which goes
through `parse_response`.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from typing import Any

import pytest
from pydantic import TypeAdapter

from tests.brain.chain.llms.conftest import Recorder, recording, recording_names, replay_llm
from tfrobot.brain.chain.llms.errors import InvalidRequestError, ProviderError, ProviderUnavailableError
from tfrobot.brain.chain.llms.wire import as_dict
from tfrobot.schema.message import (
    AssistantRefusalMessage,
    AssistantTextMessage,
    BaseMessage,
    Message,
    TextMessage,
    ToolCall,
    ToolReturn,
)


@dataclass(frozen=True)
class Implied:
    """What the first recorded reply implies for the message: its text's start, the finish reason, the tool
    calls for us to run (names), the server-side blocks kept for replay (types), how many native reasoning
    blocks, the start of the reasoning text, the refusal, the usage (input, output, cache read, cache
    write, reasoning) and how many text blocks carry citations (kept whole among the server-side blocks).
    `model` is the one the request names (a current one: the SDK warns about retired names, and the reply's
    mapping does not depend on it)."""

    model: str
    text: str
    finish: str
    usage: tuple[int, int, int, int, int]
    calls: tuple[str, ...] = ()
    server: tuple[str, ...] = ()
    blocks: int = 0
    reasoning: str | None = None
    refusal: str | None = None
    cited: int = 0


STU, WSR, WFR, BCR = (
    "server_tool_use",
    "web_search_tool_result",
    "web_fetch_tool_result",
    "bash_code_execution_tool_result",
)
TER = "text_editor_code_execution_tool_result"
CON = "container"  # (the reply's code-execution container, kept after its blocks for the next request)
CLAUDE_SAID_FOR_THE_ADVISOR = 'Task: answer "What\'s 2+2?"'

IMPLIED: dict[str, Implied] = {
    "anthropic/advisor": Implied(
        "claude-sonnet-5", CLAUDE_SAID_FOR_THE_ADVISOR, "stop", (2390, 121, 0, 0, 28),
        server=(STU, "advisor_tool_result"), blocks=1,
    ),
    "anthropic/advisor_stream": Implied(
        "claude-sonnet-5", 'The task asks "What\'s 2+2?"', "stop", (2411, 145, 0, 0, 47),
        server=(STU, "advisor_tool_result"), blocks=1,
    ),
    "anthropic/cache_usage": Implied("claude-sonnet-4-6", "# What is Python?", "stop", (1114, 406, 1111, 0, 0)),
    "anthropic/code_execution": Implied(
        "claude-sonnet-4-6", "The result of **3 × 12,390 = 37,170**.", "stop", (4692, 106, 0, 0, 0),
        server=(STU, BCR, CON), blocks=1,
    ),
    "anthropic/code_execution_stream": Implied(
        "claude-sonnet-4-6", "I'll calculate that expression for you right away!", "stop", (4714, 304, 0, 0, 0),
        server=(STU, BCR, CON), blocks=1,
    ),
    "anthropic/compaction": Implied(  # usage: the compaction iteration and the message's, summed
        "claude-sonnet-4-6", "Hello!", "stop", (100 + 55096 + 229, 131 + 5, 0, 55096, 0), server=("compaction",),
    ),
    "anthropic/compaction_stream": Implied(
        "claude-sonnet-4-6", "Hello! 👋", "stop", (100 + 55096 + 181, 83 + 8, 55096, 0, 0), server=("compaction",),
    ),
    "anthropic/container_reuse": Implied(
        "claude-sonnet-4-5", "3 * 12390 = **37,170**", "stop", (4612, 80, 0, 0, 0), server=(STU, BCR, CON)
    ),
    "anthropic/fallback_stream": Implied(
        "claude-opus-4-7", "Hello there!", "stop", (25, 8, 0, 0, 0), server=("fallback",)
    ),
    "anthropic/mcp": Implied(
        "claude-sonnet-4-0", "**Pydantic AI** is a Python agent framework", "stop", (2674, 373, 0, 0, 0),
        server=("mcp_tool_use", "mcp_tool_result"), blocks=1,
    ),
    "anthropic/mcp_stream": Implied(
        "claude-sonnet-4-0", "**Pydantic-AI** is a framework for building", "stop", (3042, 354, 0, 0, 0),
        server=("mcp_tool_use", "mcp_tool_result"), blocks=1,
    ),
    "anthropic/refusal_stream": Implied(
        "claude-opus-4-7", "", "refusal", (20, 0, 0, 0, 0), refusal="This request was refused due to policy."
    ),
    "anthropic/structured_output": Implied("claude-sonnet-4-5", '{"amount":12.34}', "stop", (222, 10, 0, 0, 0)),
    "anthropic/text_editor_code_execution": Implied(
        "claude-sonnet-4-6", "Sure! I'll do both steps simultaneously", "stop", (10490, 469, 0, 0, 0),
        server=(STU, STU, TER, TER, STU, TER, STU, TER, CON),
    ),
    "anthropic/text_editor_code_execution_stream": Implied(
        "claude-sonnet-4-6", "Sure! I'll do both steps simultaneously", "stop", (7621, 384, 0, 0, 0),
        server=(STU, STU, TER, TER, STU, TER, CON),
    ),
    "anthropic/thinking_usage": Implied("claude-opus-5", "2 + 2 = 4", "stop", (13, 44, 0, 0, 33), blocks=1),
    "anthropic/tool_use": Implied(
        "claude-sonnet-4-0", "I'll help you find the largest city", "tool_calls", (398, 155, 0, 0, 0),
        calls=("get_user_country",), blocks=1,
    ),
    "anthropic/tool_use_stream": Implied(
        "claude-sonnet-4-0", "I'll check the current weather in Paris for you.", "tool_calls", (377, 65, 0, 0, 0),
        calls=("get_weather",),
    ),
    "anthropic/web_fetch": Implied(
        "claude-sonnet-4-0", "Pydantic AI is a Python agent framework designed", "stop", (7262, 171, 0, 0, 0),
        server=(STU, WFR), blocks=1,
    ),
    "anthropic/web_fetch_stream": Implied(
        "claude-sonnet-4-0", "Pydantic AI is a Python agent framework designed", "stop", (7244, 153, 0, 0, 0),
        server=(STU, WFR), blocks=1,
    ),
    "anthropic/web_search": Implied(
        "claude-sonnet-4-0", "Based on the search results, here's the weather", "stop", (8984, 520, 0, 0, 0),
        server=(STU, WSR), blocks=1, cited=9,
    ),
    "anthropic/web_search_stream": Implied(
        "claude-sonnet-4-0", "Based on the search results, I can see", "stop", (22397, 637, 0, 0, 0),
        server=(STU, WSR, STU, WSR), blocks=1, cited=5,
    ),
    "deepseek/tool_loop": Implied(
        "deepseek-reasoner", "Let me load the dice rolling capability!", "tool_calls", (563, 116, 512, 0, 60),
        calls=("load_capability",), reasoning="The user wants to play a dice game.",
    ),
    "doubao/vision_usage": Implied("doubao-1-5-vision-pro-32k-250115", "I'm Doubao", "stop", (13, 64, 0, 0, 0)),
    "gemini/blocked_prompt": Implied(
        "gemini-2.5-flash", "", "refusal", (0, 0, 0, 0, 0),
        refusal="Gemini blocked the prompt (MODEL_ARMOR): The prompt violated Prompt Injection and Jailbreak filters.",
    ),
    "gemini/blocked_response": Implied(
        "gemini-2.5-flash", "", "content_filter", (19, 6 + 27, 0, 0, 27),
        refusal="Gemini stopped the reply (MODEL_ARMOR).",  # (the SDK reads `finishMessage` on Vertex AI only)
    ),
    "gemini/code_execution": Implied(
        "gemini-2.5-flash", "I apologize for the error in the previous response.", "stop", (13 + 289, 194, 0, 0, 0),
        server=("executable_code", "code_execution_result") * 3,
    ),
    "gemini/web_search": Implied(
        "gemini-2.5-pro", "## Weather in San Francisco is Mild and Partly Cloudy", "stop",
        (17 + 119, 201 + 213, 0, 0, 213), server=("grounding_metadata",),
    ),
    "gemini/web_search_stream": Implied(
        "gemini-2.5-pro", "### Weather in San Francisco is Mild and Partly Cloudy Today", "stop",
        (17 + 102, 241 + 412, 0, 0, 412), server=("grounding_metadata",),
    ),
    "gemini/foreign_tool_calls": Implied(
        "gemini-3-pro-preview", "", "tool_calls", (107, 23 + 123, 0, 0, 123), calls=("final_result",), blocks=1
    ),
    "gemini/safety_stop": Implied(
        "gemini-2.5-flash", "", "content_filter", (14, 0, 0, 0, 0),
        refusal="Gemini stopped the reply (SAFETY): blocked as HARM_CATEGORY_HATE_SPEECH.",
    ),
    "gemini/cached_usage": Implied(
        "gemini-2.5-flash", "This video demonstrates", "stop", (17713, 68 + 821, 17379, 0, 821),
    ),
    "gemini/structured_output": Implied("gemini-2.0-flash", '{\n  "city": "Mexico City"', "stop", (8, 20, 0, 0, 0)),
    "gemini/structured_output_described": Implied(
        "gemini-2.5-flash", '{"name": "api-config", "metadata": {"author": "Alice"', "stop", (23, 183, 0, 0, 158)
    ),
    "gemini/thought_signature": Implied(
        "gemini-2.5-pro", "", "tool_calls", (49, 12 + 136, 0, 0, 136), calls=("get_user_country",), blocks=1,
    ),
    "gemini/thought_signature_stream": Implied(
        "gemini-3-pro-preview", "", "tool_calls", (29, 10 + 202, 0, 0, 202), calls=("get_country",), blocks=1,
    ),
    "openai/empty_call_id": Implied(
        "gemini-2.5-pro-preview-05-06", "", "tool_calls", (35, 12, 0, 0, 0), calls=("get_current_time",)
    ),
    "openai/reasoning_field": Implied(
        "gpt-oss:20b", "", "tool_calls", (206, 194, 0, 0, 0), calls=("final_result",),
        reasoning="The conversation: user asked",
    ),
    "openai/reasoning_field_stream": Implied(
        "anthropic/claude-sonnet-4.5", "2 + 2 = 4", "stop", (43, 36, 0, 0, 13),
        reasoning="This is a simple arithmetic question. 2+2 equals 4.",
    ),
    "openai/reasoning_usage": Implied("o3-mini", "Hello there!", "stop", (7, 87, 0, 0, 64)),
    "openai/refusal": Implied(
        "gpt-4o-2024-08-06", "", "refusal", (79, 12, 0, 0, 0),
        refusal="I'm very sorry, but I can't assist with that.",
    ),
    "openai/refusal_stream": Implied(
        "gpt-4o-2024-08-06", "", "refusal", (79, 11, 0, 0, 0), refusal="I'm sorry, I can't assist with that request."
    ),
    "zhipu/preserved_thinking": Implied(
        "glm-4.7", "17 * 19 is 323.", "stop", (17, 172, 0, 0, 49), reasoning="\nThe user is asking for the product"
    ),
    "openai/prompt_cache": Implied("gpt-5.6-sol", "OK", "stop", (4020, 4, 0, 4012, 0)),
    "openai/structured_output": Implied("gpt-4o", "", "tool_calls", (71, 12, 0, 0, 0), calls=("get_user_country",)),
    "openai-responses/document": Implied(
        "gpt-4o", 'The document contains the text "Dummy PDF file."', "stop", (51, 11, 0, 0, 0)
    ),
    "openai-responses/image_url": Implied(
        "gpt-4o", "Hello! I see you've shared an image of a potato.", "stop", (663, 20, 0, 0, 0)
    ),
    "openai-responses/native_output": Implied(
        "gpt-4o", "", "tool_calls", (66, 12, 0, 0, 0), calls=("get_user_country",),
    ),
    "openai-responses/compaction_stream": Implied(
        "gpt-4.1", "Deep in the cool hush of a mountain cave", "stop", (872, 1254, 0, 0, 0), server=("compaction",),
    ),
    "openai-responses/mcp_list_tools_stream": Implied(
        "gpt-4.1", "Here are the available tools from each connected MCP server:", "stop", (1199, 103, 0, 0, 0),
        server=("mcp_list_tools",) * 3,
    ),
    "openai-responses/reasoning_text_stream": Implied(  # (OpenRouter's Responses endpoint: raw reasoning text)
        "openai/gpt-oss-20b", "4", "stop", (78, 37, 0, 0, 22), blocks=1, reasoning='The user asks: "What is 2+2?"',
    ),
    "openai-responses/phase": Implied(
        "gpt-5.5", 'I\'ll check the capital lookup tool for "PotatoLand."', "tool_calls", (63, 72, 0, 0, 29),
        calls=("get_capital",), blocks=1,
    ),
    "openai-responses/prompt_cache": Implied("gpt-5.6-sol", "OK", "stop", (4020, 5, 0, 4012, 0)),
    "openai-responses/reasoning_summary_stream": Implied(
        "o3-mini", "I'm not a road safety professional", "stop", (13, 1680, 0, 0, 1408), blocks=4,
        reasoning="**Providing street crossing instructions**",
    ),
    "openai-responses/reasoning_tool_loop": Implied(
        "gpt-5", "", "tool_calls", (124, 1926, 0, 0, 1792), calls=("update_plan",), blocks=5,
        reasoning="**Creating a structured poem**",
    ),
    "openai-responses/reasoning_tool_stream": Implied(
        "gpt-5", "", "tool_calls", (53, 469, 0, 0, 448), calls=("final_result",), blocks=1,
    ),
    "openai-responses/web_search_citations": Implied(
        "gpt-5.2", "The tallest mountain in Alberta is **Mount Columbia**", "stop", (8530, 98, 0, 0, 49),
        server=("web_search_call",),
    ),
    "openai-responses/web_search": Implied(
        "gpt-5", "Today (Tuesday, September 16, 2025) in San Francisco", "stop", (9299, 577, 8448, 0, 512),
        server=("web_search_call",), blocks=2,
    ),
    "openai-responses/web_search_stream": Implied(
        "gpt-5", "San Francisco weather today (Tuesday, September 16, 2025)", "stop", (9463, 582, 8320, 0, 512),
        server=("web_search_call",), blocks=2,
    ),
    "openai-responses/tool_loop": Implied("gpt-4o", "", "tool_calls", (40, 18, 0, 0, 0), calls=("get_capital",)),
    "openai-responses/tool_loop_stream": Implied(
        "gpt-4o", "", "tool_calls", (255, 16, 0, 0, 0), calls=("get_capital",),
    ),
    "zhipu/thinking": Implied(
        "glm-4.7", "2 + 2 is 4.", "stop", (13, 247, 0, 0, 237), reasoning="\n1.  **Identify the user's question:**"
    ),
    "zhipu/thinking_stream": Implied("glm-4.7", "4", "stop", (13, 564, 0, 0, 561), reasoning="\n"),
}  # fmt: skip


FAILS: dict[str, tuple[str, type[ProviderError], str]] = {
    "anthropic/error_stream": ("claude-sonnet-4-0", ProviderUnavailableError, "Overloaded"),
    "openai/error_stream": ("openai/gpt-oss-120b", InvalidRequestError, "Tool call validation failed: tool"),
}
"""Recordings of a stream that fails after it began (an error event after the 200): the model the request
names, the typed error the failure must be, and the start of the provider's message it keeps."""


def test_the_table_covers_every_recording() -> None:
    assert sorted([*IMPLIED, *FAILS]) == recording_names()


@pytest.mark.parametrize("name", sorted(FAILS))
def test_an_error_event_in_a_recorded_stream_is_the_typed_provider_error(name: str) -> None:
    model, error, message = FAILS[name]
    provider = name.split("/", 1)[0]
    chat = replay_llm(provider, Recorder(), recording(name), model=model)
    with pytest.raises(error) as raised:
        chat.generate_streamed(TextMessage(content="What did the recording ask?"))
    assert type(raised.value) is error
    assert raised.value.provider == provider
    assert raised.value.provider_message.startswith(message), raised.value.provider_message


def _reply(name: str) -> AssistantTextMessage:
    provider = name.split("/", 1)[0]
    interactions = recording(name)
    chat = replay_llm(provider, Recorder(), interactions, model=IMPLIED[name].model)
    question = TextMessage(content="What did the recording ask?")
    if "sse" in interactions[0]:
        return chat.generate_streamed(question)  # type: ignore[no-any-return]
    return chat.generate(question)  # type: ignore[no-any-return]


@pytest.mark.parametrize("name", sorted(IMPLIED))
def test_a_recorded_reply_gives_the_message_the_recording_implies(name: str) -> None:
    implied = IMPLIED[name]
    reply = _reply(name)
    assert reply.content.startswith(implied.text), reply.content[:80]
    assert bool(reply.content) == bool(implied.text)
    assert reply.finish_reason == implied.finish
    assert tuple(c.name for c in reply.tool_calls or ()) == implied.calls
    assert all(c.id for c in reply.tool_calls or ()), "every call for us to run has an id"
    assert tuple(b.type for b in reply.server_tool_blocks if b.type != "text") == implied.server
    cited = [b for b in reply.server_tool_blocks if b.type == "text"]
    assert len(cited) == implied.cited
    assert all(b.block["citations"] and reply.content.startswith(str(b.block["text"]), b.text_offset) for b in cited)
    assert all(b.provider == name.split("/", 1)[0] for b in [*reply.server_tool_blocks, *reply.reasoning_blocks])
    assert len(reply.reasoning_blocks) == implied.blocks
    if implied.reasoning is not None:
        assert (reply.reasoning_content or "").startswith(implied.reasoning)
    assert getattr(reply, "refusal", None) == implied.refusal
    assert (type(reply) is AssistantRefusalMessage) == (implied.refusal is not None)
    usage = reply.usage
    assert usage is not None
    got = (usage.input_tokens, usage.output_tokens, usage.cache_read_tokens, usage.cache_write_tokens)
    assert (*got, usage.reasoning_tokens) == implied.usage
    assert type(TypeAdapter(Message).validate_json(reply.model_dump_json())) is type(reply)  # stored as itself


def test_a_recorded_call_without_an_id_gets_a_stable_one() -> None:
    """Gemini's OpenAI-compatible endpoint sends `"id": ""`: the call gets an id derived from the response's,
    the same on every read of that reply (its result must name it, and Gemini itself ignores it)."""
    ids = {_reply("openai/empty_call_id").tool_calls[0].id for _ in range(2)}  # type: ignore[index]
    assert ids == {"call_3SE-aKjdCcCEz7IPxpqjCA_0"}


@pytest.mark.parametrize("name", ["gemini/blocked_prompt", "gemini/blocked_response", "gemini/safety_stop"])
def test_a_recorded_gemini_block_streamed_as_one_chunk_gives_the_same_refusal(name: str) -> None:
    """Gemini streams chunks of the same shape as its plain response: the recorded block as a one-chunk stream
    must give the message the plain response gives (a blocked prompt has no finish reason to end a stream)."""
    interaction = recording(name)[0]
    streamed_body = [{**interaction, "sse": f"data: {json.dumps(interaction['json'])}\n\n"}]
    question = TextMessage(content="What did the recording ask?")
    streamed = replay_llm("gemini", Recorder(), streamed_body, model="gemini-2.5-flash").generate_streamed(question)
    plain = replay_llm("gemini", Recorder(), [interaction], model="gemini-2.5-flash").generate(question)
    assert type(streamed) is AssistantRefusalMessage
    skip = {"msg_id", "create_ts"}
    assert streamed.model_dump(exclude=skip) == plain.model_dump(exclude=skip)


def test_recorded_citations_go_back_on_their_text_blocks() -> None:
    """Anthropic's web search answers in text blocks that cite the results: the next request sends the assistant
    turn back block for block as it came, citations (and their `encrypted_index`) on their text."""
    reply = _reply("anthropic/web_search")
    chat = replay_llm("anthropic", Recorder(), [], model="claude-sonnet-4-0")
    params = chat.construct_request_params(TextMessage(content="And tomorrow?"), [TextMessage(content="Q?"), reply])
    came = [
        {k: v for k, v in b.items() if v is not None} for b in recording("anthropic/web_search")[0]["json"]["content"]
    ]
    assert params["messages"][1]["content"] == came


GEMINI_DUMMY_SIGNATURES = (b"skip_thought_signature_validator", b"context_engineering_is_the_way_to_go")
"""The thought signatures Google documents for function calls Gemini did not write (ai.google.dev/gemini-api/
docs/thought-signatures, FAQ; Vertex AI documents the first)."""


def test_another_providers_tool_call_goes_to_gemini_3_with_a_documented_dummy_signature() -> None:
    """Gemini 3 refuses (400) a function call in the history without a thought signature: OpenAI's call, replayed
    as pydantic-ai's recording did (and Gemini accepted), carries a dummy one; calls with their own keep it."""
    came = recording("gemini/foreign_tool_calls")[0]
    call_id = "call_1w9YRdMtRTRucwZShoZYlLJp"
    call = AssistantTextMessage(
        tool_calls=[ToolCall(id=call_id, name="get_country", arguments="{}")], model="openai:gpt-5"
    )
    result = BaseMessage(role="tool", tool_reses=[ToolReturn(call_id=call_id, name="get_country", result="Mexico")])
    recorder = Recorder()
    chat = replay_llm("gemini", recorder, [came], model="gemini-3-pro-preview")
    chat.generate(TextMessage(content="What is the capital of the country?"), intermediate_msgs=[call, result])
    sent, accepted = recorder.bodies[0]["contents"][1]["parts"][0], came["request"]["contents"][1]["parts"][0]
    assert base64.b64decode(accepted["thoughtSignature"]) in GEMINI_DUMMY_SIGNATURES
    assert base64.b64decode(sent.pop("thoughtSignature")) in GEMINI_DUMMY_SIGNATURES
    assert sent == {k: v for k, v in accepted.items() if k != "thoughtSignature"}


def test_glm_preserved_thinking_sends_the_reasoning_of_earlier_turns_back() -> None:
    """GLM's preserved thinking (`thinking.clear_thinking: false`, GLM-4.7+) keeps the reasoning of earlier turns
    in context when the request sends it back unchanged: the second recorded request did, after a turn without
    any tool call (which the `tool_loop` replay of GLM's profile would have dropped)."""
    came = recording("zhipu/preserved_thinking")
    recorder = Recorder()
    thinking = {"type": "enabled", "clear_thinking": False}
    chat = replay_llm("zhipu", recorder, came, model="glm-4.7", extra_params={"thinking": thinking})
    first = TextMessage(content="What is 17 * 19? Think it through.")
    reply = chat.generate(first)
    chat.generate(TextMessage(content="Now multiply that result by 2."), [first, reply])
    assert recorder.bodies[1]["messages"] == came[1]["request"]["messages"]


def test_the_code_execution_container_goes_back_while_it_lives() -> None:
    """Anthropic's code execution runs in a container (`container: {id, expires_at}` on the reply); the next
    request names it (`container`), as the recorded second request did, so the files and state of the first turn
    are still there; an expired one is not sent (the API would refuse it)."""
    came = recording("anthropic/container_reuse")
    recorder = Recorder()
    chat = replay_llm("anthropic", recorder, came, model="claude-sonnet-4-5")
    first = TextMessage(content="How much is 3 * 12390?")
    reply = chat.generate(first)
    kept = reply.server_tool_blocks[-1]
    assert kept.type == "container"
    assert kept.block["id"] == came[0]["json"]["container"]["id"]
    live = reply.model_copy(deep=True)
    live.server_tool_blocks[-1].block["expires_at"] = "2999-01-01T00:00:00Z"
    chat.generate(TextMessage(content="Now multiply it by 2."), [first, live])
    assert recorder.bodies[1]["container"] == came[1]["request"]["container"]
    assert all(b["type"] != "container" for m in recorder.bodies[1]["messages"] for b in m["content"])
    later = chat.construct_request_params(TextMessage(content="And by 3?"), [first, reply])  # (expired by now)
    assert "container" not in later


def test_a_reply_a_fallback_model_served_says_which_model_served_it() -> None:
    """Anthropic's fallback routing: the reply names the requested model (`claude-opus-4-7`) and a `fallback`
    block says another served it (`to`); the message and its usage name the served one, and the block keeps its
    keys as the API wrote them (`from`, which the SDK calls `from_`: a Python keyword)."""
    reply = _reply("anthropic/fallback_stream")
    assert reply.model == "anthropic:claude-sonnet-4-5"
    assert reply.usage is not None
    assert reply.usage.model == "claude-sonnet-4-5"
    block = reply.server_tool_blocks[0].block
    assert block["from"] == {"model": "claude-opus-4-7"}
    assert "from_" not in block
    chat = replay_llm("anthropic", Recorder(), [], model="claude-opus-4-7")
    sent = chat.construct_request_params(TextMessage(content="And?"), [TextMessage(content="Hi"), reply])
    assert sent["messages"][1]["content"][0] == block


def test_geminis_code_execution_goes_back_part_for_part_between_its_text() -> None:
    """Gemini's code execution (`executableCode`, `codeExecutionResult`) ran on Google's side: the parts are kept
    (never tool calls for us) and the next request sends the model turn back as it came, the text between them."""
    came = recording("gemini/code_execution")[0]
    recorder = Recorder()
    chat = replay_llm("gemini", recorder, [came, came], model="gemini-2.5-flash")
    question = TextMessage(content="How much is 3 * 12390?")
    reply = chat.generate(question)
    chat.generate(TextMessage(content="And now?"), [question, reply])
    assert recorder.bodies[1]["contents"][1]["parts"] == came["json"]["candidates"][0]["content"]["parts"]


def test_geminis_grounding_is_kept_for_display_and_not_sent_back() -> None:
    """Grounding with Google Search answers with `groundingMetadata` (sources, the text each supports): kept on
    the reply as it came; it is no part of the model's turn, so the next request does not send it."""
    came = recording("gemini/web_search")[0]
    recorder = Recorder()
    chat = replay_llm("gemini", recorder, [came, came], model="gemini-2.5-pro")
    question = TextMessage(content="What is the weather in San Francisco today?")
    reply = chat.generate(question)
    grounding = reply.server_tool_blocks[0].block["grounding_metadata"]
    assert isinstance(grounding, dict)
    assert len(grounding["grounding_chunks"]) == len(
        came["json"]["candidates"][0]["groundingMetadata"]["groundingChunks"]
    )
    chat.generate(TextMessage(content="And tomorrow?"), [question, reply])
    assert recorder.bodies[1]["contents"][1]["parts"] == [{"text": reply.content}]


STREAMS = [name for name in sorted(IMPLIED) if "sse" in recording(name)[0]]


def _events(sse: str) -> list[dict[str, Any]]:
    return [json.loads(line[6:]) for line in sse.splitlines() if line.startswith("data: ") and line[6:] != "[DONE]"]


def _accumulated(name: str, chat: Any) -> Any:
    """The non-streamed response the recorded stream adds up to, as the provider's SDK (or format) says."""
    provider = name.split("/", 1)[0]
    interactions = recording(name)
    if provider == "anthropic":
        params = chat.construct_request_params(TextMessage(content="What did the recording ask?"))
        with chat.client().beta.messages.stream(**params) as stream:
            final = as_dict(stream.get_final_message())
        # (the SDK's accumulator gives a compaction block the `encrypted_content: None` no event sent, which the
        # API's non-streamed compaction block does not hold: without it, it is the reply the API would send)
        for block in final["content"]:
            if block["type"] == "compaction" and block.get("encrypted_content", "") is None:
                del block["encrypted_content"]
        return final
    if provider == "gemini":
        chunks = _events(interactions[0]["sse"])
        parts = [p for chunk in chunks for c in chunk.get("candidates", [])[:1] for p in c["content"]["parts"]]
        last = chunks[-1]
        candidate = {**last["candidates"][0], "content": {"role": "model", "parts": parts}}
        from google.genai import types

        return types.GenerateContentResponse.model_validate({**last, "candidates": [candidate]})
    if provider == "openai-responses":  # the stream's last event holds the whole response, as OpenAI sent it
        return next(e["response"] for e in _events(interactions[0]["sse"]) if e["type"] == "response.completed")
    from openai.lib.streaming.chat import ChatCompletionStreamState
    from openai.types.chat import ChatCompletionChunk

    state: Any = ChatCompletionStreamState()
    for event in _events(interactions[0]["sse"]):
        state.handle_chunk(ChatCompletionChunk.model_validate(event))
    return state.get_final_completion()


@pytest.mark.parametrize("name", STREAMS)
def test_a_recorded_stream_gives_the_message_its_non_streamed_equivalent_gives(name: str) -> None:
    streamed = _reply(name)
    chat = replay_llm(name.split("/", 1)[0], Recorder(), recording(name), model=IMPLIED[name].model)
    plain = chat.parse_response(_accumulated(name, chat))
    skip = {"msg_id", "create_ts"}
    assert streamed.model_dump(exclude=skip) == plain.model_dump(exclude=skip)

"""Every recording of real traffic replays to the message the recording implies (issue #14).

Each recorded response goes through the provider's official SDK (a mock transport answers with it) and our
mapping; the table below says, read off the recording by hand, what the reply must hold. A recorded stream
must moreover give the message that its non-streamed equivalent gives: the SDK's own accumulator (or, for
Gemini, which has none, the chunks' parts joined) turns the same events into a response, which goes
through `parse_response`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest
from pydantic import TypeAdapter

from tests.brain.chain.llms.conftest import Recorder, recording, recording_names, replay_llm
from tfrobot.schema.message import AssistantRefusalMessage, AssistantTextMessage, Message, TextMessage


@dataclass(frozen=True)
class Implied:
    """What the first recorded reply implies for the message: its text's start, the finish reason, the tool
    calls for us to run (names), the server-side blocks kept for replay (types), how many native reasoning
    blocks, the start of the reasoning text, the refusal and the usage (input, output, cache read, cache
    write, reasoning). `model` is the one the request names (a current one: the SDK warns about retired
    names, and the reply's mapping does not depend on it)."""

    model: str
    text: str
    finish: str
    usage: tuple[int, int, int, int, int]
    calls: tuple[str, ...] = ()
    server: tuple[str, ...] = ()
    blocks: int = 0
    reasoning: str | None = None
    refusal: str | None = None


STU, WSR, WFR, BCR = (
    "server_tool_use",
    "web_search_tool_result",
    "web_fetch_tool_result",
    "bash_code_execution_tool_result",
)
TER = "text_editor_code_execution_tool_result"
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
        server=(STU, BCR), blocks=1,
    ),
    "anthropic/code_execution_stream": Implied(
        "claude-sonnet-4-6", "I'll calculate that expression for you right away!", "stop", (4714, 304, 0, 0, 0),
        server=(STU, BCR), blocks=1,
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
        server=(STU, STU, TER, TER, STU, TER, STU, TER),
    ),
    "anthropic/text_editor_code_execution_stream": Implied(
        "claude-sonnet-4-6", "Sure! I'll do both steps simultaneously", "stop", (7621, 384, 0, 0, 0),
        server=(STU, STU, TER, TER, STU, TER),
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
        server=(STU, WSR), blocks=1,
    ),
    "anthropic/web_search_stream": Implied(
        "claude-sonnet-4-0", "Based on the search results, I can see", "stop", (22397, 637, 0, 0, 0),
        server=(STU, WSR, STU, WSR), blocks=1,
    ),
    "deepseek/tool_loop": Implied(
        "deepseek-reasoner", "Let me load the dice rolling capability!", "tool_calls", (563, 116, 512, 0, 60),
        calls=("load_capability",), reasoning="The user wants to play a dice game.",
    ),
    "doubao/vision_usage": Implied("doubao-1-5-vision-pro-32k-250115", "I'm Doubao", "stop", (13, 64, 0, 0, 0)),
    "gemini/cached_usage": Implied(
        "gemini-2.5-flash", "This video demonstrates", "stop", (17713, 68 + 821, 17379, 0, 821),
    ),
    "gemini/structured_output": Implied("gemini-2.0-flash", '{\n  "city": "Mexico City"', "stop", (8, 20, 0, 0, 0)),
    "gemini/thought_signature": Implied(
        "gemini-2.5-pro", "", "tool_calls", (49, 12 + 136, 0, 0, 136), calls=("get_user_country",), blocks=1,
    ),
    "gemini/thought_signature_stream": Implied(
        "gemini-3-pro-preview", "", "tool_calls", (29, 10 + 202, 0, 0, 202), calls=("get_country",), blocks=1,
    ),
    "openai/reasoning_usage": Implied("o3-mini", "Hello there!", "stop", (7, 87, 0, 0, 64)),
    "openai/refusal": Implied(
        "gpt-4o-2024-08-06", "", "refusal", (79, 12, 0, 0, 0),
        refusal="I'm very sorry, but I can't assist with that.",
    ),
    "openai/refusal_stream": Implied(
        "gpt-4o-2024-08-06", "", "refusal", (79, 11, 0, 0, 0), refusal="I'm sorry, I can't assist with that request."
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


def test_the_table_covers_every_recording() -> None:
    assert sorted(IMPLIED) == recording_names()


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
    assert tuple(b.type for b in reply.server_tool_blocks) == implied.server
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
            return stream.get_final_message()
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

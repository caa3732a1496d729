"""`RequestBuilder` against real provider traffic (issue 18, outsider review R18).

The replies of `recordings/` (pydantic-ai's cassettes, the SDKs' fixtures) are read through each provider's
SDK and `parse_response`, as `test_recordings.py` does, and become the steps of agent loops and the turns of
their histories: thinking with signatures, encrypted reasoning items, Gemini thought signatures, server-side
blocks (web search, code execution, MCP, compaction), Anthropic containers, citations, parallel calls, tool
results with images and PDFs, consecutive user turns, the record of a refused call. Every step's request from
the builder must be the fresh `construct_request_params` of the same arguments, for every provider."""

from __future__ import annotations

import copy
import warnings
from datetime import UTC, datetime, timedelta
from functools import cache
from typing import Any

import pytest

from tests.brain.chain.llms.conftest import PDF, TOOLS, Recorder, image, recording, recording_names, replay_llm
from tests.brain.chain.llms.test_recordings import IMPLIED
from tfrobot.brain.chain.base import FAILED_CALL
from tfrobot.brain.chain.llms import ChatLLM, RequestBuilder, ToolDefinition, create_llm, providers
from tfrobot.schema.message import (
    AssistantTextMessage,
    BaseMessage,
    ConsoleResult,
    FileUserMsgPart,
    TextMessage,
    ToolCall,
    ToolReturn,
)
from tfrobot.schema.message.llms.llm_response import ServerToolBlock

PROVIDERS = sorted(providers())
REPLIES = [name for name in recording_names() if name in IMPLIED]
"""The recordings that answer with a reply (and whose model `test_recordings.py` names)."""

_LLM_SETTINGS: dict[str, dict[str, Any]] = {"deepseek": {"model": "deepseek-reasoner"}}
"""How a recording's own provider is configured here: the recorded model (its profile decides reasoning
replay, dummy thought signatures, encrypted reasoning), `deepseek` as OpenAI's class on its endpoint."""


@cache
def _replies(name: str) -> tuple[AssistantTextMessage, ...]:
    """Every recorded reply of `name` that answers 200, each read alone through the SDK (a stream as a stream)."""
    provider = name.split("/", 1)[0]
    out: list[AssistantTextMessage] = []
    for interaction in recording(name):
        if interaction["status"] != 200:
            continue
        chat = replay_llm(provider, Recorder(), [interaction], model=IMPLIED[name].model)
        question = TextMessage(content="What did the recording ask?")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            reply = chat.generate_streamed(question) if "sse" in interaction else chat.generate(question)
        out.append(reply)
    return tuple(out)


def _own_llm(name: str) -> ChatLLM:
    provider = name.split("/", 1)[0]
    settings = _LLM_SETTINGS.get(provider, {"model": IMPLIED[name].model})
    return create_llm("openai" if provider == "deepseek" else provider, **settings)


def _as_step(reply: AssistantTextMessage, tag: str, *, pdf: bool = False) -> list[BaseMessage]:
    """`reply` as one step of a loop under ids of its own (`tag`): its calls answered (the first result with an
    image, a PDF too when `pdf`), or, for a reply without calls, run as a TFL script whose console output
    carries a chart (the chain reads scripts off the text). A copy: the recording's message is not changed."""
    calls = [c.model_copy(update={"id": f"{c.id}{tag}"}) for c in reply.tool_calls or ()]
    update: dict[str, Any] = {"msg_id": f"{tag}-reply", "tool_calls": calls}
    if not calls:
        update["tfl_scripts"] = ["print(1)"]
    step_reply = reply.model_copy(deep=True, update=update)
    step: list[BaseMessage] = [step_reply]
    if calls:
        attachments: list[Any] = [image("a map")]
        if pdf:
            attachments.append(FileUserMsgPart(data=PDF, media_type="application/pdf", filename="r.pdf", detail="r"))
        returns = [
            ToolReturn(call_id=c.id, name=c.name, result=f"result {i}", attachments=attachments if i == 0 else [])
            for i, c in enumerate(calls)
        ]
        step.append(BaseMessage(role="tool", tool_reses=returns, msg_id=f"{tag}-tools"))
    else:
        console = [ConsoleResult(result="1", script="print(1)", attachments=[image("a chart")])]
        step.append(BaseMessage(role="console", console_reses=console, msg_id=f"{tag}-console"))
    return step


def _stored_turn(replies: tuple[AssistantTextMessage, ...], tag: str, ts: int, *, failed: bool) -> list[BaseMessage]:
    """A turn as memory stores it: the user's message with its trace (the replies as steps; the record of a
    refused call last when `failed`) and, unless it failed, an answer (the last reply's text)."""
    user = TextMessage(content=f"Question {tag}?", create_ts=ts, msg_id=f"{tag}-q")
    n = ts
    for i, reply in enumerate(replies):
        for msg in _as_step(reply, f"{tag}{i}"):
            n += 1
            user.intermediate_trace.append(msg.model_copy(update={"create_ts": n}), step=i)
    if failed:
        record = AssistantTextMessage(model="x:y", finish_reason=FAILED_CALL, create_ts=n + 1, msg_id=f"{tag}-f")
        user.intermediate_trace.append(record, step=len(replies))
        return [user]
    answer = replies[-1].model_copy(deep=True, update={"msg_id": f"{tag}-a", "tool_calls": [], "create_ts": n + 2})
    return [user, answer]


def _fresh(builder: RequestBuilder, chain: list[BaseMessage], tools: list[ToolDefinition] | None) -> dict[str, Any]:
    return builder.llm.construct_request_params(
        builder.current_input, builder.conversation, tools, intermediate_msgs=chain, **builder.options
    )


def _loop(builder: RequestBuilder, steps: list[list[BaseMessage]]) -> list[dict[str, Any]]:
    """Each step's request from `builder`, checked against the fresh one when built and, at the end, against
    a deep copy taken then (no later step changed it)."""
    chain: list[BaseMessage] = []
    built: list[tuple[dict[str, Any], dict[str, Any]]] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # media some providers take only as `detail` text
        for new in [*steps, []]:
            request = builder.build(chain, TOOLS)
            assert request == _fresh(builder, chain, TOOLS), f"step {len(built)}"
            built.append((request, copy.deepcopy(request)))
            chain = [*chain, *new]
    for request, at_build in built:
        assert request == at_build
    return [request for request, _ in built]


def _history(name: str, *, failed: bool = False) -> list[BaseMessage]:
    """Two stored turns made of the recording's replies, then a user message with no answer (a turn whose
    answer was lost), so the current input follows a user turn (consecutive user turns)."""
    replies = _replies(name)
    return [
        BaseMessage(role="system", content="You are TFRobot.", msg_id="sys"),
        *_stored_turn(replies, "h1", 1_000, failed=failed),
        *_stored_turn(replies, "h2", 2_000, failed=False),
        TextMessage(content="Are you there?", create_ts=3_000, msg_id="h3-q"),
    ]


@pytest.mark.parametrize("provider", ["own", *PROVIDERS])
@pytest.mark.parametrize("name", REPLIES)
def test_a_loop_of_recorded_replies_is_the_fresh_request_at_every_step(name: str, provider: str) -> None:
    """History and steps made of the recording's real replies (its own provider, then every provider, as a
    conversation switched to another model): every step is the fresh request."""
    llm = _own_llm(name) if provider == "own" else create_llm(provider)
    builder = llm.request_builder(TextMessage(content="Now again, please.", create_ts=4_000, msg_id="q"), _history(name))
    replies = _replies(name)
    steps = [_as_step(replies[i % len(replies)], f"s{i}", pdf=i == 1) for i in range(4)]
    _loop(builder, steps)


@pytest.mark.parametrize("provider", ["own", *PROVIDERS])
@pytest.mark.parametrize("name", REPLIES)
def test_a_refused_calls_record_is_dropped_from_every_later_request(name: str, provider: str) -> None:
    """A stored turn whose last step's call was refused (`FAILED_CALL` record in its trace): every later step
    of a turn is the fresh request, and is the request of the same history without that record."""
    llm = _own_llm(name) if provider == "own" else create_llm(provider)
    question = TextMessage(content="Try again.", create_ts=4_000, msg_id="q")
    with_record = _history(name, failed=True)
    without = copy.deepcopy(with_record)
    trace = without[1].intermediate_trace  # type: ignore[attr-defined]
    assert trace.records[-1].finish_reason == FAILED_CALL
    del trace.records[-1]
    replies = _replies(name)
    steps = [_as_step(replies[i % len(replies)], f"s{i}") for i in range(3)]
    built = _loop(llm.request_builder(question, with_record), steps)
    plain = _loop(llm.request_builder(question, without), steps)
    assert built == plain


def test_recorded_replies_cover_what_the_review_asked_for() -> None:
    """The replies these loops are made of hold the shapes the review names (so the loops above test them)."""
    every = [reply for name in REPLIES for reply in _replies(name)]
    kinds = {b.type for r in every for b in r.server_tool_blocks} | {
        f"reasoning:{b.provider}" for r in every for b in r.reasoning_blocks if b.signature or b.data
    }
    assert {"container", "server_tool_use", "web_search_tool_result", "compaction", "mcp_tool_use", "text"} <= kinds
    assert {"reasoning:anthropic", "reasoning:gemini", "reasoning:openai-responses"} <= kinds
    assert any(len(r.tool_calls or ()) > 1 for r in every), "a reply with parallel calls"

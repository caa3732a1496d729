"""`RequestBuilder` against real provider traffic (issue 18, outsider review R18).

The replies of `recordings/` (pydantic-ai's cassettes, the SDKs' fixtures) are read through each provider's
SDK and `parse_response`, as `test_recordings.py` does, and become the steps of agent loops and the turns of
their histories: thinking with signatures, encrypted reasoning items, Gemini thought signatures, server-side
blocks (web search, code execution, MCP, compaction), Anthropic containers, citations, parallel calls, tool
results with images and PDFs, consecutive user turns, the record of a refused call. Every step's request from
the builder must be the fresh `construct_request_params` of the same arguments, for every provider, also when
the requests go through the SDKs (zai-sdk edits the messages it is given: it gets copies) and when a container
expires mid-turn. Where state changes during the turn otherwise (a history or step message edited in place, a
media file rewritten or removed, a history list appended to) the tests assert the builder's documented
snapshot: the history list copied when the builder is made, each message as first converted, media read by
path read then."""

from __future__ import annotations

import copy
import time
import warnings
from datetime import UTC, datetime, timedelta
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from tests.brain.chain.llms.conftest import PDF, PNG, TOOLS, Recorder, image, recording, recording_names, replay_llm
from tests.brain.chain.llms.test_recordings import IMPLIED
from tfrobot.brain.chain.base import FAILED_CALL
from tfrobot.brain.chain.llms import (
    ChatLLM,
    MessageAssembler,
    RequestBuilder,
    ToolDefinition,
    UnsupportedContentError,
    create_llm,
    providers,
)
from tfrobot.schema.message import (
    AssistantTextMessage,
    BaseMessage,
    BaseUser,
    ConsoleResult,
    FileUserMsgPart,
    ImageMessage,
    ImageUserMsgPart,
    TextMessage,
    ToolCall,
    ToolReturn,
)

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
    builder = llm.request_builder(
        TextMessage(content="Now again, please.", create_ts=4_000, msg_id="q"), _history(name)
    )
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


# ------------------------------------------------------------------------------------- containers
CONTAINERS = [
    name for name in REPLIES if any(b.type == "container" for r in _replies(name) for b in r.server_tool_blocks)
]
"""The Anthropic recordings whose replies ran in a code-execution container."""


def _with_container(
    reply: AssistantTextMessage, container: str, expires_at: datetime, *, call: bool = False
) -> AssistantTextMessage:
    """`reply` with its recorded container renamed and expiring at `expires_at` (the recorded ones expired
    long ago, which would leave the container out of every request and the path untested); with `call`, a
    call of ours after its code execution (the recorded replies make none: then the steps are converted
    whole, each time, and not one by one)."""
    live = reply.model_copy(deep=True)
    if call:
        live.tool_calls = [ToolCall(id="toolu_weather", name="weather", arguments='{"city": "Paris"}')]
    for block in live.server_tool_blocks:
        if block.type == "container":
            block.block["id"], block.block["expires_at"] = container, expires_at.isoformat()
    return live


@pytest.mark.parametrize("name", CONTAINERS)
def test_live_recorded_containers_of_the_history_and_of_the_steps_are_the_fresh_ones(name: str) -> None:
    """The history's reply ran in one container, the steps' replies in others, all alive: each request names
    the latest (the fresh one's), and the path is taken (the parameter is there)."""
    later = datetime.now(UTC) + timedelta(hours=1)
    reply = _replies(name)[0]
    history = [TextMessage(content="Run it.", msg_id="h-q"), _with_container(reply, "cont_h", later)]
    history[1].msg_id, history[1].tool_calls = "h-a", []
    builder = _own_llm(name).request_builder(TextMessage(content="Again.", msg_id="q"), history)
    steps = [_as_step(_with_container(reply, f"cont_{i}", later, call=i != 1), f"s{i}") for i in range(3)]
    built = _loop(builder, steps)
    assert [r.get("container") for r in built] == ["cont_h", "cont_0", "cont_1", "cont_2"]
    assert builder.fresh == 0


@pytest.mark.parametrize("where", ["history", "step"])
def test_a_recorded_container_that_expires_mid_turn_is_dropped_as_a_fresh_build_drops_it(where: str) -> None:
    """The container of the history's reply (or of the first step's) expires between two steps: a fresh build
    leaves it out (the API refuses an expired container: a 400 for the rest of the turn), and so does the
    builder, which converted it while it lived (regression R18: it still named it)."""
    name = "anthropic/container_reuse"
    reply = _replies(name)[0]
    soon = datetime.now(UTC) + timedelta(seconds=1)
    later = datetime.now(UTC) + timedelta(hours=1)
    answer = _with_container(reply, "cont_h", soon if where == "history" else later)
    answer.msg_id, answer.tool_calls = "h-a", []
    builder = _own_llm(name).request_builder(
        TextMessage(content="Again.", msg_id="q"), [TextMessage(content="Run it.", msg_id="h-q"), answer]
    )
    first = _as_step(_with_container(reply, "cont_0", soon, call=True), "s0")
    if where == "history":  # (the step's own container long expired: the history's is the one named)
        first = _as_step(_with_container(reply, "cont_0", soon - timedelta(days=1), call=True), "s0")
    assert builder.build([], TOOLS) == _fresh(builder, [], TOOLS)
    assert builder.build(first, TOOLS) == _fresh(builder, first, TOOLS)
    while datetime.now(UTC) <= soon:  # the container expires (no assertion on time: a wait for it)
        time.sleep(0.05)
    second = [*first, *_as_step(_with_container(reply, "cont_1", soon - timedelta(days=1), call=True), "s1")]
    request = builder.build(second, TOOLS)
    assert request == _fresh(builder, second, TOOLS)
    assert request.get("container") == ("cont_h" if where == "step" else None)  # the latest one alive
    assert (builder.reused, builder.fresh) == (3, 0)  # the converted messages were reused all along


# ------------------------------------------------------------------------------- a changing history
def test_a_history_message_edited_in_place_mid_turn_is_sent_as_it_was_at_turn_start() -> None:
    """A tool that edits the conversation (memory rewriting a stored answer, a redaction) changes a history
    message object in place between two steps: the builder sends the history as it was at its first request
    (a snapshot of the turn's start, documented in `request_builder.py`), as before the edit, still reusing
    it; a fresh build would send the edit. `Chain` shares memory's message objects (`prompt_history` copies
    the list, not the messages)."""
    name = "anthropic/web_search"
    history = _history(name)
    at_start = copy.deepcopy(history)
    llm = _own_llm(name)
    question = TextMessage(content="Now again.", create_ts=4_000, msg_id="q")
    builder = llm.request_builder(question, history)
    step = _as_step(_replies("anthropic/tool_use")[0], "s0")
    assert builder.build([], TOOLS) == llm.construct_request_params(question, history, TOOLS, intermediate_msgs=[])
    history[2].content = "[redacted]"
    request = builder.build(step, TOOLS)
    assert request == llm.construct_request_params(question, at_start, TOOLS, intermediate_msgs=step)
    assert request != llm.construct_request_params(question, history, TOOLS, intermediate_msgs=step)
    assert (builder.reused, builder.fresh) == (2, 0)


def test_a_message_added_to_the_callers_history_list_mid_turn_changes_nothing() -> None:
    """The caller's history list gains a message between two steps (memory written mid-turn by a concurrent
    turn of the conversation): the builder took its own copy of the list when it was made, so the turn's
    requests are those of the history it was given (documented in `request_builder.py`)."""
    name = "gemini/thought_signature"
    history = _history(name)
    at_start = list(history)
    llm = _own_llm(name)
    question = TextMessage(content="Now again.", create_ts=4_000, msg_id="q")
    builder = llm.request_builder(question, history)
    history.append(TextMessage(content="A note memory wrote before the first step.", create_ts=3_400, msg_id="n0"))
    step = _as_step(_replies(name)[0], "s0")
    assert builder.build([], TOOLS) == llm.construct_request_params(question, at_start, TOOLS, intermediate_msgs=[])
    history.append(TextMessage(content="A note memory wrote.", create_ts=3_500, msg_id="note"))
    assert builder.build(step, TOOLS) == llm.construct_request_params(question, at_start, TOOLS, intermediate_msgs=step)
    assert builder.conversation == at_start
    assert (builder.reused, builder.fresh) == (2, 0)


# ------------------------------------------------------------------------------ ids and settings
CALLING = [name for name in REPLIES if any(r.tool_calls for r in _replies(name))]


@pytest.mark.parametrize("failed", [False, True], ids=["well-formed", "repaired"])
@pytest.mark.parametrize("name", CALLING)
def test_a_step_calling_under_the_recorded_ids_the_history_used_is_the_fresh_request(name: str, failed: bool) -> None:
    """Endpoints that number calls per reply, or a reply read twice (Gemini's ids are derived from the response
    id), call under ids the history used: the step is the fresh request, with the history well formed or
    repaired (the refused call's record), which renames the step's ids."""
    reply = _replies(name)[0]
    history = _history(name, failed=failed)
    first = reply.model_copy(deep=True, update={"msg_id": "s0-reply"})
    step = [first, BaseMessage(role="tool", tool_reses=[
        ToolReturn(call_id=c.id, name=c.name, result="again") for c in first.tool_calls or ()
    ], msg_id="s0-tools")]  # fmt: skip
    history.insert(-1, _stored_turn((reply,), "h0", 900, failed=False)[0])
    for provider in [name.split("/", 1)[0], *PROVIDERS]:
        llm = _own_llm(name) if provider == name.split("/", 1)[0] else create_llm(provider)
        _loop(
            llm.request_builder(TextMessage(content="Again.", create_ts=4_000, msg_id="q"), history),
            [step, _as_step(reply, "s1")],
        )


@pytest.mark.parametrize(
    ("name", "settings", "options"),
    [
        (
            "zhipu/preserved_thinking",
            {"model": "glm-4.7", "extra_params": {"thinking": {"type": "enabled", "clear_thinking": False}}},
            {},
        ),
        ("zhipu/thinking", {"model": "glm-4.6"}, {"thinking": {"type": "enabled", "clear_thinking": False}}),
        ("deepseek/tool_loop", {"model": "deepseek-reasoner", "reasoning_replay": "always"}, {}),
        ("deepseek/tool_loop", {"model": "deepseek-chat"}, {}),
        ("anthropic/container_reuse", {"model": "claude-sonnet-4-5"}, {"container": "cont_settings"}),
        (
            "anthropic/tool_use",
            {"model": "claude-sonnet-4-0", "prompt_cache": {"ttl": "1h"}},
            {"thinking": {"type": "enabled", "budget_tokens": 1024}},
        ),
        ("gemini/foreign_tool_calls", {"model": "gemini-3-pro-preview"}, {"config": {"temperature": 0}}),
        ("openai-responses/reasoning_tool_loop", {"model": "o3"}, {"reasoning": {"effort": "low"}}),
    ],
)
def test_recorded_loops_under_the_settings_that_change_the_request(
    name: str, settings: dict[str, Any], options: dict[str, Any]
) -> None:
    """Settings and call options that change how the messages are converted (preserved thinking, reasoning
    replay modes, a container the caller names, cache TTL, Gemini 3's dummy signatures, a reasoning model's
    encrypted items): every step is the fresh request; steps whose console output comes after their request."""
    provider = name.split("/", 1)[0]
    llm = create_llm("openai" if provider == "deepseek" else provider, **settings)
    builder = llm.request_builder(
        TextMessage(content="Again.", create_ts=4_000, msg_id="q"), _history(name, failed=True), **options
    )
    replies = _replies(name)
    steps: list[list[BaseMessage]] = []
    for i in range(4):
        step = _as_step(replies[i % len(replies)], f"s{i}")
        steps.append(step)
        reply = step[0]
        if reply.tool_calls:  # calls and a script: results, then (after a request) the console output
            reply.tfl_scripts = ["print(2)"]
            console = [ConsoleResult(result="2", script="print(2)", attachments=[image("a plot")])]
            steps.append([BaseMessage(role="console", console_reses=console, msg_id=f"s{i}-console")])
    _loop(builder, steps)
    assert builder.fresh == 0


# ------------------------------------------------------------------------------ sent through the SDK
@pytest.mark.parametrize("name", REPLIES)
def test_a_loop_sent_through_the_sdk_is_the_fresh_request_at_every_step(name: str) -> None:
    """A loop as the chain runs it: each step's request from the builder is sent through the provider's SDK
    (answered by the recording, a stream as a stream) and the reply read from it is the next step. Every request
    is the fresh one though the earlier ones were sent, and stays as it was built (the requests share the
    history's converted messages: what a send changes in one, it changes in every later step's)."""
    provider = name.split("/", 1)[0]
    answers = [i for i in recording(name) if i["status"] == 200] * 2
    chat = replay_llm(provider, Recorder(), answers, model=IMPLIED[name].model)
    builder = chat.request_builder(TextMessage(content="Again.", create_ts=4_000, msg_id="q"), _history(name))
    chain: list[BaseMessage] = []
    built: list[tuple[dict[str, Any], dict[str, Any]]] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i, answer in enumerate(answers):
            request = builder.build(chain, TOOLS)
            assert request == _fresh(builder, chain, TOOLS), f"step {i}"
            built.append((request, copy.deepcopy(request)))
            if "sse" in answer:
                assembler = MessageAssembler()
                for delta in chat.stream_request(request, TOOLS):
                    assembler.add(delta)
                reply = assembler.message()
            else:
                reply = chat.generate_request(request, TOOLS)
            chain += _as_step(reply, f"s{i}")
    assert all(request == at_build for request, at_build in built), "a send changed a request"
    assert builder.fresh == 0


@pytest.mark.parametrize("name", ["anthropic/tool_use", "gemini/thought_signature", "openai-responses/tool_loop"])
def test_a_chart_file_a_tool_rewrites_each_step_is_sent_as_each_step_read_it(name: str, tmp_path: Path) -> None:
    """A plotting tool writes its chart to the same file each call and returns it by path (media under the
    LLM's `media_roots` are read at conversion): media read by path is read once per turn, when its message
    is first converted (the documented contract), so each step's request carries every earlier step's chart
    as the tool returned it at its step; a fresh build would read the file again (all the latest chart)."""
    chart = tmp_path / "chart.png"
    provider = name.split("/", 1)[0]
    llm = create_llm(provider, model=IMPLIED[name].model, media_roots=(tmp_path,))
    builder = llm.request_builder(TextMessage(content="Plot it twice.", create_ts=4_000, msg_id="q"), _history(name))
    reply = _replies(name)[0]
    steps, as_read = [], []
    for i, data in enumerate([PNG, PNG + b"\x00"]):
        step = _as_step(reply, f"s{i}")
        chart_part = ImageUserMsgPart(path=chart, media_type="image/png", detail="chart")
        step[1].tool_reses[0].attachments = [chart_part]  # type: ignore[index, union-attr]
        steps.append(step)
        read = copy.deepcopy(step)
        read[1].tool_reses[0].attachments = [ImageUserMsgPart(data=data, media_type="image/png", detail="chart")]  # type: ignore[index, union-attr]
        as_read.append(read)
    chart.write_bytes(PNG)
    assert builder.build(steps[0], TOOLS) == _fresh(builder, steps[0], TOOLS)
    chart.write_bytes(PNG + b"\x00")  # the second call's chart
    both = [*steps[0], *steps[1]]
    request = builder.build(both, TOOLS)
    assert request == _fresh(builder, [*as_read[0], *as_read[1]], TOOLS)
    assert request != _fresh(builder, both, TOOLS)
    assert (builder.reused, builder.fresh) == (2, 0)


def test_a_history_image_file_removed_mid_turn_is_sent_as_read_at_the_first_step(tmp_path: Path) -> None:
    """The history holds an image by path (an upload kept in a temporary folder) and the file is cleaned up
    during the turn: the history was converted, and the file read, at the first step, so the next step sends
    those bytes and raises nothing (a fresh build would fail: it reads the file again)."""
    name = "anthropic/tool_use"
    upload = tmp_path / "upload.png"
    upload.write_bytes(PNG)
    history = _history(name)
    history.insert(
        -1, ImageMessage(content=ImageUserMsgPart(path=upload, detail="an upload"), msg_id="up", create_ts=2_999)
    )
    as_read = [*history]
    as_read[-2] = ImageMessage(
        content=ImageUserMsgPart(data=PNG, media_type="image/png", detail="an upload"), msg_id="up", create_ts=2_999
    )
    llm = create_llm("anthropic", model=IMPLIED[name].model, media_roots=(tmp_path,))
    question = TextMessage(content="Look again.", create_ts=4_000, msg_id="q")
    builder = llm.request_builder(question, history)
    assert builder.build([], TOOLS) == _fresh(builder, [], TOOLS)
    upload.unlink()
    step = _as_step(_replies(name)[0], "s0")
    with pytest.raises(UnsupportedContentError):
        _fresh(builder, step, TOOLS)
    request = builder.build(step, TOOLS)
    assert request == llm.construct_request_params(question, as_read, TOOLS, intermediate_msgs=step)
    assert (builder.reused, builder.fresh) == (2, 0)


@pytest.mark.parametrize("variant", ["same-text", "images", "named"])
@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize(
    "name",
    ["anthropic/tool_use", "gemini/thought_signature", "openai-responses/reasoning_tool_loop", "deepseek/tool_loop"],
)
def test_consecutive_user_turns_that_merge_are_the_fresh_request(name: str, provider: str, variant: str) -> None:
    """The current input repeats the unanswered user message before it (sent twice: the same text, the same
    image, the same named sender), which the request merges: every step is still the fresh request."""
    history = _history(name)
    question: BaseMessage
    if variant == "same-text":
        question = TextMessage(content="Are you there?", create_ts=4_000, msg_id="q")
    elif variant == "images":
        history.append(ImageMessage(content=image("a cat"), msg_id="img", create_ts=3_500))
        question = ImageMessage(content=image("a cat"), msg_id="q", create_ts=4_000)
    else:
        ann = BaseUser(uid="u", name="Ann B")
        history[-1] = TextMessage(content="Are you there?", creator=ann, create_ts=3_000, msg_id="h3-q")
        question = TextMessage(content="Are you there?", creator=ann, create_ts=4_000, msg_id="q")
    replies = _replies(name)
    builder = create_llm(provider).request_builder(question, history)
    _loop(builder, [_as_step(replies[i % len(replies)], f"s{i}") for i in range(3)])


def _parallel(provider: str) -> AssistantTextMessage:
    """One reply making the calls of every recorded reply of `provider` at once (parallel calls), with the
    reasoning (signatures, encrypted items) and text of the first of them."""
    calling = [r for name in CALLING if name.startswith(f"{provider}/") for r in _replies(name) if r.tool_calls]
    calls = [c.model_copy(update={"id": f"{c.id}_{i}"}) for i, r in enumerate(calling) for c in r.tool_calls or ()]
    return calling[0].model_copy(deep=True, update={"tool_calls": calls})


@pytest.mark.parametrize("order", ["call order", "reversed", "one by one"])
@pytest.mark.parametrize("provider", sorted({name.split("/", 1)[0] for name in CALLING}))
def test_recorded_parallel_calls_answered_in_any_order_are_the_fresh_request(provider: str, order: str) -> None:
    """The recorded calls of a provider made in one reply and answered in call order, in reverse (moved back
    by the repair of the whole request), or one result message per call: every step is the fresh request."""
    reply = _parallel(provider)
    assert len(reply.tool_calls or ()) > 1
    llm = _own_llm(next(name for name in CALLING if name.startswith(f"{provider}/")))
    builder = llm.request_builder(
        TextMessage(content="All at once.", create_ts=4_000, msg_id="q"), _history(CALLING[0])
    )
    steps: list[list[BaseMessage]] = []
    for i in range(3):
        step = _as_step(reply, f"s{i}")
        returns = list(step[1].tool_reses or ())
        if order == "reversed":
            step[1].tool_reses = returns[::-1]
        elif order == "one by one":
            step[1:] = [BaseMessage(role="tool", tool_reses=[r], msg_id=f"s{i}-t{j}") for j, r in enumerate(returns)]
        steps.append(step)
    _loop(builder, steps)


def test_an_earlier_steps_result_edited_in_place_by_a_tool_is_sent_as_it_was_converted() -> None:
    """A tool that edits the conversation redacts the result of an earlier step in the chain's own message (the
    same object, so the turn's list is the last one extended): the builder follows the steps by identity and
    sends each message as it was when first converted (the documented snapshot), still reusing it; a fresh
    build would send the redacted result."""
    name = "openai-responses/tool_loop"
    builder = _own_llm(name).request_builder(TextMessage(content="Go.", create_ts=4_000, msg_id="q"), _history(name))
    reply = _replies(name)[0]
    first, second = _as_step(reply, "s0"), _as_step(reply, "s1")
    assert builder.build(first, TOOLS) == _fresh(builder, first, TOOLS)
    both = [*first, *second]
    assert builder.build(both, TOOLS) == _fresh(builder, both, TOOLS)
    as_converted = copy.deepcopy(both)
    first[1].tool_reses[0].result = "[redacted]"  # type: ignore[index, union-attr]
    request = builder.build([*both], TOOLS)
    assert request == _fresh(builder, as_converted, TOOLS)
    assert request != _fresh(builder, both, TOOLS)
    assert (builder.reused, builder.fresh) == (3, 0)

"""`RequestBuilder`: each step of an agent loop reuses the converted history and is still exactly the request a
fresh `construct_request_params` builds (deep equality of the SDK's keyword arguments), for every provider,
over histories with traces, tool calls, reasoning, images, attachments and console output; the requests
already built are never changed by later steps; and a change it cannot reuse across is built fresh."""

from __future__ import annotations

import copy
import re
import warnings
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.brain.chain.llms.conftest import TOOLS, WAV, conversation, current_turn, image
from tfrobot.brain.chain.llms import (
    ChatLLM,
    LLMError,
    RequestBuilder,
    ToolDefinition,
    UnsupportedContentError,
    create_llm,
    providers,
)
from tfrobot.schema.message import (
    AssistantTextMessage,
    AudioUserMsgPart,
    BaseMessage,
    ConsoleResult,
    ImageMessage,
    ReasoningBlock,
    TextMessage,
    ToolCall,
    ToolReturn,
)
from tfrobot.schema.message.llms.llm_response import ServerToolBlock

PROVIDERS = sorted(providers())
STEPS = 6


def _llm(provider: str, media_root: Path | None = None) -> ChatLLM:
    return create_llm(provider, media_roots=(media_root,) if media_root else ())


def _step(
    i: int,
    *,
    container: str | None = None,
    ids: tuple[str, str] | None = None,
    calls: bool = True,
    model: str = "zhipu:glm-4.6",
) -> list[BaseMessage]:
    """One thinking/doing step of the running turn: a reasoning reply with two calls (one result carries an
    image), and on odd steps a TFL script whose console output carries a chart. `ids`: its calls' ids;
    `calls=False`: a reply with a script and no calls; `model`: the reply's model tag (whose provider gets
    its reasoning text back)."""
    first, second = ids or (f"call_{i}_a", f"call_{i}_b")
    reply = AssistantTextMessage(
        content=f"Step {i}: checking two cities." if i % 3 else "",
        reasoning_content=f"Step {i} needs two calls.",
        reasoning_blocks=[
            ReasoningBlock(text=f"think {i}", signature="c2lnLWFudGhyb3BpYw==", provider="anthropic"),
            ReasoningBlock(text="", signature="Z2VtaW5pLXNpZw==", provider="gemini"),
            ReasoningBlock(text=f"summary {i}", data="ZW5jcnlwdGVk", provider="openai-responses", id=f"rs_{i}"),
        ],
        tool_calls=[
            ToolCall(id=first, name="weather", arguments='{"city": "Paris"}'),
            ToolCall(id=second, name="weather", arguments='{"city": "Tokyo"}'),
        ]
        if calls
        else [],
        tfl_scripts=["print(1)"] if i % 2 or not calls else [],
        server_tool_blocks=[ServerToolBlock(provider="anthropic", block={"type": "container", "id": container})]
        if container
        else [],
        model=model,
        msg_id=f"s{i}-reply",
    )
    results = BaseMessage(
        role="tool",
        tool_reses=[
            ToolReturn(call_id=first, name="weather", result="18C", attachments=[image("a map")]),
            ToolReturn(call_id=second, name="weather", result="timeout", is_error=True),
        ],
        msg_id=f"s{i}-tools",
    )
    step: list[BaseMessage] = [reply, results] if calls else [reply]
    if i % 2 or not calls:
        console = [ConsoleResult(result="1", script="print(1)", attachments=[image("a chart")])]
        step.append(BaseMessage(role="console", console_reses=console, msg_id=f"s{i}-console"))
    return step


def _loop(
    builder: RequestBuilder, steps: list[list[BaseMessage]], tools: list[ToolDefinition] | None = TOOLS
) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Each step's request from `builder` beside the fresh one; afterwards, every request built is checked
    against a deep copy taken when it was built (a later step changed nothing of an earlier one)."""
    chain: list[BaseMessage] = []
    built: list[tuple[dict[str, Any], dict[str, Any]]] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # media some providers take only as `detail` text
        for new in steps:
            try:
                request = builder.build(chain, tools)
            except LLMError as exc:  # (a turn that calls under one id twice) fails as the fresh build does
                with pytest.raises(type(exc), match=re.escape(str(exc))):
                    _fresh(builder, chain, tools)
                break
            assert request == _fresh(builder, chain, tools)
            built.append((request, copy.deepcopy(request)))
            chain = [*chain, *new]
    for request, at_build in built:
        assert request == at_build
    return built


def _fresh(builder: RequestBuilder, chain: list[BaseMessage], tools: list[ToolDefinition] | None) -> dict[str, Any]:
    return builder.llm.construct_request_params(
        builder.current_input, builder.conversation, tools, intermediate_msgs=chain, **builder.options
    )


@pytest.mark.parametrize("provider", PROVIDERS)
def test_every_step_of_a_loop_is_the_fresh_request_built_from_the_converted_history(
    provider: str, media_root: Path
) -> None:
    history = conversation(media_root)
    question, running = current_turn()
    llm = _llm(provider, media_root)
    builder = llm.request_builder(question, history)
    steps = [running, *(_step(i) for i in range(STEPS - 1))]
    _loop(builder, steps)
    assert (builder.reused, builder.fresh) == (STEPS, 0)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_the_history_messages_are_not_changed_by_the_loop(provider: str, media_root: Path) -> None:
    history = conversation(media_root)
    before = [msg.model_dump() for msg in history]
    question, running = current_turn()
    _loop(_llm(provider, media_root).request_builder(question, history), [running, _step(0), _step(1)])
    assert [msg.model_dump() for msg in history] == before


def test_anthropic_container_of_the_latest_reply_wins_over_the_history_s() -> None:
    """The prefix's conversion adds a parameter (the code-execution container of its latest reply); a step
    whose reply names another container sends that one, as one conversion of the whole request does."""
    earlier = AssistantTextMessage(
        content="Ran it.",
        server_tool_blocks=[ServerToolBlock(provider="anthropic", block={"type": "container", "id": "cont_old"})],
        msg_id="old-reply",
    )
    history = [TextMessage(content="Run it.", msg_id="q0"), earlier]
    builder = _llm("anthropic").request_builder(TextMessage(content="Again.", msg_id="q1"), history)
    built = _loop(builder, [_step(0), _step(1, container="cont_new"), _step(2)])
    assert [request.get("container") for request, _ in built] == ["cont_old", "cont_old", "cont_new"]
    assert builder.fresh == 0


@pytest.mark.parametrize("provider", ["openai", "anthropic", "gemini"])
def test_other_tools_at_a_step_still_reuse_the_history(provider: str) -> None:
    """Tools are added when the request is assembled, after the messages: a step offering other tools (a tool
    source that appeared mid-turn) reuses the converted history and sends the tools it is given."""
    builder = _llm(provider).request_builder(TextMessage(content="Go.", msg_id="q"), [])
    llm, chain = builder.llm, list[BaseMessage]()
    for i, tools in enumerate([TOOLS, None, [*TOOLS, ToolDefinition(name="clock", description="Time.")]]):
        assert builder.build(chain, tools) == llm.construct_request_params(
            builder.current_input, [], tools, intermediate_msgs=chain
        )
        chain += _step(i)
    assert builder.fresh == 0


def test_a_turn_list_that_is_not_the_last_one_extended_is_converted_again_from_the_cut() -> None:
    """An earlier step's message replaced (an edited reply) or dropped: the suffix is converted again, the
    history is still reused, and the request is the fresh one."""
    builder = _llm("openai").request_builder(TextMessage(content="Go.", msg_id="q"), [])
    first, second = _step(0), _step(1)
    edited = [first[0].model_copy(update={"content": "edited"}), *first[1:]]
    _loop(builder, [first, second])
    for chain in ([*edited, *second], second, []):
        assert builder.build(chain, TOOLS) == builder.llm.construct_request_params(
            builder.current_input, [], TOOLS, intermediate_msgs=chain
        )
    assert builder.fresh == 0


@pytest.mark.parametrize("provider", ["openai", "anthropic", "gemini"])
def test_a_history_that_needs_repair_is_repaired_once_and_reused(provider: str) -> None:
    """A tool result whose call was trimmed away and two user messages in a row: the history is normalized
    alone, once, and every step is still the fresh request (a repair of the whole)."""
    orphan = BaseMessage(role="tool", tool_reses=[ToolReturn(call_id="gone", name="weather", result="?")], msg_id="o")
    history = [orphan, TextMessage(content="one", msg_id="u1"), TextMessage(content="two", msg_id="u2")]
    builder = _llm(provider).request_builder(TextMessage(content="Go.", msg_id="q"), history)
    _loop(builder, [_step(0), _step(1), _step(2)])
    assert (builder.reused, builder.fresh) == (3, 0)


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_step_naming_a_call_id_of_a_repaired_history_is_built_fresh(provider: str) -> None:
    """A repair of the whole request renames a call id a later turn reuses (providers that number calls per
    reply): a step calling under an id the repaired history used is built fresh, and is the fresh request."""
    calls = [ToolCall(id="call_0_a", name="weather", arguments="{}")]
    history = [
        TextMessage(content="one", msg_id="u1"),
        AssistantTextMessage(tool_calls=calls, msg_id="a1"),  # no result: the repair answers it
        TextMessage(content="two", msg_id="u2"),
    ]
    builder = _llm(provider).request_builder(TextMessage(content="Go.", msg_id="q"), history)
    _loop(builder, [_step(0), _step(1)])
    assert (builder.reused, builder.fresh) == (1, 1)


@pytest.mark.parametrize(
    "intruder",
    [
        TextMessage(content="A user turn inside the chain's messages.", msg_id="u-in-chain"),
        BaseMessage(role="system", content="A system note mid-turn.", msg_id="sys-in-chain"),
        TextMessage(content="The question again, under its id.", msg_id="q"),
    ],
    ids=["user", "system", "same-id"],
)
@pytest.mark.parametrize("provider", ["openai", "anthropic", "gemini"])
def test_turn_messages_a_cut_cannot_take_are_built_fresh(provider: str, intruder: BaseMessage) -> None:
    """A user or system message among the chain's messages (reasoning replay and turn merging look across the
    cut then), or one with the id of a history message (a fresh build drops it): built fresh from there on."""
    builder = _llm(provider).request_builder(TextMessage(content="Go.", msg_id="q"), [])
    _loop(builder, [_step(0), [intruder], _step(1)])
    assert (builder.reused, builder.fresh) == (2, 1)


def test_a_message_that_cannot_be_sent_fails_as_in_a_fresh_build() -> None:
    """A tool result carrying audio without `detail` text, which Anthropic cannot take: the error names the
    part by its place in the whole request, as the fresh build's does."""
    builder = _llm("anthropic").request_builder(TextMessage(content="Go.", msg_id="q"), [TextMessage(content="hi")])
    reply, _ = _step(0)
    audio = AudioUserMsgPart(data=WAV, media_type="audio/wav")
    returns = [
        ToolReturn(call_id=c.id, name="weather", result="18C", attachments=[audio]) for c in reply.tool_calls or ()
    ]
    chain = [reply, BaseMessage(role="tool", tool_reses=returns, msg_id="r")]
    with pytest.raises(UnsupportedContentError) as built:
        builder.build(chain)
    with pytest.raises(UnsupportedContentError) as fresh:
        builder.llm.construct_request_params(builder.current_input, builder.conversation, intermediate_msgs=chain)
    assert str(built.value) == str(fresh.value)
    assert "messages[4]" in str(built.value)  # (its place among the chain messages is 2)


# ----------------------------------------------------------------------------------- random histories
_TEXT = st.sampled_from(["hi", "the weather?", " ", "", "ok", "18C"])


@st.composite
def _history(draw: st.DrawFn) -> list[BaseMessage]:
    """A random history: user turns (some with an image), replies (some with calls and their results, some
    results missing, misplaced or with images), console output, system messages; ids sometimes repeated."""
    msgs: list[BaseMessage] = []
    for n in range(draw(st.integers(0, 10))):
        kind = draw(st.sampled_from(["user", "image", "reply", "calls", "console", "system"]))
        msg_id = draw(st.sampled_from([f"m{n}", f"m{n}", f"m{n}", "dup"]))
        if kind == "user":
            msgs.append(TextMessage(content=draw(_TEXT) or "x", msg_id=msg_id))
        elif kind == "image":
            msgs.append(ImageMessage(content=image(), msg_id=msg_id))
        elif kind == "reply":
            msgs.append(AssistantTextMessage(content=draw(_TEXT), reasoning_content="r", msg_id=msg_id))
        elif kind == "calls":
            ids = draw(st.lists(st.sampled_from(["c1", "c2", f"c{n}", f"d{n}"]), min_size=1, max_size=2, unique=True))
            calls = [ToolCall(id=c, name="weather", arguments="{}") for c in ids]
            msgs.append(AssistantTextMessage(tool_calls=calls, msg_id=msg_id))
            answered = draw(st.lists(st.sampled_from(ids), max_size=2, unique=True))
            if answered:
                returns = [
                    ToolReturn(
                        call_id=c, name="weather", result="18C", attachments=[image()] if draw(st.booleans()) else []
                    )
                    for c in answered
                ]
                msgs.append(BaseMessage(role="tool", tool_reses=returns, msg_id=f"{msg_id}-r"))
        elif kind == "console":
            msgs.append(BaseMessage(role="console", console_reses=[ConsoleResult(result=draw(_TEXT))], msg_id=msg_id))
        else:
            msgs.append(BaseMessage(role="system", content=draw(_TEXT) or "be brief", msg_id=msg_id))
    return msgs


_STEP_IDS = st.lists(st.sampled_from(["c1", "c2", "c1_2", "x", "y"]), min_size=2, max_size=2, unique=True)
_VARIANTS = [
    *((provider, {}) for provider in PROVIDERS),
    ("openai", {"model": "deepseek-chat"}),  # `tool_turns` replay, by its profile
    ("zhipu", {"reasoning_replay": "tool_turns"}),
    ("doubao", {"reasoning_replay": "always"}),
]


@st.composite
def _steps(draw: st.DrawFn) -> list[list[BaseMessage]]:
    """A turn's steps, each built after: calls under ids of their own or under ids the history may use too
    (some repeated across steps), a reply with a script and no calls, the console output of a step appended
    after its request was built, replies of models whose reasoning some providers get back."""
    builds: list[list[BaseMessage]] = []
    for i in range(draw(st.integers(1, 4))):
        ids = draw(st.one_of(st.none(), _STEP_IDS))
        model = draw(st.sampled_from(["zhipu:glm-4.6", "openai:deepseek-chat", "doubao:seed", "anthropic:c"]))
        step = _step(i, ids=(ids[0], ids[1]) if ids else None, calls=draw(st.booleans()), model=model)
        split = len(step) == 3 and draw(st.booleans())
        builds += [step[:2], step[2:]] if split else [step]
    return builds


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(history=_history(), steps=_steps(), variant=st.sampled_from(_VARIANTS))
def test_random_histories_every_step_is_the_fresh_request(
    history: list[BaseMessage], steps: list[list[BaseMessage]], variant: tuple[str, dict[str, Any]]
) -> None:
    provider, llm_settings = variant
    llm = create_llm(provider, **llm_settings)
    builder = llm.request_builder(TextMessage(content="Go.", msg_id="q"), history)
    error = _fresh_error(builder)
    if error is not None:  # a history no request can be built of fails as the fresh build does
        with pytest.raises(type(error)):
            builder.build([], TOOLS)
        return
    _loop(builder, steps)


def _fresh_error(builder: RequestBuilder) -> Exception | None:
    """The error a fresh build of the first step raises, if any."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            builder.llm.construct_request_params(builder.current_input, builder.conversation, TOOLS)
        except Exception as exc:
            return exc
    return None

"""The shared normalization pass: each repair, each clear failure, and idempotency."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.brain.chain.llms.conftest import conversation, current_turn
from tfrobot.brain.chain.llms import InvalidConversationError, OpenAIChat, normalize
from tfrobot.brain.chain.llms.normalize import EMPTY_CONSOLE, MISSING_RESULT, normalize_request, repair
from tfrobot.schema.message import (
    LLMAssistantMessage,
    LLMFunctionMessage,
    LLMMessage,
    LLMRequestMessages,
    LLMSystemMessage,
    LLMTFLMessage,
    LLMToolMessage,
    LLMUserMessage,
    ServerToolBlock,
    TextUserMsgPart,
    ToolCall,
)


def call(*ids: str) -> LLMAssistantMessage:
    return LLMAssistantMessage(tool_calls=[ToolCall(id=i, name="weather") for i in ids])


def test_results_move_right_after_their_call_in_call_order_with_names_filled() -> None:
    msgs = [
        LLMUserMessage(content="q"),
        call("a", "b"),
        LLMUserMessage(content=[TextUserMsgPart(text="media")], attachment_of="a"),
        LLMToolMessage(tool_call_id="b", content="B"),
        LLMUserMessage(content="next"),
        LLMToolMessage(tool_call_id="a", content="A"),
    ]
    out = normalize(msgs)
    assert [type(m) for m in out] == [
        LLMUserMessage,
        LLMAssistantMessage,
        LLMToolMessage,
        LLMToolMessage,
        LLMUserMessage,
        LLMUserMessage,
    ]
    assert [(m.tool_call_id, m.name) for m in out if isinstance(m, LLMToolMessage)] == [
        ("a", "weather"),
        ("b", "weather"),
    ]
    assert out[4] == LLMUserMessage(content=[TextUserMsgPart(text="media")], attachment_of="a")


def test_a_call_without_result_gets_an_error_result() -> None:
    out = normalize([LLMUserMessage(content="q"), call("a")])
    assert out[-1] == LLMToolMessage(tool_call_id="a", name="weather", content=MISSING_RESULT, is_error=True)


def test_an_orphan_result_becomes_user_text_with_its_content() -> None:
    out = normalize([LLMUserMessage(content="q"), LLMToolMessage(tool_call_id="gone", name="weather", content="18C")])
    assert len(out) == 1
    assert type(out[0]) is LLMUserMessage
    assert isinstance(out[0].content, list)
    texts = [p.text for p in out[0].content if isinstance(p, TextUserMsgPart)]
    assert "call gone" in texts[1]
    assert texts[1].endswith("\n18C")


def test_identical_duplicates_are_kept_once() -> None:
    result = LLMToolMessage(tool_call_id="a", name="weather", content="A")
    out = normalize([LLMUserMessage(content="q"), call("a"), result, call("a"), result])
    assert out == [LLMUserMessage(content="q"), call("a"), result]


def test_two_different_results_for_one_call_fail_clearly() -> None:
    with pytest.raises(InvalidConversationError, match=r"messages\[3\]: a second, different result for tool call 'a'"):
        normalize(
            [
                LLMUserMessage(content="q"),
                call("a"),
                LLMToolMessage(tool_call_id="a", content="A"),
                LLMToolMessage(tool_call_id="a", content="other"),
            ]
        )


def test_one_call_id_in_two_different_calls_fails_clearly() -> None:
    other = LLMAssistantMessage(content="again", tool_calls=[ToolCall(id="a", name="weather")])
    with pytest.raises(
        InvalidConversationError, match=r"tool call id 'a' \(weather\) was already used by messages\[1\]"
    ):
        normalize([LLMUserMessage(content="q"), call("a"), LLMToolMessage(tool_call_id="a", content="A"), other])


def test_a_call_id_reused_by_a_later_turn_is_a_new_call_with_a_fresh_id() -> None:
    # providers that number calls per reply answer `call_0` in every turn; the same question twice even
    # gives an identical assistant message: it is the new turn's call, not a duplicate to drop
    first, second = (
        LLMToolMessage(tool_call_id="call_0", content="18C"),
        LLMToolMessage(tool_call_id="call_0", content="19C"),
    )
    carrier = LLMUserMessage(content=[TextUserMsgPart(text="chart")], attachment_of="call_0")
    msgs: list[LLMMessage] = [
        LLMUserMessage(content="weather?"),
        call("call_0"),
        first,
        LLMAssistantMessage(content="18C"),
        LLMUserMessage(content="weather?"),
        call("call_0"),
        second,
        carrier,
        LLMAssistantMessage(content="19C"),
    ]
    out = normalize(msgs)
    assert [m.tool_calls[0].id for m in out if isinstance(m, LLMAssistantMessage) and m.tool_calls] == [
        "call_0",
        "call_0_2",
    ]
    assert [(m.tool_call_id, m.content) for m in out if isinstance(m, LLMToolMessage)] == [
        ("call_0", "18C"),
        ("call_0_2", "19C"),
    ]
    assert out[7] == LLMUserMessage(content=[TextUserMsgPart(text="chart")], attachment_of="call_0_2")
    assert len(out) == len(msgs)
    assert normalize(out) == out
    assert [type(m) for m in msgs] == [type(m) for m in out]


def test_a_fresh_id_does_not_take_an_id_used_elsewhere() -> None:
    msgs: list[LLMMessage] = [
        LLMUserMessage(content="q"),
        call("a"),
        LLMToolMessage(tool_call_id="a", content="1"),
        LLMUserMessage(content="q"),
        call("a_2"),
        LLMToolMessage(tool_call_id="a_2", content="2"),
        LLMUserMessage(content="q"),
        call("a"),
        LLMToolMessage(tool_call_id="a", content="3"),
    ]
    out = normalize(msgs)
    assert [m.tool_call_id for m in out if isinstance(m, LLMToolMessage)] == ["a", "a_2", "a_3"]


def test_empty_text_is_repaired_and_same_role_turns_merge() -> None:
    out = normalize(
        [
            LLMSystemMessage(content=" "),
            LLMUserMessage(content=[TextUserMsgPart(text=""), TextUserMsgPart(text="hi")]),
            LLMAssistantMessage(content="  "),
            LLMUserMessage(content="again"),
            LLMTFLMessage(content=""),
            LLMAssistantMessage(content="one"),
            LLMAssistantMessage(content="two", tool_calls=[ToolCall(id="c", name="f")]),
            LLMToolMessage(tool_call_id="c", content="done"),
        ]
    )
    assert out == [
        LLMUserMessage(content=[TextUserMsgPart(text="hi"), TextUserMsgPart(text="again")]),
        LLMTFLMessage(content=EMPTY_CONSOLE),
        LLMAssistantMessage(content="one\n\ntwo", tool_calls=[ToolCall(id="c", name="f")]),
        LLMToolMessage(tool_call_id="c", name="f", content="done"),
    ]


def test_normalization_is_idempotent_on_the_full_conversation(media_root: Path) -> None:
    turn, chain = current_turn()
    chat = OpenAIChat(media_roots=(media_root,))
    ctx = chat.construct_prompt_context(turn, conversation(media_root), chain)
    once = normalize(chat.format_to_request_msgs(ctx).to_list())
    assert normalize(once) == once


# ------------------------------------------------------------------------------------------------ fast path
IDS = ["a", "b", "c"]
_text = st.sampled_from(["q", "", " ", "hello"])
_users = st.builds(
    LLMUserMessage,
    content=st.one_of(_text, st.lists(st.builds(TextUserMsgPart, text=_text), max_size=2)),
    name=st.sampled_from([None, "ann"]),
    attachment_of=st.sampled_from([None, None, "a", "b", "console-1"]),
)
_assistants = st.builds(
    LLMAssistantMessage,
    content=st.sampled_from([None, "", " ", "answer"]),
    tool_calls=st.lists(
        st.builds(ToolCall, id=st.sampled_from(IDS), name=st.just("f")), max_size=2, unique_by=lambda c: c.id
    ),
    reasoning_content=st.sampled_from([None, "why"]),
    refusal=st.sampled_from([None, None, "I can't help with that."]),
    server_tool_blocks=st.sampled_from(
        [(), (), (ServerToolBlock(provider="anthropic", block={"type": "server_tool_use", "id": "s1"}, text_offset=3),)]
    ),
)
_results = st.builds(
    LLMToolMessage,
    tool_call_id=st.sampled_from([*IDS, "gone"]),
    content=st.sampled_from(["A", "B"]),
    name=st.sampled_from([None, "f"]),
)
_messages = st.lists(
    st.one_of(
        _users,
        _assistants,
        _results,
        st.builds(LLMSystemMessage, content=_text),
        st.builds(LLMTFLMessage, content=_text),
        st.builds(LLMFunctionMessage, name=st.just("f"), content=_text),
    ),
    max_size=10,
)


@st.composite
def _conversations(draw: st.DrawFn) -> list[LLMMessage]:
    """Mostly well-formed conversations (tool loops with results and carriers), then a few perturbations:
    random sequences are almost never well formed, and the shortcut must be exercised on both sides."""
    msgs: list[LLMMessage] = []
    fresh = iter(["a", "b", *(f"c{n}" for n in range(30))])  # "a", "b": ids that carriers of _users name
    for turn in range(draw(st.integers(0, 4))):
        msgs.append(draw(_users) if draw(st.booleans()) else LLMUserMessage(content=f"q{turn}"))
        for _step in range(draw(st.integers(0, 2))):
            ids = [next(fresh) for _ in range(draw(st.integers(1, 3)))]
            msgs.append(LLMAssistantMessage(content=draw(st.sampled_from([None, "thinking"])), tool_calls=[
                ToolCall(id=i, name="f") for i in ids
            ]))  # fmt: skip
            name = draw(st.sampled_from(["f", "f", None]))
            msgs.extend(LLMToolMessage(tool_call_id=i, name=name, content=f"r {i}") for i in ids)
            for i in draw(st.permutations(ids)) if draw(st.integers(0, 3)) == 0 else ids:
                for n in range(draw(st.integers(0, 3))):
                    text = draw(st.sampled_from([f"m{n}", "same"]))
                    name = draw(st.sampled_from([None, None, "ann", "bob"]))
                    msgs.append(LLMUserMessage(content=[TextUserMsgPart(text=text)], attachment_of=i, name=name))
        if draw(st.booleans()):
            msgs.append(LLMTFLMessage(content="out"))
        msgs.append(LLMAssistantMessage(content=f"a{turn}"))
    for _ in range(draw(st.integers(0, 2))):
        if not msgs:
            break
        i, j = draw(st.integers(0, len(msgs) - 1)), draw(st.integers(0, len(msgs) - 1))
        match draw(st.sampled_from(["swap", "drop", "copy", "cut", "other"])):
            case "cut":
                del msgs[i:]
            case "swap":
                msgs[i], msgs[j] = msgs[j], msgs[i]
            case "drop":
                del msgs[i]
            case "copy":
                msgs.insert(j, msgs[i])
            case _:
                msgs.insert(j, draw(_messages.filter(bool))[0])
    return msgs


def _outcome(fn: Callable[[Any], list[LLMMessage]], msgs: Any) -> object:
    try:
        return fn(msgs)
    except InvalidConversationError as exc:
        return str(exc)


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None)
@given(st.one_of(_messages, _conversations(), _conversations()))
def test_the_well_formed_shortcut_returns_what_the_repair_pass_returns(msgs: list[LLMMessage]) -> None:
    assert _outcome(normalize, msgs) == _outcome(repair, msgs)
    repaired = _outcome(repair, msgs)
    if isinstance(repaired, list):
        assert normalize(repaired) == repaired
        assert all(a is b for a, b in zip(normalize(repaired), repaired, strict=True))


def test_a_well_formed_conversation_comes_back_as_the_same_messages() -> None:
    msgs: list[LLMMessage] = [
        LLMSystemMessage(content="s"),
        LLMUserMessage(content="q"),
        call("a", "b"),
        LLMToolMessage(tool_call_id="a", name="weather", content="A"),
        LLMToolMessage(tool_call_id="b", name="weather", content="B"),
        LLMUserMessage(content=[TextUserMsgPart(text="media a")], attachment_of="a"),
        LLMUserMessage(content=[TextUserMsgPart(text="media b")], attachment_of="b"),
        LLMAssistantMessage(content="done"),
        LLMTFLMessage(content="printed"),
        LLMUserMessage(content=[TextUserMsgPart(text="console media")], attachment_of="console-1"),
    ]
    out = normalize(msgs)
    assert out == repair(msgs)
    assert out is not msgs
    assert all(a is b for a, b in zip(out, msgs, strict=True))


def test_a_repeated_carrier_between_different_ones_is_kept_once() -> None:
    media = LLMUserMessage(content=[TextUserMsgPart(text="chart")], attachment_of="a", name="ann")
    other = LLMUserMessage(content=[TextUserMsgPart(text="table")], attachment_of="a")
    msgs: list[LLMMessage] = [
        LLMUserMessage(content="q"),
        call("a"),
        LLMToolMessage(tool_call_id="a", name="weather", content="A"),
        media,
        other,
        media,
    ]
    assert normalize(msgs) == repair(msgs) == msgs[:5]


_NEIGHBOURS = [
    [LLMSystemMessage(content="s1"), LLMSystemMessage(content="s2")],
    [LLMUserMessage(content="u1"), LLMUserMessage(content="u2")],
    [LLMUserMessage(content="u1", name="ann"), LLMUserMessage(content="u2")],
    [LLMSystemMessage(content="s")],
]


@st.composite
def _entries(draw: st.DrawFn) -> list[LLMMessage | list[LLMMessage]]:
    """A conversation as `format_to_request_msgs` hands it on (some messages alone, some in lists), with
    neighbours that `to_list` merges, and some that it must not, mixed in."""
    msgs = draw(st.one_of(_messages, _conversations()))
    for _ in range(draw(st.integers(0, 2))):
        at = draw(st.integers(0, len(msgs)))
        msgs[at:at] = draw(st.sampled_from(_NEIGHBOURS))
    entries: list[LLMMessage | list[LLMMessage]] = []
    while msgs:
        size = draw(st.integers(1, 3))
        group, msgs = msgs[:size], msgs[size:]
        entries.append(group if len(group) > 1 or draw(st.booleans()) else group[0])
    return entries


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None)
@given(_entries())
def test_normalize_request_is_normalize_of_to_list(entries: list[LLMMessage | list[LLMMessage]]) -> None:
    request = LLMRequestMessages.model_construct(entries)
    assert _outcome(normalize_request, request) == _outcome(lambda r: normalize(r.to_list()), request)


def test_normalize_request_returns_well_formed_entries_themselves_flattened() -> None:
    result = LLMToolMessage(tool_call_id="a", name="weather", content="A")
    entries: list[LLMMessage | list[LLMMessage]] = [LLMSystemMessage(content="s"), LLMUserMessage(content="q")]
    entries += [call("a"), [result], LLMAssistantMessage(content="done")]
    request = LLMRequestMessages.model_construct(entries)
    out = normalize_request(request)
    assert all(a is b for a, b in zip(out, request.flat(), strict=True))


def test_neighbouring_system_messages_are_merged_by_normalize_request() -> None:
    request = LLMRequestMessages.model_construct([LLMSystemMessage(content="a"), [LLMSystemMessage(content="b")]])
    assert normalize_request(request) == [LLMSystemMessage(content="a\n\nb")]


@dataclass(slots=True)
class _QuotedUserMessage(LLMUserMessage):
    """A subclass of a neutral kind, as an application might define."""


def test_a_subclass_of_a_kind_is_normalized_as_its_kind() -> None:
    """The well-formed scan knows kinds by exact class: a subclass goes through the repair pass instead."""
    msgs: list[LLMMessage] = [_QuotedUserMessage(content="q"), LLMAssistantMessage(content="a")]
    assert normalize(msgs) == repair(msgs) == msgs
    assert OpenAIChat().reformat_request_msg_to_api(normalize(msgs), {})[0] == {"role": "user", "content": "q"}


def test_a_refusal_or_server_side_blocks_alone_are_a_reply_not_an_empty_message() -> None:
    """Regression (#14, defect 3): a refused turn (no text, a `refusal`) was dropped as an empty reply."""
    block = ServerToolBlock(provider="anthropic", block={"type": "server_tool_use", "id": "s1", "name": "web_search"})
    msgs: list[LLMMessage] = [
        LLMUserMessage(content="q1"),
        LLMAssistantMessage(refusal="I can't help with that."),
        LLMUserMessage(content="q2"),
        LLMAssistantMessage(server_tool_blocks=(block,)),
    ]
    assert normalize(msgs) == msgs
    assert repair(msgs) == msgs


def test_merged_assistant_messages_keep_their_server_side_blocks_where_their_text_was() -> None:
    first = ServerToolBlock(provider="anthropic", block={"type": "server_tool_use", "id": "s1"}, text_offset=3)
    second = ServerToolBlock(provider="anthropic", block={"type": "server_tool_use", "id": "s2"}, text_offset=2)
    merged = repair(
        [
            LLMUserMessage(content="q"),
            LLMAssistantMessage(content="one", server_tool_blocks=(first,), refusal="no"),
            LLMAssistantMessage(content="two", server_tool_blocks=(second,)),
        ]
    )[1]
    assert isinstance(merged, LLMAssistantMessage)
    assert merged.content == "one\n\ntwo"
    assert [(b.block["id"], b.text_offset) for b in merged.server_tool_blocks] == [("s1", 3), ("s2", 7)]
    assert merged.content[: merged.server_tool_blocks[1].text_offset] == "one\n\ntw"
    assert merged.refusal == "no"

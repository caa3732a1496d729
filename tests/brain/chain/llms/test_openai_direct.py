"""OpenAI-shaped providers convert the usual conversation in one walk (`_direct_request`): the request must be
the one phases 3-5 build one after the other, for every conversation, whether the walk takes it or leaves it
to the phases; and the walk must take the usual ones (else the speed is lost, silently)."""

from __future__ import annotations

import mimetypes
import warnings
from typing import Any

import pytest
from pydantic import AnyUrl

from tfrobot.brain.chain.llms import ChatLLM, ModalityDegradedWarning, OpenAIChat, create_llm
from tfrobot.brain.chain.llms.media import _guessed_type
from tfrobot.brain.chain.llms.normalize import normalize_request
from tfrobot.schema.message import (
    AssistantRefusalMessage,
    AssistantTextMessage,
    AudioUserMsgPart,
    BaseMessage,
    ConsoleResult,
    ImageMessage,
    ImageUserMsgPart,
    MultiPartMessage,
    TextMessage,
    TextUserMsgPart,
    ToolCall,
    ToolReturn,
    UrlMessage,
)
from tfrobot.schema.users import BaseUser

LLMS: dict[str, dict[str, Any]] = {
    "openai": {},
    "openai-always": {"reasoning_replay": "always"},
    "openai-tool-turns": {"reasoning_replay": "tool_turns"},
    "doubao": {},  # (its default replay: the running tool loop)
    "zhipu": {},  # (no user names; video by URL)
}


def _llm(name: str) -> ChatLLM:
    return create_llm(name.split("-")[0], **LLMS[name])


def _turn(i: int, *, model: str = "doubao:doubao-seed-1-6", error: bool = False) -> list[BaseMessage]:
    """A user question with its trace (a reasoning reply with two calls, their results), and the answer."""
    user = TextMessage(content=f"question {i}", create_ts=100 * i, msg_id=f"q{i}")
    call = AssistantTextMessage(
        reasoning_content=f"thinking {i}",
        tool_calls=[ToolCall(id=f"c{i}a", name="drive.weather", arguments="{}"), ToolCall(id=f"c{i}b", name="w")],
        model=model,
        create_ts=100 * i + 1,
        msg_id=f"r{i}",
    )
    results = [
        BaseMessage(
            role="tool",
            tool_reses=[ToolReturn(call_id=f"c{i}{k}", name="w", result=f"result {k}", is_error=error and k == "b")],
            create_ts=100 * i + 2,
            msg_id=f"t{i}{k}",
        )
        for k in "ab"
    ]
    for record in (call, *results):
        user.intermediate_trace.append(record)
    answer = AssistantTextMessage(content=f"answer {i}", model=model, create_ts=100 * i + 5, msg_id=f"a{i}")
    return [user, answer]


def _usual() -> list[BaseMessage]:
    return [
        BaseMessage(role="system", content="You are TFRobot.", msg_id="sys"),
        *_turn(1),
        *_turn(2, model="openai:gpt-4o", error=True),
        ImageMessage(
            content=ImageUserMsgPart(url=AnyUrl("https://example.com/trip.JPG"), detail="a photo"), msg_id="img"
        ),
        AssistantTextMessage(content="Nice photo.", msg_id="ack"),
        TextMessage(content="from Ann", creator=BaseUser(uid="u1", name="Ann Lee"), msg_id="ann"),
        AssistantTextMessage(content="Hello Ann.", msg_id="hi"),
        MultiPartMessage(
            content=[TextUserMsgPart(text="and this"), ImageUserMsgPart(url=AnyUrl("https://example.com/a.png"))],
            msg_id="mp",
        ),
        AssistantTextMessage(content="Seen.", msg_id="seen"),
        UrlMessage(content=AnyUrl("https://example.com/post"), title="A post", msg_id="url"),
        AssistantTextMessage(content="Read.", msg_id="read"),
        *_turn(3),
    ]


def _running() -> tuple[TextMessage, list[BaseMessage]]:
    """The current input and the chain's messages so far: a reasoning reply with a call, and its result."""
    current = TextMessage(content="and now?", create_ts=10_000, msg_id="now")
    call = AssistantTextMessage(
        reasoning_content="one more call",
        tool_calls=[ToolCall(id="c9", name="w")],
        model="doubao:doubao-seed-1-6",
        create_ts=10_001,
        msg_id="r9",
    )
    result = BaseMessage(role="tool", tool_reses=[ToolReturn(call_id="c9", name="w", result="ok")], msg_id="t9")
    return current, [call, result]


def _phases(llm: ChatLLM, current: BaseMessage, history: list[BaseMessage], turn: list[BaseMessage]) -> Any:
    """The request built by phases 3-5 one after the other (what the walk must equal)."""
    ctx = llm.construct_prompt_context(current, history, turn)
    params = llm._configure_api_params(ctx, {})
    api_msgs = llm.reformat_request_msg_to_api(normalize_request(llm.format_to_request_msgs(ctx)), params)
    return llm._assemble_api_request(params, api_msgs, None)


def _walked(llm: ChatLLM, current: BaseMessage, history: list[BaseMessage], turn: list[BaseMessage]) -> bool:
    """Whether the one walk converts this conversation (rather than leaving it to the phases)."""
    return llm._direct_request(current, history, turn, {}) is not None


@pytest.mark.parametrize("name", sorted(LLMS))
def test_the_usual_conversation_is_walked_once_into_the_phases_request(name: str) -> None:
    llm = _llm(name)
    current, turn = _running()
    history = _usual()
    assert _walked(llm, current, history, turn) is (name != "openai-tool-turns")
    request = llm.construct_request_params(current, history, intermediate_msgs=turn)
    assert request == _phases(llm, current, history, turn)
    assert request["messages"][-3]["role"] == "user"  # (the current input, then the running step)


def test_the_walk_replays_reasoning_as_the_mode_says() -> None:
    current, turn = _running()
    sent: dict[str, list[Any]] = {}
    for name in ("openai", "openai-always", "doubao"):
        request = _llm(name).construct_request_params(current, _usual(), intermediate_msgs=turn)
        sent[name] = [m.get("reasoning_content") for m in request["messages"] if m["role"] == "assistant"]
    assert sent["openai"] == [None] * 11
    assert sent["openai-always"] == [None, None, "thinking 2", *[None] * 8]  # (only OpenAI's own)
    assert sent["doubao"] == [*[None] * 10, "one more call"]  # (the running tool loop's)


BREAKERS: dict[str, list[BaseMessage]] = {
    "console output": [
        AssistantTextMessage(content="", tfl_scripts=["print(1)"], msg_id="x1"),
        BaseMessage(role="console", console_reses=[ConsoleResult(result="1")], msg_id="x2"),
    ],
    "a result with an image": [
        AssistantTextMessage(tool_calls=[ToolCall(id="m1", name="w")], msg_id="x1"),
        BaseMessage(
            role="tool",
            tool_reses=[
                ToolReturn(call_id="m1", name="w", attachments=[ImageUserMsgPart(url=AnyUrl("https://e.com/i.png"))])
            ],
            msg_id="x2",
        ),
    ],
    "a missing result": [AssistantTextMessage(tool_calls=[ToolCall(id="m1", name="w")], msg_id="x1")],
    "results out of order": [
        AssistantTextMessage(tool_calls=[ToolCall(id="m1", name="w"), ToolCall(id="m2", name="w")], msg_id="x1"),
        BaseMessage(role="tool", tool_reses=[ToolReturn(call_id="m2", name="w")], msg_id="x2"),
        BaseMessage(role="tool", tool_reses=[ToolReturn(call_id="m1", name="w")], msg_id="x3"),
    ],
    "a result without its tool's name": [
        AssistantTextMessage(tool_calls=[ToolCall(id="m1", name="w")], msg_id="x1"),
        BaseMessage(role="tool", tool_reses=[ToolReturn(call_id="m1")], msg_id="x2"),
    ],
    "a call id used before": [
        AssistantTextMessage(tool_calls=[ToolCall(id="c1a", name="w")], msg_id="x1"),
        BaseMessage(role="tool", tool_reses=[ToolReturn(call_id="c1a", name="w")], msg_id="x2"),
    ],
    "two replies in a row": [
        AssistantTextMessage(content="one", msg_id="x1"),
        AssistantTextMessage(content="two", msg_id="x2"),
    ],
    "a blank reply": [AssistantTextMessage(content="  ", msg_id="x1")],
    "reasoning alone": [AssistantTextMessage(reasoning_content="hm", model="doubao:x", msg_id="x1")],
    "a refusal": [AssistantRefusalMessage(refusal="no", msg_id="x1")],
    "two user texts": [TextMessage(content="more", msg_id="x1")],
    "a blank user text": [AssistantTextMessage(content="ok", msg_id="x1"), TextMessage(content=" ", msg_id="x2")],
    "two system messages": [
        BaseMessage(role="system", content="a", msg_id="x1"),
        BaseMessage(role="system", content="b", msg_id="x2"),
    ],
}


@pytest.mark.parametrize("name", sorted(LLMS))
@pytest.mark.parametrize("case", sorted(BREAKERS))
def test_what_the_walk_does_not_prove_is_left_to_the_phases(name: str, case: str) -> None:
    """Each case breaks a rule the walk checks (or holds a kind it leaves alone): the phases build the request
    (repairing it), and the result, or the error, is theirs."""
    llm = _llm(name)
    current = TextMessage(content="go on", msg_id="now", create_ts=10_000)
    history = _usual()
    turn = BREAKERS[case]
    assert not _walked(llm, current, history, turn)
    try:
        expected: Any = _phases(llm, current, history, turn)
    except Exception as exc:  # (the error must be the phases' own, whatever it is)
        expected = repr(exc)
    try:
        got: Any = llm.construct_request_params(current, history, intermediate_msgs=turn)
    except Exception as exc:
        got = repr(exc)
    assert got == expected


def test_degraded_media_is_warned_about_once() -> None:
    """Zhipu takes no audio: the part goes as its `detail` text, with one warning (the walk resolves media
    only once it has proven the conversation, so a conversation it leaves to the phases is not warned twice)."""
    voice = MultiPartMessage(
        content=[AudioUserMsgPart(url=AnyUrl("https://example.com/v.wav"), detail="a voice note")], msg_id="voice"
    )
    for turn in ([], BREAKERS["console output"]):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            create_llm("zhipu").construct_request_params(voice, _usual(), intermediate_msgs=turn)
        assert [type(w.message) for w in caught] == [ModalityDegradedWarning]


def test_a_subclass_that_converts_its_own_way_is_not_walked() -> None:
    class Shouting(OpenAIChat):
        provider = "shouting-test"

        def _assistant(self, msg: Any, replay: bool, request: Any) -> dict[str, Any] | None:
            out = super()._assistant(msg, replay, request)
            return None if out is None else {**out, "content": (out["content"] or "").upper()}

    llm = Shouting()
    current, turn = _running()
    assert not _walked(llm, current, _usual(), turn)
    request = llm.construct_request_params(current, _usual(), intermediate_msgs=turn)
    assert request["messages"][5]["content"] == "ANSWER 1"  # (system, question 1, its call and results, answer 1)


@pytest.mark.parametrize(
    "name",
    ["a.jpg", "/trips/0009/itinerary.JPG", "x.png", "a.tar.gz", "a.tgz", "a.svgz", "noext", "", ".bashrc", "a.",
     "data:image/gif;base64,R0lG", "a.unknown-suffix", "dir.d/file"],
)  # fmt: skip
def test_media_types_looked_up_by_suffix_are_mimetypes_own(name: str) -> None:
    """`media.py` guesses a URL's type once per suffix: the answer is still `mimetypes.guess_type`'s."""
    assert _guessed_type(name) == mimetypes.guess_type(name)[0]

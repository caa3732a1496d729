"""Property: any message tree survives any container, through JSON and through dicts, as itself."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from tfrobot.schema.message import (
    AssistantTextMessage,
    AttachmentMessage,
    AudioMessage,
    AudioUserMsgPart,
    BaseMessage,
    BaseUser,
    ConsoleResult,
    ContactMessage,
    FileUserMsgPart,
    FunctionReturn,
    HistoryMessage,
    ImageMessage,
    ImageUserMsgPart,
    Message,
    MsgPart,
    MultiPartMessage,
    ReasoningBlock,
    TextMessage,
    TextUserMsgPart,
    ToolCall,
    ToolReturn,
    UrlMessage,
    UserMessage,
    VideoMessage,
    VideoUserMsgPart,
)

text = st.text(max_size=20)
ident = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789_", min_size=1, max_size=8)
ts = st.integers(min_value=0, max_value=2**41)
meta = st.dictionaries(ident, st.one_of(st.integers(), text, st.booleans(), st.none()), max_size=2)


def _media(cls: type[Any]) -> st.SearchStrategy[Any]:
    source = st.one_of(
        st.builds(lambda u: {"url": f"https://example.com/{u}"}, ident),
        st.builds(lambda p: {"path": f"/media/{p}"}, ident),
        st.builds(lambda b: {"data": b, "media_type": "application/octet-stream"}, st.binary(max_size=16)),
    )
    return st.builds(lambda s, d: cls(**s, detail=d), source, text)


images = _media(ImageUserMsgPart)
parts: st.SearchStrategy[MsgPart] = st.one_of(
    st.builds(TextUserMsgPart, text=text),
    images,
    _media(AudioUserMsgPart),
    _media(VideoUserMsgPart),
    _media(FileUserMsgPart),
)
common = {"create_ts": ts, "additional_kwargs": meta, "msg_id": ident}
user = {"role": st.just("user")}
"""Hypothesis (6.170) may fill a field that has a default from the base class's annotation (`role`: any
role), which the subclass's literal refuses: the user kinds are given theirs."""

assistants = st.builds(
    AssistantTextMessage,
    role=st.just("assistant"),
    content=text,
    reasoning_content=st.none() | text,
    reasoning_blocks=st.lists(st.builds(ReasoningBlock, text=text, signature=st.none() | ident), max_size=2),
    tool_calls=st.none() | st.lists(st.builds(ToolCall, id=ident, name=ident, arguments=text), max_size=3),
    tfl_scripts=st.none() | st.lists(text, max_size=2),
    **common,
)


def _reasoning_reply(reasoning: str, signature: str, others: list[ReasoningBlock], at: int, **fields: Any) -> Any:
    """A reply as Anthropic's and Gemini's adapters build it: one thinking block holds all of
    `reasoning_content` (stored once), among blocks without text (redacted, signature only)."""
    blocks = [*others]
    blocks.insert(min(at, len(blocks)), ReasoningBlock(text=reasoning, signature=signature, provider="anthropic"))
    return AssistantTextMessage(reasoning_content=reasoning, reasoning_blocks=blocks, **fields)


textless_blocks = st.lists(
    st.one_of(
        st.builds(ReasoningBlock, type=st.just("redacted_thinking"), data=ident),
        st.builds(ReasoningBlock, signature=ident, provider=st.just("gemini")),
    ),
    max_size=2,
)
reasoning_replies = st.builds(
    _reasoning_reply,
    st.text(min_size=1, max_size=20),
    ident,
    textless_blocks,
    st.integers(min_value=0, max_value=2),
    content=text,
    tool_calls=st.none() | st.lists(st.builds(ToolCall, id=ident, name=ident, arguments=text), max_size=2),
    **common,
)
tools = st.builds(
    BaseMessage,
    role=st.just("tool"),
    tool_reses=st.lists(st.builds(ToolReturn, call_id=ident, result=text, attachments=st.lists(parts, max_size=2))),
    **common,
)
consoles = st.builds(
    BaseMessage,
    role=st.just("console"),
    console_reses=st.lists(st.builds(ConsoleResult, result=text, attachments=st.lists(parts, max_size=2)), max_size=2),
    **common,
)
fallbacks = st.one_of(
    tools,
    consoles,
    st.builds(BaseMessage, role=st.just("system"), content=text, **common),
    st.builds(BaseMessage, role=st.just("function"), function_res=st.builds(FunctionReturn, name=ident, result=text)),
)
leaf_users = st.one_of(
    st.builds(TextMessage, **user, content=text, creator=st.none() | st.builds(BaseUser, uid=ident), **common),
    st.builds(ImageMessage, **user, content=images, **common),
    st.builds(AudioMessage, **user, content=_media(AudioUserMsgPart), **common),
    st.builds(VideoMessage, **user, content=_media(VideoUserMsgPart), **common),
    st.builds(AttachmentMessage, **user, content=_media(FileUserMsgPart), **common),
    st.builds(ContactMessage, **user, content=st.builds(BaseUser, uid=ident, name=st.none() | text), **common),
    st.builds(
        UrlMessage, **user, content=st.builds(lambda p: f"https://example.com/{p}", ident), title=st.none() | text
    ),
    st.builds(MultiPartMessage, **user, content=st.lists(parts, max_size=3), **common),
)


def _with_trace(user: UserMessage, records: list[BaseMessage]) -> UserMessage:
    for record in records:
        user.intermediate_trace.append(record)
    return user


def _extend(children: st.SearchStrategy[BaseMessage]) -> st.SearchStrategy[BaseMessage]:
    return st.one_of(
        st.builds(HistoryMessage, **user, content=st.lists(children, max_size=3), **common),
        st.builds(_with_trace, leaf_users, st.lists(children, max_size=4)),
    )


messages: st.SearchStrategy[BaseMessage] = st.recursive(
    st.one_of(leaf_users, assistants, reasoning_replies, fallbacks), _extend, max_leaves=12
)


class Everything(BaseModel):
    as_list: list[Message]
    as_wide_list: list[BaseMessage]
    as_tuple: tuple[BaseMessage, ...]
    as_dict: dict[str, BaseMessage]
    as_optional: BaseMessage | None
    nested: HistoryMessage


def _walk(msg: BaseMessage) -> list[type]:
    """Every class in a message tree, depth first: trace records and history content included."""
    found: list[type] = [type(msg)]
    if isinstance(msg, UserMessage):
        for record in msg.intermediate_trace.records:
            found.extend(_walk(record))
    if isinstance(msg, HistoryMessage):
        for child in msg.content:
            found.extend(_walk(child))
    return found


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(messages, min_size=1, max_size=4))
def test_trees_round_trip_through_every_container(tree: list[BaseMessage]) -> None:
    box = Everything(
        as_list=tree,
        as_wide_list=tree,
        as_tuple=tuple(tree),
        as_dict={str(i): m for i, m in enumerate(tree)},
        as_optional=tree[0],
        nested=HistoryMessage(content=tree),
    )
    for restored in (
        Everything.model_validate_json(box.model_dump_json()),
        Everything.model_validate(box.model_dump()),
        Everything.model_validate(json.loads(box.model_dump_json())),  # a stored record read as a dict
    ):
        assert restored == box
        for got, want in zip(restored.as_list, tree, strict=True):
            assert _walk(got) == _walk(want)
        for field in (
            restored.as_wide_list,
            restored.as_tuple,
            list(restored.as_dict.values()),
            restored.nested.content,
        ):
            assert [_walk(m) for m in field] == [_walk(m) for m in tree]
        assert restored.as_optional is not None
        assert _walk(restored.as_optional) == _walk(tree[0])

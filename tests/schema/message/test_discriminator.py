"""Type preservation through every annotation: the TFROB-299 class of bugs made impossible."""

from __future__ import annotations

import json
from typing import Literal

import pytest
from pydantic import BaseModel, Field, TypeAdapter, ValidationError

from tfrobot.schema.message import (
    DEFAULT_TAG,
    AssistantTextMessage,
    BaseMessage,
    HistoryMessage,
    IntermediateTrace,
    Message,
    MessageContractError,
    MultiPartMessage,
    TextMessage,
    UserAndAssMsg,
    UserMessage,
    get_discriminator_value,
    registered_classes,
)


class Containers(BaseModel):
    wide: list[BaseMessage]
    again: list[BaseMessage]
    seed: list[Message]
    frozen: tuple[BaseMessage, ...]
    keyed: dict[str, BaseMessage]
    maybe: BaseMessage | None = None
    users: list[UserMessage] = []
    pairs: list[UserAndAssMsg] = []


def _types(items: object) -> list[type]:
    return [type(item) for item in items]  # type: ignore[attr-defined]


def test_every_container_restores_every_class(messages: list[BaseMessage]) -> None:
    users = [m for m in messages if isinstance(m, UserMessage)]
    box = Containers(
        wide=messages,
        again=messages,
        seed=messages,
        frozen=tuple(messages),
        keyed={str(i): m for i, m in enumerate(messages)},
        maybe=messages[-5],
        users=users,
        pairs=[*users, messages[-5]],
    )
    for restored in (
        Containers.model_validate_json(box.model_dump_json()),
        Containers.model_validate(box.model_dump()),
    ):
        assert restored == box
        for field in ("wide", "again", "seed", "frozen"):
            assert _types(getattr(restored, field)) == _types(messages), field
        assert _types(restored.keyed.values()) == _types(messages)
        assert type(restored.maybe) is AssistantTextMessage
        assert _types(restored.users) == _types(users)
        assert _types(restored.pairs) == [*_types(users), AssistantTextMessage]


def test_nested_messages_keep_their_class(messages: list[BaseMessage]) -> None:
    text = messages[0]
    history = next(m for m in messages if isinstance(m, HistoryMessage))
    restored_text = TextMessage.model_validate_json(text.model_dump_json())
    assert type(restored_text) is TextMessage
    assert _types(restored_text.intermediate_trace.records) == [
        AssistantTextMessage,
        BaseMessage,
        BaseMessage,
    ]
    restored_history = TypeAdapter(Message).validate_json(history.model_dump_json())
    assert type(restored_history) is HistoryMessage
    assert _types(restored_history.content) == [TextMessage, AssistantTextMessage]


def test_type_adapters_and_class_validators_dispatch(messages: list[BaseMessage]) -> None:
    for msg in messages:
        data = msg.model_dump_json()
        assert type(TypeAdapter(Message).validate_json(data)) is type(msg)
        assert type(BaseMessage.model_validate_json(data)) is type(msg)
        assert type(BaseMessage.model_validate(json.loads(data))) is type(msg)
    assert _types(
        TypeAdapter(list[BaseMessage]).validate_json(TypeAdapter(list[Message]).dump_json(messages))
    ) == _types(messages)


def test_tfrob_299_trace_survives_persistence_and_converts() -> None:
    """Seed: a trace persisted as JSON and loaded for turn 2 must still convert (no ValueError)."""
    user = TextMessage(content="turn 1")
    user.intermediate_trace.append(AssistantTextMessage(content="", tool_calls=[]), source="thinking")
    row = user.model_dump_json()
    recalled = TextMessage.model_validate_json(row)
    record = recalled.intermediate_trace.records[0]
    assert isinstance(record, AssistantTextMessage)
    assert record.to_llm_request().role == "assistant"


def test_subclass_defined_later_joins_without_any_list_edit() -> None:
    class Containers2(BaseModel):
        items: list[BaseMessage]

    class PollMessage(UserMessage):
        msg_type: Literal["poll_test"] = "poll_test"
        content: str
        options: list[str] = Field(default_factory=list)

    poll = PollMessage(content="lunch?", options=["pizza", "ramen"])
    carrier = TextMessage(content="q")
    carrier.intermediate_trace.append(poll)
    box = Containers2(items=[poll, carrier])
    restored = Containers2.model_validate_json(box.model_dump_json())
    assert restored == box
    assert type(restored.items[0]) is PollMessage
    assert type(restored.items[1].intermediate_trace.records[0]) is PollMessage  # type: ignore[attr-defined]
    assert registered_classes()["user:poll_test"] is PollMessage


def test_a_subclass_that_would_share_a_tag_is_refused() -> None:
    with pytest.raises(TypeError, match=r"tag 'user:text'.*TextMessage.*msg_type"):

        class Shadow(TextMessage):
            note: str = ""


def test_unknown_msg_type_loads_with_every_field_and_refuses_conversion() -> None:
    record = {"role": "user", "msg_type": "hologram", "content": "x", "beam": {"k": [1, 2]}, "msg_id": "m1"}
    loaded = TypeAdapter(Message).validate_python(record)
    assert type(loaded) is BaseMessage
    dumped = json.loads(loaded.model_dump_json())
    assert {k: dumped[k] for k in record} == record
    with pytest.raises(MessageContractError, match="hologram"):
        loaded.to_llm_request()


@pytest.mark.parametrize(
    ("record", "expected"),
    [
        ({"role": "user", "content": "old"}, TextMessage),
        ({"role": "user", "content": [{"type": "text", "text": "a"}]}, MultiPartMessage),
        ({"role": "user", "content": [{"role": "user", "content": "nested"}]}, HistoryMessage),
        ({"role": "assistant", "content": "old reply"}, AssistantTextMessage),
        ({"role": "tool", "tool_reses": [{"call_id": "c", "result": "r"}]}, BaseMessage),
    ],
)
def test_records_without_msg_type_load_as_the_class_their_content_implies(
    record: dict[str, object], expected: type
) -> None:
    loaded = TypeAdapter(Message).validate_python(record)
    assert type(loaded) is expected
    loaded.to_llm_request()


def test_discriminator_value() -> None:
    assert get_discriminator_value({"role": "user", "msg_type": "text"}) == "user:text"
    assert get_discriminator_value({"role": "tool"}) == DEFAULT_TAG
    assert get_discriminator_value({"role": "user", "msg_type": "nope"}) == DEFAULT_TAG
    assert get_discriminator_value(AssistantTextMessage()) == "assistant:text"
    assert get_discriminator_value(BaseMessage(role="system")) == DEFAULT_TAG


def test_wrong_role_for_the_annotation_is_an_error() -> None:
    with pytest.raises(ValidationError) as info:
        TypeAdapter(list[UserMessage]).validate_python([{"role": "assistant", "msg_type": "text", "content": "x"}])
    assert info.value.errors()[0]["loc"][0] == 0


def test_json_schema_names_the_union_and_its_fallback() -> None:
    class Page(BaseModel):
        items: list[BaseMessage]

    schema = Page.model_json_schema()
    assert schema["properties"]["items"]["items"] == {"$ref": "#/$defs/BaseMessage"}
    union = schema["$defs"]["BaseMessage"]
    assert set(union) == {"anyOf"}
    assert {"$ref": "#/$defs/TextMessage"} in union["anyOf"]
    assert union["anyOf"][-1] == {"$ref": "#/$defs/BaseMessageFallback"}
    assert {} not in union["anyOf"]
    assert schema["$defs"]["BaseMessageFallback"]["title"] == "BaseMessage"


_EDGE_RECORDS: list[dict[str, object]] = [
    {"role": "user", "content": "old"},
    {"role": "user", "content": [{"type": "text", "text": "a"}]},
    {"role": "user", "content": [{"role": "user", "content": "nested"}]},
    {"role": "user", "content": {"uid": "u9", "name": "Zoe"}},
    {"role": "assistant", "content": "old reply"},
    {"role": "tool", "tool_reses": [{"call_id": "c", "result": "r"}]},
    {"role": "tool", "msg_type": "future_tool", "tool_reses": [{"call_id": "c", "result": "r"}], "extra": 1},
    {"role": "console", "console_reses": [{"result": "ok"}]},
    {"role": "system", "content": "be brief"},
    {"role": "user", "msg_type": "hologram", "content": "x", "beam": {"k": [1, 2]}},
    {"role": "assistant", "msg_type": "hologram", "content": "x"},
    {
        "role": "user",
        "msg_type": "text",
        "content": "now",
        "intermediate_trace": {"records": [{"role": "user", "content": "in"}]},
    },
]


@pytest.mark.parametrize("record", _EDGE_RECORDS)
def test_json_and_python_dispatch_agree_on_edge_records(record: dict[str, object]) -> None:
    """JSON input takes a key-lookup fast path; it must decide exactly as the Python-mode discriminator."""
    from_python = TypeAdapter(Message).validate_python(record)
    from_json = TypeAdapter(Message).validate_json(json.dumps(record))
    assert type(from_json) is type(from_python)
    assert _without_fresh_ids(from_json.model_dump()) == _without_fresh_ids(from_python.model_dump())
    for inner_json, inner_python in zip(_inner(from_json), _inner(from_python), strict=True):
        assert type(inner_json) is type(inner_python)


def _without_fresh_ids(value: object) -> object:
    """`value` without the ids and timestamps that default factories fill in differently on each load."""
    if isinstance(value, dict):
        return {k: _without_fresh_ids(v) for k, v in value.items() if k not in ("create_ts", "msg_id")}
    if isinstance(value, list):
        return [_without_fresh_ids(v) for v in value]
    return value


def _inner(msg: BaseMessage) -> list[BaseMessage]:
    inner = list(msg.intermediate_trace.records) if isinstance(msg, UserMessage) else []
    if isinstance(msg, HistoryMessage):
        inner.extend(msg.content)
    return inner


def test_json_dispatch_of_every_class_in_every_container(messages: list[BaseMessage]) -> None:
    blob = TypeAdapter(list[Message]).dump_json(messages)
    for annotation in (list[Message], list[BaseMessage], tuple[BaseMessage, ...]):
        restored = TypeAdapter(annotation).validate_json(blob)
        assert _types(restored) == _types(messages)
        assert list(restored) == messages


def test_invalid_json_record_is_still_an_error() -> None:
    with pytest.raises(ValidationError):
        TypeAdapter(list[Message]).validate_json(b'[{"role": "user", "msg_type": "text", "content": 5}]')
    with pytest.raises(ValidationError):
        TypeAdapter(list[UserMessage]).validate_json(b'[{"role": "assistant", "msg_type": "text", "content": "x"}]')


def _class_tree(msg: BaseMessage) -> object:
    return (type(msg), [_class_tree(inner) for inner in _inner(msg)])


def test_deeply_nested_messages_keep_their_class_through_every_entry_point() -> None:
    leaf = TextMessage(content="leaf")
    leaf.intermediate_trace.append(AssistantTextMessage(content="thinking"))
    leaf.intermediate_trace.append(BaseMessage(role="tool", tool_reses=[]))
    history = HistoryMessage(content=[leaf, MultiPartMessage(content=[])])
    root = TextMessage(content="root")
    root.intermediate_trace.append(history)
    root.intermediate_trace.append(leaf)
    data = root.model_dump_json()
    expected = _class_tree(root)
    loaded: list[BaseMessage] = [
        TextMessage.model_validate_json(data),
        BaseMessage.model_validate_json(data),
        UserMessage.model_validate_json(data),
        TypeAdapter(Message).validate_json(data),
        TypeAdapter(list[BaseMessage]).validate_json(f"[{data}]")[0],
        TypeAdapter(Message).validate_python(json.loads(data)),
        IntermediateTrace.model_validate_json(f'{{"records": [{data}]}}').records[0],
    ]
    for restored in loaded:
        assert _class_tree(restored) == expected
        assert restored == root


def test_json_schema_is_that_of_the_exact_union() -> None:
    """The JSON fast path is an implementation detail: schemas generate without warnings, one branch only."""
    schema = TypeAdapter(list[Message]).json_schema()
    text = json.dumps(schema)
    assert '"fast"' not in text
    assert "msg_type" in text
    assert "intermediate_trace" in json.dumps(TextMessage.model_json_schema())


def _serializers_of_message_unions(schema: object) -> list[object]:
    """The serializer of every message union (a node with the `tfrobot` fast/dispatch JSON branch) in `schema`."""
    found: list[object] = []
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            json_branch = node.get("json_schema")
            if node.get("type") == "json-or-python" and isinstance(json_branch, dict):
                labels = [c[1] for c in json_branch.get("choices", []) if isinstance(c, tuple)]
                if labels == ["fast", "dispatch"]:
                    found.append(node.get("serialization"))
            stack.extend(node.values())
        elif isinstance(node, list | tuple):
            stack.extend(node)
    return found


def test_messages_in_containers_are_written_by_their_own_class() -> None:
    """A message union is serialized by inference, in Rust (each message by its own class's serializer), not by
    the tagged union, which called the discriminator in Python for every message and checked the chosen class's
    fields in strict mode (a third of a conversation's dump), nor by a Python `isinstance` first (a tenth)."""
    serializers = _serializers_of_message_unions(TypeAdapter(list[BaseMessage]).core_schema)
    assert serializers, "no message union found in list[BaseMessage]'s schema"
    assert serializers == [{"type": "any"}] * len(serializers)


def test_a_subclass_defined_later_is_written_whole_inside_containers() -> None:
    """A class registered after the union was compiled, and a value of an unregistered subclass, are written
    with every field of their own class."""

    class StampedReply(AssistantTextMessage):
        msg_type: Literal["stamped"] = "stamped"
        stamp: str = ""

    holder = TypeAdapter(list[BaseMessage])
    dumped = json.loads(holder.dump_json([StampedReply(content="hi", stamp="s1", create_ts=1, msg_id="m")]))
    assert dumped[0]["stamp"] == "s1"
    assert dumped[0]["msg_type"] == "stamped"
    (restored,) = holder.validate_json(holder.dump_json([StampedReply(content="hi", stamp="s1")]))
    assert type(restored) is StampedReply

"""The stored form: defaults are left out, reasoning text is written once, and nothing is lost on load."""

from __future__ import annotations

import json

from pydantic import TypeAdapter

from tfrobot.schema.message import (
    AssistantRefusalMessage,
    AssistantTextMessage,
    BaseMessage,
    Message,
    ReasoningBlock,
    TextMessage,
    ToolCall,
    ToolReturn,
)

MESSAGE = TypeAdapter(Message)


def _reply() -> AssistantTextMessage:
    return AssistantTextMessage(
        reasoning_content="Two cities: call the tool twice.",
        reasoning_blocks=[
            ReasoningBlock(text="Two cities: call the tool twice.", signature="sig==", provider="anthropic"),
            ReasoningBlock(type="redacted_thinking", data="opaque", provider="anthropic"),
        ],
        tool_calls=[ToolCall(id="c1", name="weather", arguments='{"city": "Paris"}')],
        model="anthropic:claude-sonnet-4-6",
    )


def test_a_tool_result_is_stored_without_its_defaults() -> None:
    msg = BaseMessage(role="tool", tool_reses=[ToolReturn(call_id="c1", result="sunny")], msg_id="m1", create_ts=1)
    assert json.loads(msg.model_dump_json()) == {
        "role": "tool",
        "tool_reses": [{"call_id": "c1", "result": "sunny"}],
        "create_ts": 1,
        "msg_id": "m1",
    }
    restored = MESSAGE.validate_json(msg.model_dump_json())
    assert type(restored) is BaseMessage
    assert restored == msg


def test_the_reasoning_text_is_stored_once_and_restored() -> None:
    reply = _reply()
    stored = reply.model_dump_json()
    assert stored.count("Two cities") == 1
    assert json.loads(stored)["reasoning_blocks"][1]["text"] == ""  # every other block keeps its `text`
    for restored in (MESSAGE.validate_json(stored), MESSAGE.validate_python(json.loads(stored))):
        assert type(restored) is AssistantTextMessage
        assert restored == reply
        assert type(restored.reasoning_blocks[0]) is ReasoningBlock
        assert restored.reasoning_blocks[0].text == "Two cities: call the tool twice."


def test_reasoning_that_is_not_the_block_text_is_stored_in_both() -> None:
    reply = AssistantTextMessage(
        reasoning_content="streamed summary",
        reasoning_blocks=[ReasoningBlock(text="the block's own text", signature="s")],
    )
    stored = reply.model_dump_json()
    assert "streamed summary" in stored
    assert "the block's own text" in stored
    assert MESSAGE.validate_json(stored) == reply


def test_a_block_built_without_text_keeps_it_empty() -> None:
    """A Gemini thought signature: the block has no text and `reasoning_content` holds the thoughts."""
    reply = AssistantTextMessage(
        reasoning_content="thoughts", reasoning_blocks=[ReasoningBlock(signature="g", provider="gemini")]
    )
    assert reply.reasoning_blocks[0].text == ""
    for restored in (MESSAGE.validate_json(reply.model_dump_json()), MESSAGE.validate_python(reply.model_dump())):
        assert restored == reply
        assert restored.reasoning_blocks[0].text == ""


def test_a_value_that_only_looks_empty_is_kept() -> None:
    """An empty list where the default is None, a refusal whose finish reason was cleared: both written."""
    reply = AssistantRefusalMessage(refusal="no", finish_reason=None, tool_calls=[], tfl_scripts=[])
    stored = json.loads(reply.model_dump_json())
    assert (stored["finish_reason"], stored["tool_calls"], stored["tfl_scripts"]) == (None, [], [])
    restored = MESSAGE.validate_json(reply.model_dump_json())
    assert type(restored) is AssistantRefusalMessage
    assert restored == reply


def test_a_user_turn_without_trace_is_stored_without_it() -> None:
    msg = TextMessage(content="hi", msg_id="u1", create_ts=2)
    assert "intermediate_trace" not in json.loads(msg.model_dump_json())
    msg.intermediate_trace.append(_reply())
    restored = MESSAGE.validate_json(msg.model_dump_json())
    assert type(restored) is TextMessage
    assert type(restored.intermediate_trace.records[0]) is AssistantTextMessage
    assert restored == msg


def test_sequence_results_are_written_as_json_lists_and_stay_tuples_in_python() -> None:
    """`tool_reses`/`console_reses` are written to JSON by the list serializer (`_WrittenAsList`): a tuple is
    the same JSON as a list, and a Python-mode dump still gives back the tuple."""
    results = (ToolReturn(call_id="c1", name="weather", result="12C"), "plain")
    as_tuple = BaseMessage(role="tool", tool_reses=results, msg_id="m", create_ts=1)
    as_list = BaseMessage(role="tool", tool_reses=list(results), msg_id="m", create_ts=1)
    assert as_tuple.model_dump_json() == as_list.model_dump_json()
    assert json.loads(as_tuple.model_dump_json())["tool_reses"] == [
        {"call_id": "c1", "name": "weather", "result": "12C"},
        "plain",
    ]
    dumped = as_tuple.model_dump()["tool_reses"]
    assert type(dumped) is tuple
    assert dumped == ({"call_id": "c1", "name": "weather", "result": "12C"}, "plain")
    restored = MESSAGE.validate_json(MESSAGE.dump_json(as_tuple))
    assert type(restored) is BaseMessage
    assert restored.tool_reses == list(results)


class _TimedReturn(ToolReturn):
    """A tool source's own result type: a `ToolReturn` with a field of its own."""

    elapsed_ms: int = 0


def test_a_tool_result_of_a_subclass_is_written_with_its_own_fields() -> None:
    """Each result is written by its own class (`written_by_value`), in both modes: the items' `str | ToolReturn`
    union wrote a subclass as a `ToolReturn`, so `elapsed_ms` was dropped from the stored record without a
    word. On load it comes back as an extra field of the `ToolReturn` (nothing lost)."""
    msg = BaseMessage(role="tool", tool_reses=[_TimedReturn(call_id="c1", result="ok", elapsed_ms=12)], create_ts=1)
    assert json.loads(msg.model_dump_json())["tool_reses"] == [{"call_id": "c1", "result": "ok", "elapsed_ms": 12}]
    assert msg.model_dump()["tool_reses"] == [{"call_id": "c1", "result": "ok", "elapsed_ms": 12}]
    restored = MESSAGE.validate_json(MESSAGE.dump_json(msg))
    assert restored.tool_reses is not None
    (result,) = restored.tool_reses
    assert type(result) is ToolReturn
    assert result.model_extra == {"elapsed_ms": 12}

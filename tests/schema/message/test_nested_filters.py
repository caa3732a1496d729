"""Review R20 (outside review of #18): nested `include` / `exclude` reach the messages and results of a container.

On the base (4f0ccfc) a nested include/exclude went down into the items of a message list
(`list[BaseMessage]`, `HistoryMessage.content`, a trace's `records`) and of `tool_reses`; on the branch the
items are written by a plain function serializer handing the value to inference (`written_by_own_class`),
and the filter below the container is dropped: the items are written whole. A caller that leaves a field
out (a secret tool result, the ids) gets it back.
"""

from __future__ import annotations

import json

from pydantic import TypeAdapter

from tfrobot.brain.chain.events import ToolCallFinished
from tfrobot.schema.message import BaseMessage, HistoryMessage, TextMessage, ToolReturn

_LIST = TypeAdapter(list[BaseMessage])


def _text() -> TextMessage:
    return TextMessage(content="a", create_ts=1, msg_id="a")


def _tool() -> BaseMessage:
    return BaseMessage(role="tool", tool_reses=[ToolReturn(call_id="c", result="secret")], create_ts=1, msg_id="t")


def test_exclude_reaches_the_items_of_a_message_list() -> None:
    assert _LIST.dump_python([_text()], exclude={0: {"msg_id"}}) == [
        {"role": "user", "content": "a", "create_ts": 1, "msg_type": "text"}
    ]


def test_include_reaches_the_items_of_a_message_list_in_json() -> None:
    assert json.loads(_LIST.dump_json([_text()], include={"__all__": {"content"}})) == [{"content": "a"}]


def test_exclude_reaches_a_history_messages_content() -> None:
    h = HistoryMessage(content=[_text()], create_ts=2, msg_id="h")
    dumped = h.model_dump(exclude={"content": {"__all__": {"msg_id", "create_ts"}}})
    assert dumped["content"] == [{"role": "user", "content": "a", "msg_type": "text"}]


def test_include_reaches_the_records_of_a_trace() -> None:
    u = TextMessage(content="q", create_ts=1, msg_id="u")
    u.intermediate_trace.append(_tool())
    dumped = json.loads(u.model_dump_json(include={"intermediate_trace": {"records": {0: {"role"}}}}))
    assert dumped == {"intermediate_trace": {"records": [{"role": "tool"}]}}


def test_exclude_reaches_the_results_of_a_tool_message() -> None:
    dumped = _tool().model_dump(exclude={"tool_reses": {"__all__": {"result"}}})
    assert dumped["tool_reses"] == [{"call_id": "c"}]


def test_exclude_reaches_a_chain_events_result() -> None:
    ev = ToolCallFinished(step=0, result=ToolReturn(call_id="c", result="secret"))
    assert ev.model_dump(exclude={"result": {"result"}})["result"] == {"call_id": "c"}

"""IntermediateTrace: marks, stable order on create_ts ties, pre/post split."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tfrobot.schema.message import TRACE_META_KEY, AssistantTextMessage, BaseMessage, TextMessage


def test_append_copies_and_marks() -> None:
    user = TextMessage(content="q")
    original = AssistantTextMessage(content="a")
    record = user.intermediate_trace.append(original, source="thinking", step=1)
    assert record is not original
    assert TRACE_META_KEY not in original.additional_kwargs
    assert record.additional_kwargs[TRACE_META_KEY] == {"seq": 0, "source": "thinking", "step": 1}


def test_ties_keep_append_order_even_after_a_shuffled_load() -> None:
    user = TextMessage(content="q", create_ts=1000)
    for i in range(5):
        user.intermediate_trace.append(AssistantTextMessage(content=str(i), create_ts=2000))
    user.intermediate_trace.records.reverse()
    restored = TextMessage.model_validate_json(user.model_dump_json())
    assert [m.text() for m in restored.intermediate_trace.ordered()] == ["0", "1", "2", "3", "4"]


def test_split_around_the_user_message() -> None:
    user = TextMessage(content="q", create_ts=1000)
    user.intermediate_trace.append(BaseMessage(role="system", content="before", create_ts=999))
    user.intermediate_trace.append(AssistantTextMessage(content="same ms", create_ts=1000))
    user.intermediate_trace.append(AssistantTextMessage(content="after", create_ts=1001))
    pre, post = user.intermediate_trace.split(user.create_ts)
    assert [m.text() for m in pre] == ["before"]
    assert [m.text() for m in post] == ["same ms", "after"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 5), max_size=6), st.integers(0, 6))
def test_split_equals_a_sort_then_cut(stamps: list[int], at: int) -> None:
    user = TextMessage(content="q", create_ts=at)
    for i, ts in enumerate(stamps):
        user.intermediate_trace.append(AssistantTextMessage(content=str(i), create_ts=ts))
    reference = sorted(user.intermediate_trace.records, key=lambda m: (m.create_ts, int(m.content)))
    pre, post = user.intermediate_trace.split(at)
    assert pre == [m for m in reference if m.create_ts < at]
    assert post == [m for m in reference if m.create_ts >= at]
    assert user.intermediate_trace.ordered() == reference


def test_ordered_cut_hands_back_the_records_themselves_only_when_they_are_in_order() -> None:
    user = TextMessage(content="q", create_ts=1000)
    for ts in (999, 1001, 1002):
        user.intermediate_trace.append(AssistantTextMessage(content=str(ts), create_ts=ts))
    records = user.intermediate_trace.records
    assert user.intermediate_trace.ordered_cut(1000) == (records, 1)
    assert user.intermediate_trace.ordered_cut(1000)[0] is records
    records.reverse()
    ordered, cut = user.intermediate_trace.ordered_cut(1000)
    assert ([m.text() for m in ordered], cut) == (["999", "1001", "1002"], 1)
    assert ordered is not records
    assert [m.text() for m in records] == ["1002", "1001", "999"]

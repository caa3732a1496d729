"""`IntermediateTrace`: the inner messages of one turn, stored inside the user message that started it.

Records are copies of the chain's intermediate messages (assistant thinking, tool results, console
output), each marked with `additional_kwargs["__trace_meta"]` by `append`. They are expanded back into
the conversation around their user message on the next turn (`split`), ordered by `create_ts` and, when
two records share a millisecond, by the sequence number in their mark, so the order never depends on
how a database returns them. A turn that ended without an answer says why in `failure`.
"""

from __future__ import annotations

from typing import Any, Final, TypedDict

from pydantic import BaseModel, ConfigDict, Field, field_validator

from tfrobot.schema.message.base import BaseMessage
from tfrobot.schema.message.conversation.failure import TurnFailure
from tfrobot.schema.message.fields_set import share_all
from tfrobot.schema.omission import IS_NONE

TRACE_META_KEY: Final = "__trace_meta"
"""Key in `additional_kwargs` holding a record's trace mark: `seq`, and `source`/`step` when given, plus the
step's timing when the chain measured it (`StepTiming`; records stored before timing have none)."""


class StepTiming(TypedDict, total=False):
    """When one step of a turn ran, as its trace mark keeps it (every key optional: old records lack them).

    `started_at` is epoch milliseconds (the clock of `create_ts`), `duration_ms` the wall time the step took
    (an LLM call, a batch of concurrent tool calls, or the TFL scripts of one reply); `call_ms` gives each
    tool call's own duration by call id; `provider` is the LLM provider a thinking step called."""

    started_at: int
    duration_ms: int
    call_ms: dict[str, int]
    provider: str


def _order(msg: BaseMessage) -> tuple[int, int]:
    meta = msg.additional_kwargs.get(TRACE_META_KEY)
    seq = meta.get("seq") if isinstance(meta, dict) else None
    return msg.create_ts, seq if isinstance(seq, int) else 0


class IntermediateTrace(BaseModel):
    """The trace of one turn (seed: "UserMessage.intermediate_trace: IntermediateTrace")."""

    model_config = ConfigDict(defer_build=True)

    records: list[BaseMessage] = Field(default_factory=list, description="Marked copies of the turn's messages.")
    failure: TurnFailure | None = Field(
        default=None,
        exclude_if=IS_NONE,  # a turn that did not fail is stored exactly as before
        description="Why the turn ended without an answer (None: it did not fail, or is running).",
    )

    @field_validator("records", mode="after")
    @classmethod
    def _share_fields_sets(cls, records: list[BaseMessage]) -> list[BaseMessage]:
        """Give every record the fields set shared by the records that set the same fields (`fields_set.py`).

        The records of the turns' traces are most of what a stored conversation holds (three of five messages
        per turn here, dozens in a long agent turn), and each of their sets costs 728 bytes. Sharing them here
        costs one Python call per trace; a `model_post_init` did it for every message (a Python call each: an
        eighth of the load of a conversation)."""
        share_all(records)
        return records

    def append(
        self,
        msg: BaseMessage,
        *,
        source: str | None = None,
        step: int | None = None,
        timing: StepTiming | None = None,
    ) -> BaseMessage:
        """Store a marked deep copy of `msg` (the chain keeps its own object) and return the copy."""
        record = msg.model_copy(deep=True)
        mark: dict[str, Any] = {"seq": len(self.records)}
        if source is not None:
            mark["source"] = source
        if step is not None:
            mark["step"] = step
        if timing:
            mark.update(timing)
        record.additional_kwargs[TRACE_META_KEY] = mark
        self.records.append(record)
        return record

    def ordered(self) -> list[BaseMessage]:
        """Records by creation time, ties broken by the order they were appended (a new list)."""
        return list(self.ordered_cut(-1 << 63)[0])

    def split(self, create_ts: int) -> tuple[list[BaseMessage], list[BaseMessage]]:
        """Records created before `create_ts` (pre) and at or after it (post), each in order."""
        records, cut = self.ordered_cut(create_ts)
        return records[:cut], records[cut:]

    def ordered_cut(self, create_ts: int) -> tuple[list[BaseMessage], int]:
        """The records in order and how many of them were created before `create_ts`.

        The list is `records` itself when it is in order already (the usual case, checked in the same pass
        that counts): read it, do not change it. Trace expansion places every turn's records around its
        user message this way on every request, without copying them into lists of their own first."""
        records = self.records
        previous, cut = -1 << 63, 0
        for msg in records:
            ts = msg.create_ts
            if ts <= previous:
                ordered = sorted(records, key=_order)
                return ordered, next((i for i, m in enumerate(ordered) if m.create_ts >= create_ts), len(ordered))
            if ts < create_ts:
                cut += 1  # strictly increasing so far, so the records before the cut are a prefix
            previous = ts
        return records, cut

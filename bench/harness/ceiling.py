"""The fair ceiling (issue 18): hand-written Pydantic models of the workload, and their conversions.

The models hold the same data as TFRobot's stored turns — the trace inside the user message, every
record with its mark (seq, source, step), ids, timestamps, the conversation id, reasoning text with its
signature — with a **literal** `role` discriminator (`Field(discriminator="role")`: pydantic-core picks
the class by one key lookup, in Rust) and one `TypeAdapter(list[CeilingMessage])`. No registry, no
fallback class, no `extra="allow"`, no validators: what Pydantic itself costs for this shape.

The conversions do the work the seed requires of a request and nothing else: start from the stored
turns, expand each trace around its user message by `create_ts` (records before it, then it, then the
records after; sorted only when they are out of order), prove the result well formed in one scan (every
tool result answers a call of the assistant message before it, no call is left without its result, no
empty user text), then build the provider's dicts. They produce exactly TFRobot's payload for this
workload: `bench/fair_ceiling.py` checks that before it times anything.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal, TypeAlias

from pydantic import BaseModel, Field, TypeAdapter

from harness.workload import (
    CONVERSATION_ID,
    MODEL,
    MODEL_TAG,
    QUESTION,
    START_TS,
    SYSTEM,
    TOOL,
    Turn,
    new_question_ts,
    turns,
)

OPENAI_MODEL = "gpt-4o"
ANTHROPIC_MAX_TOKENS = 4096
"""What TFRobot's adapters send when the settings leave the model and `max_tokens` unset."""


class CeilingMark(BaseModel):
    """Where a trace record came from: its place in the trace, the chain phase and the step."""

    seq: int
    source: str
    step: int


class CeilingTextPart(BaseModel):
    type: Literal["text"] = "text"
    text: str


class CeilingImagePart(BaseModel):
    type: Literal["image"] = "image"
    url: str


CeilingPart: TypeAlias = Annotated[CeilingTextPart | CeilingImagePart, Field(discriminator="type")]


class CeilingToolCall(BaseModel):
    id: str
    name: str
    arguments: str


class CeilingReasoning(BaseModel):
    """Reasoning text with the provider's signature, stored once."""

    text: str
    signature: str
    provider: str


class _CeilingBase(BaseModel):
    msg_id: str
    create_ts: int
    conversation_id: str
    mark: CeilingMark | None = None


class CeilingSystem(_CeilingBase):
    role: Literal["system"] = "system"
    content: str


class CeilingUser(_CeilingBase):
    role: Literal["user"] = "user"
    content: str | list[CeilingPart]
    trace: list[CeilingMessage] = Field(default_factory=list)


class CeilingAssistant(_CeilingBase):
    role: Literal["assistant"] = "assistant"
    content: str = ""
    reasoning: list[CeilingReasoning] = Field(default_factory=list)
    tool_calls: list[CeilingToolCall] = Field(default_factory=list)
    finish_reason: str | None = None
    model: str | None = None


class CeilingTool(_CeilingBase):
    role: Literal["tool"] = "tool"
    call_id: str
    name: str
    result: str
    is_error: bool = False


CeilingAny: TypeAlias = CeilingSystem | CeilingUser | CeilingAssistant | CeilingTool
CeilingMessage: TypeAlias = Annotated[CeilingAny, Field(discriminator="role")]
CeilingUser.model_rebuild()
CEILING_ADAPTER: TypeAdapter[list[CeilingAny]] = TypeAdapter(list[CeilingMessage])


# --- Building the workload -------------------------------------------------------------------------------


def _id(kind: str, turn: int, k: int = 0) -> str:
    """A message id as long as TFRobot's (32 hex digits), unique in the conversation."""
    return f"{kind}{turn:08d}{k:02d}".ljust(32, "0")


def ceiling_user(turn: Turn) -> CeilingUser:
    content: str | list[CeilingPart] = turn.question
    if turn.image_url is not None:
        content = [CeilingTextPart(text=turn.question), CeilingImagePart(url=turn.image_url)]
    user = CeilingUser(msg_id=_id("u", turn.i), create_ts=turn.ts, conversation_id=CONVERSATION_ID, content=content)
    user.trace = list(ceiling_step(turn))
    return user


def ceiling_step(turn: Turn) -> list[CeilingAssistant | CeilingTool]:
    """The three records of the turn's one thinking/doing step, marked as TFRobot's trace marks them."""
    reply = CeilingAssistant(
        msg_id=_id("a", turn.i),
        create_ts=turn.ts + 1,
        conversation_id=CONVERSATION_ID,
        mark=CeilingMark(seq=0, source="thinking", step=0),
        reasoning=[CeilingReasoning(text=turn.reasoning, signature=turn.signature, provider="anthropic")],
        tool_calls=[CeilingToolCall(id=turn.call_id(k), name=TOOL, arguments=turn.arguments(k)) for k in (0, 1)],
        finish_reason="tool_calls",
        model=MODEL_TAG,
    )
    results = [
        CeilingTool(
            msg_id=_id("t", turn.i, k),
            create_ts=turn.ts + 2 + k,
            conversation_id=CONVERSATION_ID,
            mark=CeilingMark(seq=1 + k, source="doing", step=0),
            call_id=turn.call_id(k),
            name=TOOL,
            result=turn.result(k),
        )
        for k in (0, 1)
    ]
    return [reply, *results]


def ceiling_conversation(n: int) -> list[CeilingAny]:
    """The stored conversation of `n` turns: the system prompt, then per turn the user (trace inside) and
    the answer."""
    out: list[CeilingAny] = [
        CeilingSystem(msg_id=_id("s", 0), create_ts=START_TS, conversation_id=CONVERSATION_ID, content=SYSTEM)
    ]
    for turn in turns(n):
        answer = CeilingAssistant(
            msg_id=_id("f", turn.i),
            create_ts=turn.ts + 4,
            conversation_id=CONVERSATION_ID,
            content=turn.answer,
            finish_reason="stop",
            model=MODEL_TAG,
        )
        out += (ceiling_user(turn), answer)
    return out


def ceiling_question(n: int) -> CeilingUser:
    """The next user question after `n` turns: the current input of a request over that history."""
    return CeilingUser(
        msg_id=_id("q", n), create_ts=new_question_ts(n), conversation_id=CONVERSATION_ID, content=QUESTION
    )


def count_ceiling(messages: list[CeilingAny]) -> int:
    """Messages of a stored ceiling conversation, trace records included."""
    return sum(1 + len(m.trace) if isinstance(m, CeilingUser) else 1 for m in messages)


# --- Conversions: expand the traces, one well-formedness scan, the provider's dicts ------------------------


def _order(msg: CeilingAny) -> tuple[int, int]:
    return msg.create_ts, msg.mark.seq if msg.mark is not None else 0


def expand(history: list[CeilingAny], current: CeilingUser) -> list[CeilingAny]:
    """History and the current input as one list, every trace around its user message by `create_ts`."""
    out: list[CeilingAny] = []
    for msg in (*history, current):
        if not isinstance(msg, CeilingUser) or not msg.trace:
            out.append(msg)
            continue
        records = msg.trace
        previous, cut, user_ts = -1, 0, msg.create_ts
        for record in records:
            ts = record.create_ts
            if ts <= previous:  # out of order: sort, then cut again
                records = sorted(records, key=_order)
                cut = sum(1 for r in records if r.create_ts < user_ts)
                break
            if ts < user_ts:
                cut += 1
            previous = ts
        out += records[:cut]
        out.append(msg)
        out += records[cut:]
    return out


def check(msgs: list[CeilingAny]) -> None:
    """One scan: each tool result answers a pending call of the assistant message before it, every call
    is answered before the next message of another kind, and no user text is empty."""
    pending: set[str] = set()
    for index, msg in enumerate(msgs):
        if isinstance(msg, CeilingTool):
            if msg.call_id not in pending:
                raise ValueError(f"messages[{index}]: tool result {msg.call_id} answers no pending call")
            pending.discard(msg.call_id)
            continue
        if pending:
            raise ValueError(f"messages[{index}]: calls {sorted(pending)} have no result")
        if isinstance(msg, CeilingAssistant):
            pending = {call.id for call in msg.tool_calls}
        elif isinstance(msg, CeilingUser) and not msg.content:
            raise ValueError(f"messages[{index}]: empty user message")
    if pending:
        raise ValueError(f"the conversation ends with calls {sorted(pending)} that have no result")


def _openai_part(part: CeilingTextPart | CeilingImagePart) -> dict[str, Any]:
    if isinstance(part, CeilingTextPart):
        return {"type": "text", "text": part.text}
    return {"type": "image_url", "image_url": {"url": part.url}}


def to_openai(history: list[CeilingAny], current: CeilingUser) -> dict[str, Any]:
    """The OpenAI chat-completions request of this conversation."""
    msgs = expand(history, current)
    check(msgs)
    out: list[dict[str, Any]] = []
    append = out.append
    for msg in msgs:
        if isinstance(msg, CeilingTool):
            append({"role": "tool", "tool_call_id": msg.call_id, "content": msg.result})
        elif isinstance(msg, CeilingAssistant):
            d: dict[str, Any] = {"role": "assistant", "content": msg.content or None}
            if msg.tool_calls:
                d["tool_calls"] = [
                    {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                    for c in msg.tool_calls
                ]
            append(d)
        elif isinstance(msg, CeilingUser):
            content = msg.content
            append(
                {"role": "user", "content": content if isinstance(content, str) else list(map(_openai_part, content))}
            )
        else:
            append({"role": "system", "content": msg.content})
    return {"model": OPENAI_MODEL, "messages": out}


def _anthropic_part(part: CeilingTextPart | CeilingImagePart) -> dict[str, Any]:
    if isinstance(part, CeilingTextPart):
        return {"type": "text", "text": part.text}
    return {"type": "image", "source": {"type": "url", "url": part.url}}


def _anthropic_assistant(msg: CeilingAssistant) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = [
        {"type": "thinking", "thinking": r.text, "signature": r.signature}
        for r in msg.reasoning
        if r.provider == "anthropic"
    ]
    if msg.content:
        blocks.append({"type": "text", "text": msg.content})
    for call in msg.tool_calls:
        blocks.append({"type": "tool_use", "id": call.id, "name": call.name, "input": json.loads(call.arguments)})
    return blocks


def to_anthropic(history: list[CeilingAny], current: CeilingUser) -> dict[str, Any]:
    """The Anthropic Messages request: the leading system prompt lifted, same-role turns merged."""
    msgs = expand(history, current)
    check(msgs)
    lead = 0
    while lead < len(msgs) and isinstance(msgs[lead], CeilingSystem):
        lead += 1
    system = "\n\n".join(m.content for m in msgs[:lead] if isinstance(m, CeilingSystem))
    out: list[dict[str, Any]] = []
    last_role, last_blocks = "", []
    for msg in msgs[lead:]:
        blocks: list[dict[str, Any]]
        if isinstance(msg, CeilingTool):
            result = {
                "type": "tool_result",
                "tool_use_id": msg.call_id,
                "content": [{"type": "text", "text": msg.result}],
            }
            role, blocks = "user", [result]
        elif isinstance(msg, CeilingAssistant):
            role, blocks = "assistant", _anthropic_assistant(msg)
        elif isinstance(msg, CeilingUser):
            content = msg.content
            role = "user"
            blocks = (
                [{"type": "text", "text": content}] if isinstance(content, str) else [*map(_anthropic_part, content)]
            )
        else:  # a system message after the first user turn: user text, as TFRobot sends it
            role, blocks = "user", [{"type": "text", "text": f"[system]\n{msg.content}"}]
        if role == last_role:
            last_blocks.extend(blocks)
        else:
            out.append({"role": role, "content": blocks})
            last_role, last_blocks = role, blocks
    request: dict[str, Any] = {"model": MODEL, "max_tokens": ANTHROPIC_MAX_TOKENS}
    if system:
        request["system"] = system
    request["messages"] = out
    return request

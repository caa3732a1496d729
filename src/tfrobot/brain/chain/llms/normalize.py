"""The one normalization pass every request goes through, whatever the provider (idempotent).

Conversations assembled from history, recalled traces and a running chain are not always well formed:
a trace loaded twice, a tool run cut off by a crash, a result whose call was trimmed away, an empty
message. Each provider rejects these with its own 400; this pass repairs what has one obvious repair and
raises `InvalidConversationError` (naming the message and the fix) on what has none:

* empty text: empty user/system messages and empty text parts are dropped, empty console output is
  said to be empty, an assistant message with nothing in it is dropped;
* call ids reused by a later turn (providers that number calls per reply) are renamed in the request;
* duplicates: an identical assistant message or tool result repeated within a turn is kept once; two
  *different* messages of one turn claiming the same call id fail;
* tool results are moved right after the assistant message that made the call, in call order, with
  their attachment carriers after them; a call without a result gets an error result saying so;
* an orphan tool result (its call is not in the conversation) becomes user text, so nothing is lost;
* consecutive assistant messages are merged; consecutive user messages carrying the same thing too.

`normalize_request` is the entry of the request pipeline: `normalize(request.to_list())`, in one scan of
the flattened entries when they need neither a merge nor a repair.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from types import MappingProxyType
from typing import cast

from tfrobot.brain.chain.llms.errors import InvalidConversationError
from tfrobot.schema.message.llms.llm_requests import (
    BaseLLMMessage,
    LLMAssistantMessage,
    LLMFunctionMessage,
    LLMMessage,
    LLMRequestMessages,
    LLMSystemMessage,
    LLMTFLMessage,
    LLMToolMessage,
    LLMUserMessage,
    call_ids_of,
    merge_user_messages,
)
from tfrobot.schema.message.msg_part import TextUserMsgPart
from tfrobot.schema.message.tool_call import ToolCall

MISSING_RESULT = "[no result: the tool call was interrupted before it returned]"
"""Content of the error result inserted for a call that has none."""

EMPTY_CONSOLE = "(the script printed nothing)"
"""Content of console output that was empty (empty text blocks are rejected by several providers)."""


def normalize(msgs: Sequence[BaseLLMMessage]) -> list[LLMMessage]:
    """Repair `msgs` into a conversation every provider accepts (see the module docstring).

    A conversation that needs no repair (the usual case) is recognised in one linear scan and returned as
    it is (a new list of the same messages); anything else goes through the full repair pass, whose
    output the scan accepts unchanged (idempotency)."""
    if _well_formed(msgs):
        return cast("list[LLMMessage]", list(msgs))
    return repair(msgs)


def normalize_request(request: LLMRequestMessages) -> list[LLMMessage]:
    """`normalize(request.to_list())`, which every request goes through, in one scan when possible.

    The scan of the flattened entries rejects what `to_list` would merge (neighbouring system messages,
    neighbouring user messages carrying the same thing) as well as what needs repair, so when it passes,
    the flattened entries are the answer; otherwise the two steps run as they are."""
    flat = request.flat()
    if _well_formed(flat):
        return cast("list[LLMMessage]", flat)
    return normalize(request.to_list())


def repair(msgs: Sequence[BaseLLMMessage]) -> list[LLMMessage]:
    """The full repair pass, without the well-formed shortcut (`normalize` returns the same)."""
    typed = [_typed(i, msg) for i, msg in enumerate(msgs)]
    return _merge_same_role(_pair_tool_results(_scope_call_ids(_drop_empty(typed))))


_NO_ZONE: Mapping[str, int] = MappingProxyType({})


def _blank(text: str) -> bool:
    return not text or text.isspace()


def _well_formed(msgs: Sequence[BaseLLMMessage]) -> bool:
    """Whether the repair pass would return `msgs` unchanged (`WellFormedScan`, over the whole list)."""
    scan = WellFormedScan()
    return scan.feed(msgs) and scan.complete()


class WellFormedScan:
    """Whether the repair pass would return the messages fed so far unchanged: every message of a known
    kind, nothing empty, every call id unique and answered right after its call in call order (named
    results, then at most one media carrier per call, in call order), no orphan result or misplaced
    carrier, no same-role neighbours to merge, not even system messages (which only `to_list` merges: so a
    pass also proves that `to_list` has nothing to merge, see `normalize_request`). False means "not
    proven", never "broken": the repair pass then decides.

    Kinds are told by exact class (`type(msg) is`, a third of the cost of a `match` on class patterns, and
    this runs for every message of every request): an instance of a subclass is "not proven" either, and
    the repair pass, which dispatches with `isinstance`, takes it.

    The scan is a left fold over the messages, so it can be fed in pieces: feeding a list, then the
    messages that follow it, decides exactly what one scan of the whole would (`request_builder.py` scans
    a turn's history once and then only each step's new messages). After a piece fails, the scan stays
    failed."""

    __slots__ = ("_calls", "_next_result", "_ok", "_pending", "_prev", "_strays", "_waiting", "_zone", "_zone_at")

    def __init__(self) -> None:
        self._calls: set[str] = set()
        self._pending: Sequence[ToolCall] = ()  # calls of the last assistant message whose results must come next
        self._next_result = self._waiting = 0  # the next of them, and how many there are
        self._zone: Mapping[str, int] = _NO_ZONE  # call id -> position: calls whose carriers may follow here
        self._zone_at = -1  # position in `zone` of the last carrier seen
        self._strays: set[str] = set()  # attachment_of of carriers outside a zone: must not turn out to be call ids
        self._prev: BaseLLMMessage | None = None
        self._ok = True

    def copy(self) -> WellFormedScan:
        """A scan in this one's state, fed on independently of it."""
        twin = WellFormedScan()
        twin._calls, twin._strays, twin._pending, twin._prev = (
            set(self._calls),
            set(self._strays),
            self._pending,
            self._prev,
        )
        twin._next_result, twin._waiting, twin._zone, twin._zone_at = (
            self._next_result,
            self._waiting,
            self._zone,
            self._zone_at,
        )
        twin._ok = self._ok
        return twin

    def complete(self) -> bool:
        """Whether the messages fed so far, ending here, are well formed: every call answered, no stray
        carrier naming a call."""
        return self._ok and self._next_result == self._waiting and self._strays.isdisjoint(self._calls)

    def feed(self, msgs: Sequence[BaseLLMMessage]) -> bool:
        """Scan `msgs` after those fed before; False as soon as one is not proven well formed there."""
        if not self._ok:
            return False
        # The state in locals for the loop (attribute access would double its cost), stored back after it.
        calls, pending, strays, prev = self._calls, self._pending, self._strays, self._prev
        next_result, waiting, zone, zone_at = self._next_result, self._waiting, self._zone, self._zone_at
        self._ok = False  # until the loop below has gone through every message
        for msg in msgs:
            if next_result < waiting:
                if type(msg) is not LLMToolMessage:
                    return False
                if msg.tool_call_id != pending[next_result].id or msg.name is None:
                    return False
                next_result += 1
            elif type(msg) is LLMAssistantMessage:
                text = msg.content
                if text is not None and (not text or text.isspace()):
                    return False
                if type(prev) is LLMAssistantMessage and not prev.tool_calls:
                    return False
                zone = _NO_ZONE
                if msg.tool_calls:
                    zone = {}
                    for call in msg.tool_calls:
                        call_id = call.id
                        if call_id in calls:
                            return False
                        calls.add(call_id)
                        zone[call_id] = len(zone)
                    zone_at, pending, next_result, waiting = -1, msg.tool_calls, 0, len(msg.tool_calls)
                elif text is None and not (
                    msg.reasoning_blocks or msg.reasoning_content or msg.refusal or msg.server_tool_blocks
                ):
                    return False
            elif type(msg) is LLMUserMessage:
                content, owner = msg.content, msg.attachment_of
                if isinstance(content, str):
                    if not content or content.isspace():
                        return False
                elif not content or any(isinstance(p, TextUserMsgPart) and _blank(p.text) for p in content):
                    return False
                if type(prev) is LLMUserMessage and prev.attachment_of == owner and prev.name == msg.name:
                    return False
                if owner is None:
                    zone = _NO_ZONE
                elif (at := zone.get(owner, -1)) > zone_at:
                    zone_at = at  # (several carriers for one call: the repair pass merges or dedupes them)
                elif owner in calls:
                    return False
                else:
                    strays.add(owner)
                    zone = _NO_ZONE
            elif type(msg) is LLMSystemMessage:
                if _blank(msg.content) or type(prev) is LLMSystemMessage:
                    return False
                zone = _NO_ZONE
            elif type(msg) is LLMTFLMessage:
                if _blank(msg.content):
                    return False
                zone = _NO_ZONE
            elif type(msg) is LLMFunctionMessage:
                zone = _NO_ZONE
            else:
                return False  # a result out of place, or a kind not known exactly: the repair pass decides
            prev = msg
        self._pending, self._prev, self._next_result, self._waiting = pending, prev, next_result, waiting
        self._zone, self._zone_at, self._ok = zone, zone_at, True
        return True


def _typed(index: int, msg: BaseLLMMessage) -> LLMMessage:
    if isinstance(
        msg,
        LLMSystemMessage | LLMUserMessage | LLMAssistantMessage | LLMToolMessage | LLMFunctionMessage | LLMTFLMessage,
    ):
        return msg
    raise InvalidConversationError(
        f"messages[{index}]: {type(msg).__name__} is not a known LLM message kind. "
        "Fix: convert it with to_llm_request() into one of the LLM*Message classes."
    )


def _drop_empty(msgs: list[LLMMessage]) -> list[LLMMessage]:
    out: list[LLMMessage] = []
    for msg in msgs:
        if isinstance(msg, LLMSystemMessage) and not msg.content.strip():
            continue
        if isinstance(msg, LLMUserMessage):
            if isinstance(msg.content, str):
                if not msg.content.strip():
                    continue
            else:
                parts = [p for p in msg.content if not (isinstance(p, TextUserMsgPart) and not p.text.strip())]
                if not parts:
                    continue
                if len(parts) != len(msg.content):
                    msg = replace(msg, content=parts)
        if isinstance(msg, LLMTFLMessage) and not msg.content.strip():
            msg = LLMTFLMessage(content=EMPTY_CONSOLE)
        if isinstance(msg, LLMAssistantMessage):
            if msg.content is not None and not msg.content.strip():
                msg = replace(msg, content=None)
            if msg.content is None and not (
                msg.tool_calls or msg.reasoning_blocks or msg.reasoning_content or msg.refusal or msg.server_tool_blocks
            ):
                continue  # (a refusal, or only the provider's server-side blocks, is something: kept)
        out.append(msg)
    return out


def _scope_call_ids(msgs: list[LLMMessage]) -> list[LLMMessage]:
    """Give a call whose id an earlier turn already used a fresh id for this request.

    Some providers number calls per reply (OpenAI-compatible servers answering `call_0` every turn), so a
    call id is only unique within a turn: up to the next user message. A repeated id in a later turn is a
    new call; its results and attachment carriers follow it under `<id>_<n>`. Within one turn a repeated
    id stays (an identical duplicate is dropped, a different one reported, by `_pair_tool_results`)."""
    taken = call_ids_of(msgs)
    earlier: set[str] = set()  # ids used by calls of earlier turns
    in_turn: set[str] = set()
    latest: dict[str, str] = {}  # id as stored -> id in this request, for the calls seen last
    out: list[LLMMessage] = []
    for msg in msgs:
        if isinstance(msg, LLMUserMessage) and msg.attachment_of is None:
            earlier |= in_turn
            in_turn = set()
        elif isinstance(msg, LLMAssistantMessage) and msg.tool_calls:
            calls = []
            for call in msg.tool_calls:
                if call.id in earlier and call.id not in in_turn:
                    latest[call.id] = _fresh_id(call.id, taken)
                elif call.id not in in_turn:
                    latest[call.id] = call.id
                in_turn.add(call.id)
                calls.append(call if latest[call.id] == call.id else call.model_copy(update={"id": latest[call.id]}))
            if calls != msg.tool_calls:
                msg = replace(msg, tool_calls=calls)
        elif isinstance(msg, LLMToolMessage) and latest.get(msg.tool_call_id, msg.tool_call_id) != msg.tool_call_id:
            msg = replace(msg, tool_call_id=latest[msg.tool_call_id])
        elif isinstance(msg, LLMUserMessage) and (owner := msg.attachment_of) and latest.get(owner, owner) != owner:
            msg = replace(msg, attachment_of=latest[owner])
        out.append(msg)
    return out


def _fresh_id(call_id: str, taken: set[str]) -> str:
    n = 2
    while f"{call_id}_{n}" in taken:
        n += 1
    taken.add(f"{call_id}_{n}")
    return f"{call_id}_{n}"


def _pair_tool_results(msgs: list[LLMMessage]) -> list[LLMMessage]:
    calls: dict[str, tuple[int, str]] = {}
    seen_assistant: dict[str, LLMAssistantMessage] = {}
    kept: list[LLMMessage] = []
    for index, msg in enumerate(msgs):
        if isinstance(msg, LLMAssistantMessage) and msg.tool_calls:
            first = msg.tool_calls[0].id
            if first in seen_assistant and seen_assistant[first] == msg:
                continue  # the same assistant message twice (e.g. trace and chain both supplied it)
            for call in msg.tool_calls:
                if call.id in calls:
                    raise InvalidConversationError(
                        f"messages[{index}]: tool call id {call.id!r} ({call.name}) was already used by "
                        f"messages[{calls[call.id][0]}]. Fix: give every tool call a unique id."
                    )
                calls[call.id] = (index, call.name)
                seen_assistant[call.id] = msg
        kept.append(msg)

    results: dict[str, LLMToolMessage] = {}
    carriers: dict[str, list[LLMUserMessage]] = {}
    for index, msg in enumerate(kept):
        if isinstance(msg, LLMToolMessage) and msg.tool_call_id in calls:
            if msg.name is None:
                msg = replace(msg, name=calls[msg.tool_call_id][1])
            previous = results.get(msg.tool_call_id)
            if previous is not None and previous != msg:
                raise InvalidConversationError(
                    f"messages[{index}]: a second, different result for tool call {msg.tool_call_id!r}. "
                    "Fix: keep one result per call (a retried tool must answer under a new call)."
                )
            results[msg.tool_call_id] = msg
        elif isinstance(msg, LLMUserMessage) and msg.attachment_of in calls:
            carriers.setdefault(msg.attachment_of, []).append(msg)

    out: list[LLMMessage] = []
    for msg in kept:
        if isinstance(msg, LLMToolMessage):
            if msg.tool_call_id not in calls:
                out.append(_orphan(msg))
            continue
        if isinstance(msg, LLMUserMessage) and msg.attachment_of in calls:
            continue
        out.append(msg)
        if isinstance(msg, LLMAssistantMessage):
            for call in msg.tool_calls:
                result = results.get(call.id)
                out.append(
                    result
                    or LLMToolMessage(tool_call_id=call.id, name=call.name, content=MISSING_RESULT, is_error=True)
                )
            for call in msg.tool_calls:
                out.extend(_dedupe(carriers.get(call.id, [])))
    return out


def _dedupe(items: list[LLMUserMessage]) -> list[LLMUserMessage]:
    out: list[LLMUserMessage] = []
    for item in items:
        if item not in out:
            out.append(item)
    return out


def _orphan(msg: LLMToolMessage) -> LLMUserMessage:
    label = f"tool {msg.name}" if msg.name else "a tool"
    kind = "error" if msg.is_error else "result"
    header = f"[{kind} of {label} (call {msg.tool_call_id}); its call is no longer in the conversation]"
    return LLMUserMessage(content=f"{header}\n{msg.content}")


def _merge_same_role(msgs: list[LLMMessage]) -> list[LLMMessage]:
    out: list[LLMMessage] = []
    for msg in msgs:
        prev = out[-1] if out else None
        if isinstance(prev, LLMAssistantMessage) and isinstance(msg, LLMAssistantMessage) and not prev.tool_calls:
            out[-1] = _merge_assistant(prev, msg)
        elif (joined := merge_user_messages(prev, msg)) is not None:
            out[-1] = joined
        else:
            out.append(msg)
    return out


def _merge_assistant(prev: LLMAssistantMessage, msg: LLMAssistantMessage) -> LLMAssistantMessage:
    """Two consecutive assistant messages as one: texts joined by a blank line, everything else kept in order
    (the second message's server-side blocks move with its text, by the length of what now precedes it)."""
    shift = len(prev.content) + 2 if prev.content and msg.content else len(prev.content or "")
    moved = [b.model_copy(update={"text_offset": b.text_offset + shift}) for b in msg.server_tool_blocks]
    return LLMAssistantMessage(
        content="\n\n".join(c for c in (prev.content, msg.content) if c) or None,
        tool_calls=msg.tool_calls,
        reasoning_content="\n\n".join(r for r in (prev.reasoning_content, msg.reasoning_content) if r) or None,
        reasoning_blocks=[*prev.reasoning_blocks, *msg.reasoning_blocks],
        model=prev.model or msg.model,
        refusal="\n\n".join(r for r in (prev.refusal, msg.refusal) if r) or None,
        server_tool_blocks=(*prev.server_tool_blocks, *moved),
    )

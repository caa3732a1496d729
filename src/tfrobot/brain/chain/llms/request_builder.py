"""`RequestBuilder`: the requests of one turn's steps, the history converted once (issue 18).

An agent loop of k steps sends k requests that differ only at the end: each holds the stored history and
the current input (the *prefix*), then the chain's messages of the turn so far (the *suffix*), which grow by
a few messages a step. `construct_request_params` converts all of it every step (O(N·k) for the turn); a
builder, made by the chain at the start of a turn, converts the prefix once and then, per step, only the
suffix, so a step costs O(messages of the turn) and the request is exactly the one a fresh
`construct_request_params` would build (deep equality of the SDK's keyword arguments, tested per provider).

The cut is where no phase of the pipeline looks across it, which the builder checks rather than assumes:

* phase 1: no message of the suffix has the `msg_id` of an earlier one (a fresh build would drop it);
* phase 4: each step's new messages pass the well-formed scan after the history + input (`WellFormedScan`
  is fed in pieces, deciding what one scan of the whole would: the request is then the flattened messages
  as they are, as in `normalize_request`). A history that needs a repair or a merge (two user messages in
  a row) is normalized alone, once; the suffix must then name no call id the history names, before or
  after its repair, so that a repair of the whole request (which renames a call id a later turn reuses,
  and moves a result after its call) would have left the suffix as it is and done the same to the history;
* phase 5: the prefix ends with a plain user message and the suffix holds none, nor a system message (so
  reasoning replay, which counts from the last user turn, treats each side as a whole request would; and
  every attachment carrier of the suffix belongs to a call of the suffix, which the scan guarantees); the
  adapter would not have joined the prefix's last API message with the suffix's first (`_same_turn`: the
  roles differ); the prefix's conversion only adds parameters (Anthropic's container), which a suffix that
  sets its own overrides, as its later message would in one conversion.

When a check fails the step is built fresh, and so is every later step of the turn. The builder takes the
history and input as they are at its first request: a chain makes one per turn, during which its history
does not change; a changed history needs a new builder. The suffix is compared by identity with the one
of the step before: a list that is not that list plus new messages is converted again from the cut.

Every request is a new dict holding a new list of messages; the prefix's API message dicts are shared by
all of them and never changed (the adapters' `_assemble_api_request` and `place_breakpoints` replace what
they change), so a request sent and kept by a caller stays as it was built.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from tfrobot.brain.chain.llms.errors import LLMError
from tfrobot.brain.chain.llms.normalize import WellFormedScan, normalize
from tfrobot.schema.message.base import BaseMessage
from tfrobot.schema.message.errors import MessageContractError
from tfrobot.schema.message.llms.llm_requests import (
    BaseLLMMessage,
    LLMAssistantMessage,
    LLMMessage,
    LLMSystemMessage,
    LLMToolMessage,
    LLMUserMessage,
)
from tfrobot.schema.tool_definition import ToolDefinition

if TYPE_CHECKING:
    from tfrobot.brain.chain.llms.chat_llm import ChatLLM


@dataclass
class _Prefix:
    """The history and input converted once: what every step's request starts with."""

    params: dict[str, Any]
    """Phase 2's parameters, before the conversion of the messages added any."""
    added: dict[str, Any]
    """The parameters the prefix's conversion added (`reformat_request_msg_to_api` may set some)."""
    api_msgs: list[Any]
    """The prefix's API messages."""
    ids: set[str]
    """The `msg_id`s of the prefix's messages (a suffix message with one of them is dropped by a fresh build)."""
    scan: WellFormedScan
    """The well-formed scan after the prefix, kept unfed: the suffix's scan starts from a copy."""
    mentioned: frozenset[str]
    """When the history needed a repair: every call id it names, before and after the repair (a suffix
    naming none of them is left as it is by a repair of the whole request); else empty."""


@dataclass
class _Suffix:
    """The turn's messages converted so far, and the state of the checks after them."""

    scan: WellFormedScan
    msgs: list[BaseMessage] = field(default_factory=list)
    llm_msgs: list[LLMMessage] = field(default_factory=list)
    ids: set[str] = field(default_factory=set)


class RequestBuilder:
    """The SDK keyword arguments of each step of one turn, equal to `construct_request_params` of the same
    arguments, with the history and input converted once (see the module docstring).

    `llm.request_builder(current_input, conversation, **options)` makes one; `build(intermediate_msgs,
    tools)` is `llm.construct_request_params(current_input, conversation, tools,
    intermediate_msgs=intermediate_msgs, **options)`. `reused` counts the requests built from the
    converted prefix, `fresh` those built whole (a check of the module docstring failed)."""

    def __init__(
        self,
        llm: ChatLLM,
        current_input: BaseMessage,
        conversation: Sequence[BaseMessage] | None = None,
        **options: Any,
    ) -> None:
        self.llm = llm
        self.current_input = current_input
        self.conversation = list(conversation or ())
        self.options = options
        self.reused = 0
        self.fresh = 0
        self._prefix: _Prefix | None = None
        self._suffix: _Suffix | None = None
        self._reusable = True

    def build(
        self, intermediate_msgs: Sequence[BaseMessage] | None = None, tools: Sequence[ToolDefinition] | None = None
    ) -> dict[str, Any]:
        """The request of a step whose chain messages so far are `intermediate_msgs`, offering `tools`."""
        turn = list(intermediate_msgs or ())
        if self._reusable:
            request = self._reuse(turn, tools)
            if request is not None:
                self.reused += 1
                return request
            self._reusable = False
        self.fresh += 1
        return self.llm.construct_request_params(
            self.current_input, self.conversation, tools, intermediate_msgs=turn, **self.options
        )

    def _reuse(self, turn: list[BaseMessage], tools: Sequence[ToolDefinition] | None) -> dict[str, Any] | None:
        """The request from the converted prefix, or None when a check fails (then it is built fresh, which
        also raises the error a malformed message deserves, with its position in the whole request)."""
        prefix = self._prefix or self._convert_prefix()
        if prefix is None:
            return None
        suffix = self._extend(prefix, turn)
        if suffix is None:
            return None
        llm = self.llm
        params = dict(prefix.params)
        try:
            api_suffix = llm.reformat_request_msg_to_api(suffix.llm_msgs, params) if suffix.llm_msgs else []
        except LLMError:
            return None
        if api_suffix and prefix.api_msgs and llm._same_turn(prefix.api_msgs[-1], api_suffix[0]):
            return None
        for key, value in prefix.added.items():
            params.setdefault(key, value)
        return llm._assemble_api_request(params, [*prefix.api_msgs, *api_suffix], tools)

    def _convert_prefix(self) -> _Prefix | None:
        """Phases 1-5 of the history and input; None when the cut after them is not clean."""
        llm = self.llm
        try:
            ctx = llm.construct_prompt_context(self.current_input, self.conversation)
            ids = {msg.msg_id for msg in ctx.conversation.msgs}  # before the system prompt is lifted out of it
            params = llm._configure_api_params(ctx, dict(self.options))
            request = llm.format_to_request_msgs(ctx)
        except (LLMError, MessageContractError):
            return None
        flat = request.flat()
        scan = WellFormedScan()
        mentioned: frozenset[str] = frozenset()
        if scan.feed(flat) and scan.complete():
            llm_msgs = cast("list[LLMMessage]", flat)
        else:  # the history needs a repair (or a merge): repaired alone, as a fresh build repairs the whole
            try:
                llm_msgs = normalize(request.to_list())
            except LLMError:
                return None
            mentioned = frozenset(_mentioned(flat) | _mentioned(llm_msgs))
            scan = WellFormedScan()
            if not (scan.feed(llm_msgs) and scan.complete()):
                return None
        if not llm_msgs or not _plain_user(llm_msgs[-1]):
            return None
        before = dict(params)
        try:
            api_msgs = llm.reformat_request_msg_to_api(llm_msgs, params)
        except LLMError:
            return None
        if any(key not in params or params[key] is not value for key, value in before.items()):
            return None  # the conversion changed a parameter: only adding one is understood here
        added = {key: value for key, value in params.items() if key not in before}
        self._prefix = _Prefix(params=before, added=added, api_msgs=api_msgs, ids=ids, scan=scan, mentioned=mentioned)
        return self._prefix

    def _extend(self, prefix: _Prefix, turn: list[BaseMessage]) -> _Suffix | None:
        """The suffix of `turn`: the last step's with the new messages converted and checked (from the cut
        again when `turn` does not start with the last step's messages); None when a check fails."""
        suffix = self._suffix
        if (
            suffix is None
            or len(turn) < len(suffix.msgs)
            or any(a is not b for a, b in zip(turn, suffix.msgs, strict=False))
        ):
            suffix = self._suffix = _Suffix(scan=prefix.scan.copy())
        new = turn[len(suffix.msgs) :]
        if not new:
            return suffix
        entries: list[BaseLLMMessage] = []
        for msg in new:
            if msg.msg_id in prefix.ids or msg.msg_id in suffix.ids:
                return None
            suffix.ids.add(msg.msg_id)
            try:
                converted = msg.to_llm_request()
            except MessageContractError:
                return None
            if isinstance(converted, list):
                entries += converted
            else:
                entries.append(converted)
        if not suffix.llm_msgs and entries and type(entries[0]) is not LLMAssistantMessage:
            return None
        if any(_plain_user(entry) or type(entry) is LLMSystemMessage for entry in entries):
            return None
        if prefix.mentioned and not prefix.mentioned.isdisjoint(_mentioned(entries)):
            return None
        if not (suffix.scan.feed(entries) and suffix.scan.complete()):
            return None
        suffix.msgs += new
        suffix.llm_msgs += cast("list[LLMMessage]", entries)
        return suffix


def _mentioned(msgs: Sequence[BaseLLMMessage]) -> set[str]:
    """The call ids `msgs` name: of calls, of results, of the results attachment carriers belong to."""
    ids: set[str] = set()
    for msg in msgs:
        if isinstance(msg, LLMAssistantMessage):
            ids.update(call.id for call in msg.tool_calls)
        elif isinstance(msg, LLMToolMessage):
            ids.add(msg.tool_call_id)
        elif isinstance(msg, LLMUserMessage) and msg.attachment_of is not None:
            ids.add(msg.attachment_of)
    return ids


def _plain_user(msg: BaseLLMMessage) -> bool:
    """A user turn (not the attachments of a result): where reasoning replay and turn merging start over."""
    return type(msg) is LLMUserMessage and msg.attachment_of is None

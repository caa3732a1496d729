"""`RequestBuilder`: the requests of one turn's steps, the history converted once (issue 18).

An agent loop of k steps sends k requests that differ only at the end: each holds the stored history and
the current input (the *prefix*), then the chain's messages of the turn so far (the *suffix*), which grow by
a few messages a step. `construct_request_params` converts all of it every step (O(N·k) for the turn); a
builder, made by the chain at the start of a turn, converts the prefix once and then, per step, only the
step's new messages, so a step costs O(new messages) and the request is exactly the one a fresh
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
* phase 5 within the suffix: each step (an assistant message with calls, then its results, their carriers
  and console output) is converted alone, once, when every assistant message of the turn makes calls
  (reasoning replay of `tool_turns` looks at the whole turn) and no two steps' API messages would have been
  joined; otherwise the suffix is converted whole each step, which is still O(turn).

When a check fails the step is built fresh, and so is every later step of the turn.

The contract on what changes during the turn, a snapshot of it taken as it goes: the builder copies the
history *list* when it is made (a message appended to the caller's list later is not sent), and converts the
history's messages and the input at its first request; the suffix is compared by identity with the one of
the step before (a list that is not that list plus new messages is converted again from the cut), and each
of its messages is converted when it first comes. A message object edited in place after its conversion is
sent as it was converted; media read by path is read once per turn, when its message is first converted
(a chart file a tool rewrites each step goes out as each step read it; a file removed later fails nothing).
A chain makes one builder per turn, during which its history does not change: a changed history needs a new
builder. Files are read again, as they are then, where the builder converts a step's messages again: the
steps after a reply without calls (the suffix is then converted whole at every request) and the last step
when messages are added to it; a step built fresh (a check failed) converts everything as it is then.

Time is the one input decided again at every `build`: the parameters a conversion adds by the clock are
those a fresh build would add then: an Anthropic container that expires during the turn is dropped from the
steps after it (the API refuses an expired one), by converting again, alone, only the latest replies with
server-side blocks (`_added_now`).

Every request is a new dict holding a new list of messages; the prefix's API message dicts are shared by
all of them and never changed (the adapters' `_assemble_api_request` and `place_breakpoints` replace what
they change), so a request sent and kept by a caller stays as it was built.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, cast

from tfrobot.brain.chain.llms.errors import LLMError
from tfrobot.brain.chain.llms.normalize import WellFormedScan, normalize
from tfrobot.schema.brain.chain.prompt.context_vars import PromptContext
from tfrobot.schema.message.base import BaseMessage
from tfrobot.schema.message.errors import MessageContractError
from tfrobot.schema.message.llms.llm_requests import (
    BaseLLMMessage,
    LLMAssistantMessage,
    LLMMessage,
    LLMRequestMessages,
    LLMSystemMessage,
    LLMToolMessage,
    LLMUserMessage,
)
from tfrobot.schema.tool_definition import ToolDefinition


class _RequestPhases(Protocol):
    """What a builder uses of its `ChatLLM`: the request phases and the join check. Declared here, not
    imported, because `chat_llm.py` imports this module (a circle otherwise)."""

    def construct_prompt_context(
        self, current_input: BaseMessage, conversation: Sequence[BaseMessage] | None = None
    ) -> PromptContext: ...

    def _configure_api_params(self, ctx: PromptContext, options: dict[str, Any]) -> dict[str, Any]: ...

    def format_to_request_msgs(self, ctx: PromptContext) -> LLMRequestMessages: ...

    def reformat_request_msg_to_api(self, msgs: list[LLMMessage], params: dict[str, Any]) -> list[Any]: ...

    def _assemble_api_request(
        self, params: dict[str, Any], api_msgs: list[Any], tools: Sequence[ToolDefinition] | None
    ) -> dict[str, Any]: ...

    def _same_turn(self, last: Any, first: Any) -> bool: ...

    def construct_request_params(
        self,
        current_input: BaseMessage,
        conversation: Sequence[BaseMessage] | None = None,
        tools: Sequence[ToolDefinition] | None = None,
        *,
        intermediate_msgs: Sequence[BaseMessage] | None = None,
        **options: Any,
    ) -> dict[str, Any]: ...


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
    timed: list[LLMAssistantMessage] = field(default_factory=list)
    """The prefix's replies with server-side blocks, whose conversion may add a parameter that lapses
    (Anthropic's container: `_added_now`); one that adds none is dropped."""


@dataclass
class _Step:
    """One step of the turn converted: its assistant message and what answers it (results, carriers,
    console output), at `start` of the suffix's messages and `api_start` of its API messages."""

    start: int
    api_start: int
    added: dict[str, Any]
    """The parameters its conversion added."""


@dataclass
class _Suffix:
    """The turn's messages converted so far, and the state of the checks after them."""

    scan: WellFormedScan
    msgs: list[BaseMessage] = field(default_factory=list)
    llm_msgs: list[LLMMessage] = field(default_factory=list)
    ids: set[str] = field(default_factory=set)
    api_msgs: list[Any] = field(default_factory=list)
    """The API messages of `steps`, in order."""
    steps: list[_Step] = field(default_factory=list)
    done: int = 0
    """How many of `llm_msgs` the steps hold."""
    timed: list[LLMAssistantMessage] = field(default_factory=list)
    """The suffix's replies with server-side blocks (as `_Prefix.timed`)."""
    by_step: bool = True
    """Whether the steps are converted one by one; False once a step's conversion could depend on another's
    (an assistant message without calls: OpenAI's `tool_turns` replay looks at the whole turn; or two
    steps' API messages the adapter would have joined): the suffix is then converted whole every step."""


class RequestBuilder:
    """The SDK keyword arguments of each step of one turn, equal to `construct_request_params` of the same
    arguments, with the history and input converted once (see the module docstring).

    `llm.request_builder(current_input, conversation, **options)` makes one; `build(intermediate_msgs,
    tools)` is `llm.construct_request_params(current_input, conversation, tools,
    intermediate_msgs=intermediate_msgs, **options)`. `reused` counts the requests built from the
    converted prefix, `fresh` those built whole (a check of the module docstring failed)."""

    def __init__(
        self,
        llm: _RequestPhases,
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
        converted = self._convert_suffix(prefix, suffix)
        if converted is None:
            return None
        api_suffix, added = converted
        if added:
            redecided = self._added_now(prefix, suffix, set(added))
            if redecided is None:
                return None
            added = redecided
        params = dict(prefix.params)
        for key, value in added.items():
            params.setdefault(key, value)
        return self.llm._assemble_api_request(params, [*prefix.api_msgs, *api_suffix], tools)

    def _convert_suffix(self, prefix: _Prefix, suffix: _Suffix) -> tuple[list[Any], dict[str, Any]] | None:
        """The suffix's API messages and the parameters the conversion of the whole request would add (the
        latest message's win: a step's over the history's); None when the cut or a conversion fails.

        Step by step when `by_step` holds: a step whose messages are all converted is kept, the last one
        is converted again if messages were added to it, and each new one is converted alone (its
        assistant message starts it; results, carriers and console output answer it and belong to it)."""
        if suffix.by_step:
            if self._convert_steps(prefix, suffix):
                added = dict(prefix.added)
                for step in suffix.steps:
                    added.update(step.added)
                return suffix.api_msgs, added
            suffix.by_step, suffix.steps, suffix.api_msgs = False, [], []
        converted = self._convert(suffix.llm_msgs, prefix.params)
        if converted is None:
            return None
        api_msgs, added = converted
        if api_msgs and prefix.api_msgs and self.llm._same_turn(prefix.api_msgs[-1], api_msgs[0]):
            return None
        return api_msgs, {**prefix.added, **added}

    def _added_now(self, prefix: _Prefix, suffix: _Suffix, keys: set[str]) -> dict[str, Any] | None:
        """The parameters the conversion of the whole request adds at this build, as a fresh build decides
        them by the clock now: each of `keys` from the latest reply (of the suffix, then of the prefix) that
        adds it, converted alone again; None when one fails to. A reply that adds nothing is dropped from
        its `timed` list, as what lapses does not come back (an expired container), so a turn converts
        each reply that stops adding once more, and otherwise only the latest ones."""
        added: dict[str, Any] = {}
        for timed in (suffix.timed, prefix.timed):
            for i in range(len(timed) - 1, -1, -1):
                if keys <= added.keys():
                    return added
                converted = self._convert([timed[i]], prefix.params)
                if converted is None:
                    return None
                if not converted[1]:
                    del timed[i]
                for key, value in converted[1].items():
                    added.setdefault(key, value)
        return added

    def _convert_steps(self, prefix: _Prefix, suffix: _Suffix) -> bool:
        """Convert the steps not converted yet, each alone; False when they cannot be (see `by_step`)."""
        msgs = suffix.llm_msgs
        start = suffix.done
        if start == len(msgs):
            return True
        if type(msgs[start]) is not LLMAssistantMessage:  # messages added to the last step: it is converted again
            last = suffix.steps.pop()
            start = last.start
            del suffix.api_msgs[last.api_start :]
        bounds = [i for i in range(start, len(msgs)) if type(msgs[i]) is LLMAssistantMessage]
        for begin, end in zip(bounds, [*bounds[1:], len(msgs)], strict=True):
            step = msgs[begin:end]
            first = step[0]
            if not (isinstance(first, LLMAssistantMessage) and first.tool_calls):
                return False
            converted = self._convert(step, prefix.params)
            if converted is None:
                return False
            api_msgs, added = converted
            before = suffix.api_msgs[-1] if suffix.api_msgs else prefix.api_msgs[-1] if prefix.api_msgs else None
            if api_msgs and before is not None and self.llm._same_turn(before, api_msgs[0]):
                return False
            suffix.steps.append(_Step(start=begin, api_start=len(suffix.api_msgs), added=added))
            suffix.api_msgs += api_msgs
        suffix.done = len(msgs)
        return True

    def _convert(self, msgs: list[LLMMessage], base: dict[str, Any]) -> tuple[list[Any], dict[str, Any]] | None:
        """Phase 5 of `msgs` on a copy of the parameters `base`: their API messages and the parameters the
        conversion added; None when it fails or changes a parameter (only adding one is understood here)."""
        params = dict(base)
        try:
            api_msgs = self.llm.reformat_request_msg_to_api(msgs, params)
        except LLMError:
            return None
        if any(key not in params or params[key] is not value for key, value in base.items()):
            return None
        return api_msgs, {key: value for key, value in params.items() if key not in base}

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
        converted = self._convert(llm_msgs, params)
        if converted is None:
            return None
        api_msgs, added = converted
        self._prefix = _Prefix(
            params=params,
            added=added,
            api_msgs=api_msgs,
            ids=ids,
            scan=scan,
            mentioned=mentioned,
            timed=_timed(llm_msgs),
        )
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
        suffix.timed += _timed(entries)
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


def _timed(msgs: Sequence[BaseLLMMessage]) -> list[LLMAssistantMessage]:
    """The replies of `msgs` with server-side blocks: the only messages whose conversion adds a parameter."""
    return [msg for msg in msgs if isinstance(msg, LLMAssistantMessage) and msg.server_tool_blocks]


def _plain_user(msg: BaseLLMMessage) -> bool:
    """A user turn (not the attachments of a result): where reasoning replay and turn merging start over."""
    return type(msg) is LLMUserMessage and msg.attachment_of is None

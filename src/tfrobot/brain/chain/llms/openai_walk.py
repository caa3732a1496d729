"""OpenAI chat completions' one walk: phases 1-5 of `ChatLLM` in one pass over the stored messages, for the
conversations nearly every request is made of (`OpenAIChat._direct_request` delegates here). It is its own
module because it is a second writer of the same request, checked against the phases rather than part of them.
It does not import `openai.py` (which imports it): what it uses of the adapter is `_OpenAIWalker`, and the class
whose hooks it stands in for is passed as `base`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, cast

from tfrobot.brain.chain.llms.portable import ToolNames
from tfrobot.brain.chain.llms.profiles import ModelProfile, ReasoningReplay, model_profile
from tfrobot.brain.chain.llms.wire import provider_of
from tfrobot.schema.message.base import BaseMessage
from tfrobot.schema.message.conversation.message_dto import (
    AssistantTextMessage,
    AttachmentMessage,
    AudioMessage,
    ContactMessage,
    HistoryMessage,
    ImageMessage,
    MultiPartMessage,
    TextMessage,
    UrlMessage,
    UserMessage,
    VideoMessage,
)
from tfrobot.schema.message.errors import MessageContractError
from tfrobot.schema.message.llms.llm_requests import LLMUserMessage
from tfrobot.schema.message.msg_part import TextUserMsgPart
from tfrobot.schema.message.tool_call import ToolCall, ToolReturn


class _OpenAIWalker(Protocol):
    """What the walk uses of `OpenAIChat`: its settings, phase 2, the replay rule and the user message writer."""

    @property
    def provider(self) -> str: ...

    @property
    def model(self) -> str: ...

    def api_tool_name(self, name: str) -> str: ...

    def _model_params(self, options: dict[str, Any]) -> dict[str, Any]: ...

    def _replay_mode(self, params: dict[str, Any], profile: ModelProfile) -> ReasoningReplay: ...

    def _user(self, msg: LLMUserMessage, call_ids: set[str], where: str) -> dict[str, Any]: ...


def direct_request(
    llm: _OpenAIWalker,
    base: type,
    current_input: BaseMessage,
    conversation: Sequence[BaseMessage] | None,
    intermediate_msgs: Sequence[BaseMessage] | None,
    options: dict[str, Any],
) -> tuple[dict[str, Any], list[Any]] | None:
    """Phases 1-5 in one walk over the stored messages, for the kinds nearly every conversation is made of:
    system text, user messages, replies (`AssistantTextMessage` without TFL scripts or kept provider
    blocks, with text or calls) and one-result tool messages without media. Traces are expanded as the walk
    reaches their user message; each message is checked by the rules of `WellFormedScan` that apply to its
    kind and written as `reformat_request_msg_to_api` writes its neutral message, without building that
    message. Anything else (console output, attachments, a kind the walk does not know, a message id seen
    twice, a conversation the scan would not prove well formed, `tool_turns` replay) returns None, and the
    phases decide.

    User messages other than unnamed text go through their own `to_llm_request()` and `_user`, the
    latter once the walk is done, in order: so their media is resolved (warned about, refused) only for
    a request built here, exactly as phase 5 would."""
    user_kinds = _direct_user_kinds(type(llm), base)
    if not user_kinds:
        return None
    tops = [*conversation, current_input] if conversation else [current_input]
    if intermediate_msgs:  # (the chain's own messages are not expanded: a trace there is left to the phases)
        if any(isinstance(m, UserMessage) and m.intermediate_trace.records for m in intermediate_msgs):
            return None
        tops += intermediate_msgs
    params = llm._model_params(options)
    profile = model_profile(params.get("model") or llm.model)
    mode = llm._replay_mode(params, profile)
    if mode == "tool_turns":
        return None
    names = ToolNames(llm.api_tool_name)
    calls: set[str] = set()
    pending: Sequence[ToolCall] = ()  # the calls whose results must come next, `waiting - answered` of them
    answered = waiting = 0
    prev: object = None  # the message before, when it matters: `_SYSTEM`, `_SPOKEN` (a reply without calls)
    prev_name: object = _OTHER  # the message before's `name` if it is a user message (None included)
    reasoned: list[tuple[int, dict[str, Any], str, str | None]] = []  # replies with reasoning text, for replay
    users: list[tuple[int, LLMUserMessage]] = []  # user messages whose dicts `_user` writes after the walk
    last_user = -1
    seen: set[str] = set()
    seen_add = seen.add
    out: list[Any] = []
    append = out.append
    group: Sequence[BaseMessage]
    for top in tops:
        if isinstance(top, UserMessage) and (trace := top.intermediate_trace).records:
            records, cut = trace.ordered_cut(top.create_ts)  # (`_expand_trace_for_msg`)
            group = [*records[:cut], top, *records[cut:]]
        else:
            group = (top,)
        for msg in group:
            msg_id = msg.msg_id
            if msg_id in seen:
                return None
            seen_add(msg_id)
            kind = type(msg)
            if kind is BaseMessage:
                role = msg.role
                if role == "tool":
                    reses = msg.tool_reses
                    if answered == waiting or reses is None or len(reses) != 1:
                        return None
                    res = reses[0]
                    if type(res) is not ToolReturn or res.attachments or res.name is None:
                        return None
                    call_id = res.call_id
                    if call_id != pending[answered].id:
                        return None
                    answered += 1
                    content = f"[tool error] {res.result}" if res.is_error else res.result
                    append({"role": "tool", "tool_call_id": call_id, "content": content})
                    prev, prev_name = None, _OTHER
                    continue
                if answered < waiting or role != "system" or prev is _SYSTEM:
                    return None
                text = msg.text()
                if not text or text.isspace():
                    return None
                append({"role": "system", "content": text})
                prev, prev_name = _SYSTEM, _OTHER
            elif answered < waiting:
                return None
            elif kind is AssistantTextMessage:
                fields = msg.__dict__
                if fields["tfl_scripts"] or fields["server_tool_blocks"] or fields["text_blocks"] or prev is _SPOKEN:
                    return None
                said: str | None = fields["content"] or None
                if said is not None and said.isspace():
                    return None
                reply: dict[str, Any] = {"role": "assistant", "content": said}
                tool_calls = fields["tool_calls"]
                if tool_calls:
                    api_calls = reply["tool_calls"] = []
                    for call in tool_calls:
                        call_id = call.id
                        if call_id in calls:
                            return None
                        calls.add(call_id)
                        api_calls.append(
                            {"id": call_id, "type": "function", "function": {"name": names[call.name],
                                                                              "arguments": call.arguments}}
                        )  # fmt: skip
                    pending, answered, waiting = tool_calls, 0, len(tool_calls)
                    prev = None
                elif said is None:  # (reasoning alone: whether it is sent depends on the replay, see `_assistant`)
                    return None
                else:
                    prev = _SPOKEN
                if mode != "never" and (reasoning := fields["reasoning_content"]):
                    reasoned.append((len(out), reply, reasoning, fields["model"]))
                append(reply)
                prev_name = _OTHER
            elif kind in user_kinds:
                if kind is TextMessage and msg.creator is None:
                    asked = cast("str", msg.content)  # (`kind is`, not `isinstance`: no narrowing)
                    if not asked or asked.isspace() or prev_name is None:
                        return None
                    append({"role": "user", "content": asked})
                    prev_name = None
                else:
                    try:
                        user = msg.to_llm_request()
                    except MessageContractError:
                        return None
                    if type(user) is not LLMUserMessage or user.attachment_of is not None or user.name == prev_name:
                        return None
                    parts = user.content
                    if isinstance(parts, str):
                        if not parts or parts.isspace():
                            return None
                    elif not parts or any(
                        isinstance(p, TextUserMsgPart) and (not p.text or p.text.isspace()) for p in parts
                    ):
                        return None
                    users.append((len(out), user))
                    append(None)
                    prev_name = user.name
                last_user = len(out) - 1
                prev = None
            else:
                return None
    if answered < waiting:
        return None
    for index, user in users:
        out[index] = llm._user(user, set(), f"messages[{index}]")
    if reasoned:
        start = 0 if mode == "always" else last_user + 1  # ("tool_loop": after the last user turn)
        for index, reply, reasoning, model in reasoned:
            if index >= start and provider_of(model) == llm.provider:
                reply["reasoning_content"] = reasoning
    return params, out


_SYSTEM, _SPOKEN, _OTHER = object(), object(), object()
"""What `direct_request` remembers of the message before: a system message, a reply without calls; `_OTHER`
as the `name` of a message that is not a user message (it equals no name)."""

_USER_KINDS: frozenset[type[BaseMessage]] = frozenset(
    (TextMessage, ImageMessage, AudioMessage, VideoMessage, AttachmentMessage, ContactMessage, UrlMessage,
     HistoryMessage, MultiPartMessage)
)  # fmt: skip
_DIRECT_HOOKS = (
    "construct_prompt_context", "_expand_trace_for_msg", "_configure_api_params", "_model_params",
    "format_to_request_msgs", "reformat_request_msg_to_api", "_user", "_assistant", "_replayed",
)  # fmt: skip
"""The methods whose work `direct_request` does: a class that overrides one builds its requests the phases' way."""
_KINDS: dict[type, frozenset[type[BaseMessage]]] = {}


def _direct_user_kinds(cls: type, base: type) -> frozenset[type[BaseMessage]]:
    """The user message classes `direct_request` converts for `cls` (exact classes: a subclass may convert
    its own way); none, so no walk, when `cls` overrides one of `base`'s `_DIRECT_HOOKS`."""
    kinds = _KINDS.get(cls)
    if kinds is None:
        own = all(getattr(cls, hook) is getattr(base, hook) for hook in _DIRECT_HOOKS)
        kinds = _KINDS[cls] = _USER_KINDS if own else frozenset()
    return kinds

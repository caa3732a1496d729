"""`ScriptedChat`: an offline, deterministic LLM driven by rules, for demos (`make run`) and tests.

It goes through the same request pipeline as the real providers (so a scripted run proves the
conversation converts), then answers from its rules instead of a network: the first rule whose
`user` pattern matches the latest user text and whose `after` pattern matches what the conversation
ended with (`user`, `tool:<name>`, `console`) gives the reply: text, tool calls (several make a
parallel call) and TFL scripts. `{user}` and `{results}` in a reply are replaced by the latest user
text and by the tool/console results since it.

The patterns are RE2 (`google-re2`), not Python's `re`: rules are configuration a write token can set,
and RE2 matches in time linear in the text, so a rule like `(a+)+$` cannot stall the server on a long
message the way a backtracking engine does. A pattern RE2 cannot compile (a syntax error, or the
backreferences and lookarounds it leaves out) is refused when the rule is made.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator, Iterator, Sequence
from fnmatch import fnmatchcase
from functools import cache, lru_cache
from typing import Any, ClassVar, assert_never

import re2  # type: ignore[import-untyped]
from pydantic import BaseModel, ConfigDict, Field, JsonValue, TypeAdapter, field_validator

from tfrobot.brain.chain.llms.chat_llm import ChatLLM
from tfrobot.brain.chain.llms.media import Capabilities
from tfrobot.brain.chain.llms.stream import (
    FinishDelta,
    ReasoningDelta,
    StreamDelta,
    TextDelta,
    TFLScriptDelta,
    ToolCallDelta,
)
from tfrobot.schema.message.conversation.message_dto import AssistantTextMessage
from tfrobot.schema.message.llms.llm_requests import (
    LLMAssistantMessage,
    LLMFunctionMessage,
    LLMMessage,
    LLMSystemMessage,
    LLMTFLMessage,
    LLMToolMessage,
    LLMUserMessage,
)
from tfrobot.schema.message.llms.llm_response import Usage
from tfrobot.schema.message.tool_call import ToolCall
from tfrobot.schema.tool_definition import ToolDefinition


@cache
def _options() -> Any:
    options = re2.Options()
    options.case_sensitive = False
    options.log_errors = False  # the error comes back in the exception; RE2 would also print it to stderr
    return options


@lru_cache(maxsize=256)
def _pattern(pattern: str) -> Any:
    """A rule's pattern compiled by RE2, case-insensitive; `ValueError` naming the problem otherwise."""
    try:
        return re2.compile(pattern, _options())
    except re2.error as exc:
        reason = exc.args[0].decode() if exc.args and isinstance(exc.args[0], bytes) else str(exc)
        raise ValueError(
            f"{pattern}: {reason}; fix: write it in RE2 syntax (Python's regex without backreferences and "
            "lookarounds), with a backslash before a character meant literally (\\( \\. \\?)"
        ) from None


@cache
def _llm_list_adapter() -> TypeAdapter[list[LLMMessage]]:
    """`TypeAdapter(list[LLMMessage])`, built on first use (not at import: importing the package stays fast)."""
    return TypeAdapter(list[LLMMessage])


class ScriptedCall(BaseModel):
    """A tool call a rule makes."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    name: str
    arguments: dict[str, JsonValue] = Field(default_factory=dict)


class ScriptRule(BaseModel):
    """One rule: when the request looks like this, answer like that."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    user: str = Field(default="", description="RE2 regex searched (case-insensitive) in the latest user text.")
    after: str = Field(
        default="user",
        description="Glob on what the conversation ends with: 'user', 'tool:<name>', 'console', or '*'.",
    )
    results: str = Field(
        default="",
        description="RE2 regex searched (case-insensitive) in the tool/console results since the user turn.",
    )
    reply: str = Field(default="", description="Reply text; `{user}` and `{results}` are filled in.")
    reasoning: str | None = Field(default=None, description="Reasoning text to report.")
    tool_calls: list[ScriptedCall] = Field(default_factory=list, description="Calls to make (parallel if several).")
    tfl_scripts: list[str] = Field(default_factory=list, description="TFL scripts to emit.")

    @field_validator("user", "results")
    @classmethod
    def _compiles(cls, pattern: str) -> str:
        if pattern:
            _pattern(pattern)
        return pattern


DEMO_RULES: tuple[ScriptRule, ...] = (
    ScriptRule(
        user=r"weather",
        reply="Let me check both cities.",
        tool_calls=[
            ScriptedCall(name="weather", arguments={"city": "Paris"}),
            ScriptedCall(name="weather", arguments={"city": "Tokyo"}),
        ],
    ),
    ScriptRule(after="tool:weather", reply="Here is the weather: {results}"),
    ScriptRule(user=r"script|tfl|count", reply="Running a TFL script.", tfl_scripts=["print(1 + 1)"]),
    ScriptRule(after="console", reply="The script printed: {results}"),
)
"""The rules of the offline demo."""


class ScriptedChat(ChatLLM):
    """Deterministic rule-driven LLM; no SDK, no network, no key."""

    provider: ClassVar[str] = "scripted"
    capabilities: ClassVar[Capabilities] = Capabilities(
        user=frozenset({"image", "audio", "video", "file"}),
        tool_result=frozenset({"image", "audio", "video", "file"}),
        url_sources=frozenset({"image", "audio", "video", "file"}),
    )

    model: str = "scripted-1"
    rules: list[ScriptRule] = Field(default_factory=lambda: list(DEMO_RULES), description="Checked in order.")
    fallback: str = Field(default="(scripted) You said: {user}", description="Reply when no rule matches.")

    def reformat_request_msg_to_api(self, msgs: list[LLMMessage], params: dict[str, Any]) -> list[Any]:
        """The neutral messages as JSON dicts: the scripted 'API' reads those."""
        dumped: list[Any] = _llm_list_adapter().dump_python(msgs, mode="json", exclude_none=True)
        return dumped

    def _assemble_api_request(
        self, params: dict[str, Any], api_msgs: list[Any], tools: Sequence[ToolDefinition] | None
    ) -> dict[str, Any]:
        request: dict[str, Any] = {"model": params.pop("model"), "messages": api_msgs}
        if tools:
            request["tools"] = [t.model_dump() | {"parameters": self.clean_tool_schema(t)} for t in tools]
        request.update(params)
        return request

    def _send(self, params: dict[str, Any]) -> Any:
        wire = json.dumps(params["messages"])  # what a provider would receive: JSON only
        msgs = _llm_list_adapter().validate_json(wire)
        user, state, results = _state(msgs)
        rule = next((r for r in self.rules if _matches(r, user, state, results)), None)
        turn = sum(isinstance(m, LLMAssistantMessage) for m in msgs) + 1
        reply = rule.reply if rule is not None else self.fallback
        reply = reply.replace("{user}", user).replace("{results}", "; ".join(results))
        calls = [
            {"id": f"call_{turn}_{i}", "name": c.name, "arguments": json.dumps(c.arguments)}
            for i, c in enumerate(rule.tool_calls if rule is not None else ())
        ]
        words = len(wire.split())
        return {
            "model": params["model"],
            "content": reply,
            "reasoning": rule.reasoning if rule is not None else None,
            "tool_calls": calls,
            "tfl_scripts": list(rule.tfl_scripts) if rule is not None else [],
            "usage": {"input_tokens": words, "output_tokens": len(reply.split())},
        }

    async def _asend(self, params: dict[str, Any]) -> Any:
        """`_send` on a worker thread: reading a long conversation's messages back is CPU work that would
        stall the event loop (a 20,000-message request took seconds)."""
        return await asyncio.to_thread(self._send, params)

    def _send_stream(self, params: dict[str, Any]) -> Iterator[StreamDelta]:
        yield from self._deltas(self._send(params))

    def _deltas(self, raw: Any) -> Iterator[StreamDelta]:
        """The reply `raw` (what `_send` returns) as a provider would stream it: word by word."""
        message = self.parse_response(raw)
        if message.reasoning_content:
            yield ReasoningDelta(text=message.reasoning_content)
        for word in re.findall(r"\S+\s*", message.content):
            yield TextDelta(text=word)
        for index, call in enumerate(message.tool_calls or ()):
            yield ToolCallDelta(index=index, id=call.id, name=call.name)
            yield ToolCallDelta(index=index, arguments=call.arguments)
        for script in message.tfl_scripts or ():
            yield TFLScriptDelta(script=script)
        yield FinishDelta(finish_reason=message.finish_reason, usage=message.usage, model=message.model)

    async def _asend_stream(self, params: dict[str, Any]) -> AsyncIterator[StreamDelta]:
        for delta in self._deltas(await asyncio.to_thread(self._send, params)):
            yield delta

    def parse_response(self, raw: Any) -> AssistantTextMessage:
        calls = [ToolCall(id=c["id"], name=c["name"], arguments=c["arguments"]) for c in raw["tool_calls"]]
        usage = raw["usage"]
        return AssistantTextMessage(
            content=raw["content"],
            reasoning_content=raw["reasoning"],
            tool_calls=calls or None,
            tfl_scripts=raw["tfl_scripts"] or None,
            finish_reason="tool_calls" if calls else "stop",
            usage=Usage(input_tokens=usage["input_tokens"], output_tokens=usage["output_tokens"], raw=usage),
            model=self._model_tag(raw["model"]),
        )


def _state(msgs: list[LLMMessage]) -> tuple[str, str, list[str]]:
    """Latest user text, what the conversation ends with, and the results since the latest user turn."""
    user, state = "", "user"
    results: list[str] = []
    for msg in msgs:
        match msg:
            case LLMUserMessage() if msg.attachment_of is None:
                user = (
                    msg.content
                    if isinstance(msg.content, str)
                    else " ".join(getattr(p, "text", "") for p in msg.content)
                )
                state, results = "user", []
            case LLMToolMessage():
                state = f"tool:{msg.name or ''}"
                results.append(msg.content)
            case LLMTFLMessage():
                state = "console"
                results.append(msg.content)
            case LLMAssistantMessage():
                state = "assistant"
            case LLMUserMessage() | LLMSystemMessage() | LLMFunctionMessage():
                pass
            case _:
                assert_never(msg)
    return user.strip(), state, results


def _matches(rule: ScriptRule, user: str, state: str, results: list[str]) -> bool:
    def found(pattern: str, text: str) -> bool:
        return not pattern or _pattern(pattern).search(text) is not None

    return fnmatchcase(state, rule.after) and found(rule.user, user) and found(rule.results, "\n".join(results))

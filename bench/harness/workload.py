"""The fair-ceiling workload (issue 18): the facts of every turn, and TFRobot's stored form of them.

A conversation of N turns is a system prompt and, per turn, five messages: the user's question (every
10th with an image URL), an assistant message with reasoning text, its Anthropic signature and two
parallel tool calls whose JSON arguments hold nested objects, two tool results (JSON text of about 300
bytes each) and the final answer. 200 turns are 1,001 messages. TFRobot stores a turn the way its chain
does: the three inner messages are records of the user message's `intermediate_trace` (marked with
their source and step), the answer follows the user message at the top level.

Every contender (TFRobot, the ceiling, the peers) builds its own objects from the same `Turn` facts.
"""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass
from functools import cached_property

from pydantic import AnyUrl

from tfrobot.schema.message import (
    AssistantTextMessage,
    BaseMessage,
    ImageUserMsgPart,
    MsgPart,
    MultiPartMessage,
    ReasoningBlock,
    TextMessage,
    TextUserMsgPart,
    ToolCall,
    ToolReturn,
    UserMessage,
)

MESSAGES_PER_TURN = 5
QUESTION = "And the week after, in the same two cities?"
"""The current input of a request over the stored conversation."""
SYSTEM = "You are TFRobot, a travel assistant. Use the forecast tool for weather questions; answer briefly."
CONVERSATION_ID = "conv-bench-0001"
MODEL = "claude-sonnet-4-6"
MODEL_TAG = f"anthropic:{MODEL}"
TOOL = "weather_forecast"
START_TS = 1_760_000_000_000
"""`create_ts` of the system prompt; turn `i` starts 10 ms per turn later (its messages 1 ms apart)."""

_CITIES = (
    ("Paris", "FR", 48.8566, 2.3522),
    ("Berlin", "DE", 52.52, 13.405),
    ("Lisbon", "PT", 38.7223, -9.1393),
    ("Vienna", "AT", 48.2082, 16.3738),
)


def message_count(turns: int) -> int:
    """Messages of a conversation of `turns` turns: the system prompt and five per turn."""
    return 1 + MESSAGES_PER_TURN * turns


@dataclass(frozen=True)
class Turn:
    """The content of turn `i`, identical for every contender."""

    i: int

    @property
    def ts(self) -> int:
        """`create_ts` of the user message; the trace records and the answer follow 1 ms apart."""
        return START_TS + 10 * (self.i + 1)

    @property
    def cities(self) -> tuple[tuple[str, str, float, float], tuple[str, str, float, float]]:
        return _CITIES[self.i % 4], _CITIES[(self.i + 1) % 4]

    @property
    def question(self) -> str:
        first, second = self.cities
        return f"Turn {self.i}: I travel to {first[0]} and then {second[0]} next week. What will the weather be?"

    @property
    def image_url(self) -> str | None:
        """Every 10th question carries a photo, by URL."""
        return f"https://images.example.com/trips/{self.i:04d}/itinerary.jpg" if self.i % 10 == 9 else None

    @property
    def reasoning(self) -> str:
        first, second = self.cities
        return (
            f"The user visits {first[0]} first and {second[0]} after; both forecasts are independent, so I call "
            "the forecast tool for the two cities in parallel, three days each, then compare rain and temperature."
        )

    @cached_property
    def signature(self) -> str:
        """An Anthropic-style opaque signature (base64, 256 characters)."""
        seed = hashlib.sha512(f"signature-{self.i}".encode()).digest()
        return base64.b64encode(seed * 3)[:256].decode()

    def call_id(self, k: int) -> str:
        return f"toolu_{self.i:04d}_{k}"

    def arguments(self, k: int) -> str:
        """JSON arguments with nested objects, as a model writes them."""
        city, country, lat, lon = self.cities[k]
        return json.dumps(
            {
                "location": {"city": city, "country": country, "coordinates": {"lat": lat, "lon": lon}},
                "days": 3,
                "units": {"temperature": "celsius", "wind": "km/h"},
                "include": ["daily", "alerts"],
            }
        )

    def result(self, k: int) -> str:
        """The tool's JSON text, about 300 bytes."""
        city = self.cities[k][0]
        days = [
            {"day": d, "high_c": 14 + (self.i + d + k) % 9, "low_c": 6 + (self.i + d) % 5, "rain_mm": (d * 3 + k) % 7}
            for d in (1, 2, 3)
        ]
        units = {"temperature": "celsius", "rain": "mm"}
        return json.dumps(
            {"city": city, "units": units, "daily": days, "alerts": [], "source": "bench-forecast", "fetched": self.ts}
        )

    @property
    def answer(self) -> str:
        first, second = self.cities
        return (
            f"{first[0]}: mild and mostly dry for the three days. {second[0]}: cooler, with some rain on the "
            "second day. Pack a light jacket and an umbrella; no weather alerts for either city."
        )


def turns(n: int) -> list[Turn]:
    """The first `n` turns."""
    return [Turn(i) for i in range(n)]


def new_question_ts(n: int) -> int:
    """`create_ts` of the question that follows a conversation of `n` turns."""
    return START_TS + 10 * (n + 1)


# --- TFRobot's stored form ------------------------------------------------------------------------------


def tfrobot_user(turn: Turn) -> UserMessage:
    """The user message of `turn`, with the turn's trace inside it, as the chain stores it."""
    user: UserMessage
    if turn.image_url is None:
        user = TextMessage(content=turn.question, create_ts=turn.ts, conversation_id=CONVERSATION_ID)
    else:
        parts: list[MsgPart] = [TextUserMsgPart(text=turn.question), ImageUserMsgPart(url=AnyUrl(turn.image_url))]
        user = MultiPartMessage(content=parts, create_ts=turn.ts, conversation_id=CONVERSATION_ID)
    trace = user.intermediate_trace
    for record, source in tfrobot_step(turn):
        trace.append(record, source=source, step=0)
    return user


def tfrobot_step(turn: Turn) -> list[tuple[BaseMessage, str]]:
    """The chain's messages of one thinking/doing step of `turn`, with the trace source of each."""
    reply = AssistantTextMessage(
        reasoning_content=turn.reasoning,
        reasoning_blocks=[ReasoningBlock(text=turn.reasoning, signature=turn.signature, provider="anthropic")],
        tool_calls=[ToolCall(id=turn.call_id(k), name=TOOL, arguments=turn.arguments(k)) for k in (0, 1)],
        finish_reason="tool_calls",
        model=MODEL_TAG,
        create_ts=turn.ts + 1,
        conversation_id=CONVERSATION_ID,
    )
    results: list[tuple[BaseMessage, str]] = [
        (
            BaseMessage(
                role="tool",
                tool_reses=[ToolReturn(call_id=turn.call_id(k), name=TOOL, result=turn.result(k))],
                create_ts=turn.ts + 2 + k,
                conversation_id=CONVERSATION_ID,
            ),
            "doing",
        )
        for k in (0, 1)
    ]
    return [(reply, "thinking"), *results]


def tfrobot_answer(turn: Turn) -> AssistantTextMessage:
    return AssistantTextMessage(
        content=turn.answer,
        finish_reason="stop",
        model=MODEL_TAG,
        create_ts=turn.ts + 4,
        conversation_id=CONVERSATION_ID,
    )


def tfrobot_conversation(n: int) -> list[BaseMessage]:
    """The stored conversation of `n` turns: the system prompt, then per turn the user message (its trace
    inside) and the answer: `1 + 2 * n` top-level messages, `message_count(n)` in all."""
    out: list[BaseMessage] = [
        BaseMessage(role="system", content=SYSTEM, create_ts=START_TS, conversation_id=CONVERSATION_ID)
    ]
    for turn in turns(n):
        out += (tfrobot_user(turn), tfrobot_answer(turn))
    return out


def tfrobot_question(n: int) -> TextMessage:
    """The next user question after `n` turns: the current input of a request over that history."""
    return TextMessage(content=QUESTION, create_ts=new_question_ts(n), conversation_id=CONVERSATION_ID)


def count_tfrobot(messages: list[BaseMessage]) -> int:
    """Messages of a stored TFRobot conversation, trace records included."""
    return sum(1 + len(m.intermediate_trace.records) if isinstance(m, UserMessage) else 1 for m in messages)

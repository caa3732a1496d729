"""The message-system demo (`tfrobot demo`; the `tfrobot` command itself lives in `tfrobotserver.cli`)."""

from __future__ import annotations

import tempfile
from pathlib import Path

from pydantic import TypeAdapter
from rich.console import Console
from rich.tree import Tree

from tfrobot.brain.demo import PNG
from tfrobot.schema.message import (
    AssistantTextMessage,
    BaseMessage,
    ConsoleResult,
    ImageUserMsgPart,
    LLMRequestMessages,
    Message,
    MultiPartMessage,
    TextMessage,
    TextUserMsgPart,
    ToolCall,
    ToolReturn,
    UserMessage,
)


def build_conversation() -> list[BaseMessage]:
    """Two turns: the first calls two tools in parallel and runs a TFL script, all kept in its trace."""
    turn1 = MultiPartMessage(
        content=[
            TextUserMsgPart(text="What's the weather in Paris and Tokyo?"),
            ImageUserMsgPart(data=PNG, media_type="image/png"),
        ],
        conversation_id="demo",
    )
    calls = [
        ToolCall(id="call_1", name="weather", arguments='{"city": "Paris"}'),
        ToolCall(id="call_2", name="weather", arguments='{"city": "Tokyo"}'),
    ]
    trace = turn1.intermediate_trace
    trace.append(
        AssistantTextMessage(reasoning_content="Two cities: call the tool twice.", tool_calls=calls),
        source="thinking",
    )
    trace.append(
        BaseMessage(
            role="tool",
            tool_reses=[
                ToolReturn(call_id="call_1", name="weather", result="Paris: 18°C, cloudy"),
                ToolReturn(call_id="call_2", name="weather", result="Tokyo: 24°C, sunny"),
            ],
        ),
        source="doing",
    )
    trace.append(
        BaseMessage(
            role="console",
            console_reses=[ConsoleResult(result="chart rendered", script='print(chart(cities=["Paris", "Tokyo"]))')],
        ),
        source="console",
    )
    reply1 = AssistantTextMessage(content="Paris is 18°C and cloudy; Tokyo is 24°C and sunny.", conversation_id="demo")
    turn2 = TextMessage(content="And tomorrow?", conversation_id="demo")
    return [turn1, reply1, turn2]


def _tree(messages: list[BaseMessage]) -> Tree:
    root = Tree("[bold]conversation (reloaded from JSON)[/bold]")
    for msg in messages:
        node = root.add(f"[cyan]{type(msg).__name__}[/cyan] {msg.text()[:60]!r}")
        if isinstance(msg, UserMessage):
            for record in msg.intermediate_trace.ordered():
                node.add(f"[magenta]{type(record).__name__}[/magenta] role={record.role} {record.text()[:50]!r}")
    return root


def main() -> None:
    """Build, store, reload and print a conversation; show the LLM request it becomes."""
    console = Console()
    messages = build_conversation()
    store = Path(tempfile.mkdtemp(prefix="tfrobot-demo-")) / "conversation.json"
    conversation = TypeAdapter(list[Message])
    store.write_bytes(conversation.dump_json(messages, indent=2))
    restored = conversation.validate_json(store.read_bytes())
    if [type(m) for m in restored] != [type(m) for m in messages] or restored != messages:
        raise SystemExit("the conversation did not survive its round trip")
    console.print(f"stored {len(messages)} messages to {store} and loaded them back, every class intact")
    console.print(_tree(restored))
    history: list[BaseMessage] = []
    for msg in restored:
        if isinstance(msg, UserMessage):
            pre, post = msg.intermediate_trace.split(msg.create_ts)
            history.extend([*pre, msg, *post])
        else:
            history.append(msg)
    request = LLMRequestMessages([m.to_llm_request() for m in history]).to_list()
    console.print("[bold]provider-neutral request for turn 2:[/bold]")
    for item in request:
        console.print(f"  {item.role:9} {item.model_dump_json(exclude_defaults=True)[:100]}")


if __name__ == "__main__":
    main()

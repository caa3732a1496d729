"""Outside review of the `otel` branch: the spans of one LLM call through a provider's official SDK over
real HTTP (the loopback fake provider), against docs/telemetry.md's span tree (one `chat {model}` span an
LLM call)."""

from __future__ import annotations

from collections.abc import Mapping

from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from pydantic import SecretStr

from tests.fake_provider import ANSWER, MODEL, base_url, fake_provider
from tfrobot.brain.chain.llms import AnthropicChat
from tfrobot.brain.demo import demo_chain
from tfrobot.schema.message import TextMessage


async def test_an_anthropic_call_is_one_chat_span_so_its_tokens_count_once(exporter: InMemorySpanExporter) -> None:
    """The Anthropic SDK's own `chat` span nests under TFRobot's: two GenAI chat spans a call, tokens twice."""
    with fake_provider() as root:
        llm = AnthropicChat(
            model=MODEL["anthropic"],
            max_tokens=1024,
            api_key=SecretStr("sk-test"),
            base_url=base_url(root, "anthropic"),
        )
        try:
            answer = await demo_chain(llm).arun(TextMessage(content="weather in Paris"))
        finally:
            await llm.aclose()
    assert answer.content == ANSWER
    spans = exporter.get_finished_spans()
    chats = [span for span in spans if (span.attributes or {}).get("gen_ai.operation.name") == "chat"]
    assert sorted(span.name for span in chats) == [f"chat {MODEL['anthropic']}"] * 2, [
        (span.name, span.instrumentation_scope.name if span.instrumentation_scope else None) for span in chats
    ]
    counted = sum(_tokens(span.attributes or {}) for span in chats)
    (turn,) = [span for span in spans if span.name.startswith("invoke_agent")]
    assert counted == (turn.attributes or {})["gen_ai.usage.output_tokens"]


def _tokens(attributes: Mapping[str, object]) -> int:
    count = attributes.get("gen_ai.usage.output_tokens", 0)
    assert isinstance(count, int)
    return count

"""Structured output on recorded traffic of each provider (pydantic-ai's native-output cassettes): the request
carries the schema the provider's own way, the reply validates into the model, and a reply that does not
validate is an error that keeps the raw text."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, TypeAdapter

from tests.brain.chain.llms.conftest import Recorder, recording, replay_llm
from tfrobot.brain.chain.llms import (
    LLMError,
    OutputSchema,
    ScriptedChat,
    StructuredOutputError,
    ToolDefinition,
    agenerate_structured,
    generate_structured,
    parse_structured,
    structured_options,
)
from tfrobot.schema.message import AssistantRefusalMessage, BaseMessage, TextMessage, ToolReturn


class CityLocation(BaseModel):
    city: str
    country: str


class Payment(BaseModel):
    amount: float


COUNTRY_TOOL = ToolDefinition(
    name="get_user_country", description="", parameters={"type": "object", "properties": {}}
)  # fmt: skip
QUESTION = TextMessage(content="What is the largest city in the user country?")


def _loop(provider: str, name: str, model: str) -> tuple[Recorder, list[Any]]:
    """The recorded two-request loop: a tool call (no output yet), then the structured answer."""
    recorder = Recorder()
    chat = replay_llm(provider, recorder, recording(name), model=model)
    first = generate_structured(chat, CityLocation, QUESTION, None, [COUNTRY_TOOL])
    assert first.output is None
    assert first.message.finish_reason == "tool_calls"
    call = first.message.tool_calls[0]
    results = BaseMessage(role="tool", tool_reses=[ToolReturn(call_id=call.id, name=call.name, result="Mexico")])
    second = generate_structured(
        chat, CityLocation, QUESTION, None, [COUNTRY_TOOL], intermediate_msgs=[first.message, results]
    )
    assert type(second.output) is CityLocation
    assert second.output == CityLocation(city="Mexico City", country="Mexico")
    return recorder, [first, second]


def test_responses_sends_text_format_as_recorded_and_validates_the_answer() -> None:
    recorder, _ = _loop("openai-responses", "openai-responses/native_output", "gpt-4o")
    recorded = recording("openai-responses/native_output")[0]["request"]["text"]
    assert recorder.bodies[0]["text"] == recorded == recorder.bodies[1]["text"]


def test_chat_completions_sends_a_json_schema_response_format_and_validates_the_answer() -> None:
    from openai.types.shared_params import ResponseFormatJSONSchema

    recorder, _ = _loop("openai", "openai/structured_output", "gpt-4o")
    sent = recorder.bodies[1]["response_format"]
    TypeAdapter(ResponseFormatJSONSchema).validate_python(sent, strict=True)
    assert sent["json_schema"] == {
        "name": "CityLocation",
        "strict": True,
        "schema": {"type": "object", "properties": {"city": {"type": "string"}, "country": {"type": "string"}},
                   "required": ["city", "country"], "additionalProperties": False},
    }  # fmt: skip


def test_anthropic_sends_its_native_output_format_and_validates_the_answer() -> None:
    from anthropic.types import OutputConfigParam

    recorder = Recorder()
    chat = replay_llm("anthropic", recorder, recording("anthropic/structured_output"), model="claude-sonnet-4-5")
    reply = generate_structured(chat, Payment, TextMessage(content="Return exactly this payment amount: 12.34"))
    assert type(reply.output) is Payment
    assert reply.output.amount == 12.34
    sent = recorder.bodies[0]["output_config"]
    TypeAdapter(OutputConfigParam).validate_python(sent, strict=True)
    assert sent == {"format": {"type": "json_schema", "schema": {
        "type": "object", "properties": {"amount": {"type": "number"}}, "required": ["amount"],
        "additionalProperties": False}}}  # fmt: skip


def test_gemini_sends_the_json_schema_as_recorded_and_validates_the_answer() -> None:
    recorder = Recorder()
    interactions = recording("gemini/structured_output")
    chat = replay_llm("gemini", recorder, interactions, model="gemini-2.0-flash")
    reply = generate_structured(chat, CityLocation, TextMessage(content="What is the largest city in Mexico?"))
    assert reply.output == CityLocation(city="Mexico City", country="Mexico")
    sent, recorded = recorder.bodies[0]["generationConfig"], interactions[0]["request"]["generationConfig"]
    assert sent["responseMimeType"] == recorded["responseMimeType"] == "application/json"
    untitled = {k: v for k, v in recorded["responseJsonSchema"].items() if k not in ("title", "description")}
    assert sent["responseJsonSchema"] == untitled


async def test_the_async_call_validates_too() -> None:
    chat = replay_llm("anthropic", Recorder(), recording("anthropic/structured_output"), model="claude-sonnet-4-5")
    chat.async_http_client = _async_client(recording("anthropic/structured_output")[0]["json"])
    reply = await agenerate_structured(chat, Payment, TextMessage(content="12.34"))
    assert reply.output == Payment(amount=12.34)


def _async_client(answer: dict[str, Any]) -> Any:
    import httpx2

    from tests.brain.chain.llms.conftest import handler

    return httpx2.AsyncClient(transport=httpx2.MockTransport(handler(Recorder(), lambda _: (200, answer, {}), httpx2)))


def test_a_reply_that_does_not_validate_is_an_error_that_keeps_the_raw_text() -> None:
    interactions = recording("openai-responses/image_url")  # a real reply in prose, not a CityLocation
    chat = replay_llm("openai-responses", Recorder(), interactions, model="gpt-4o")
    with pytest.raises(StructuredOutputError) as caught:
        generate_structured(chat, CityLocation, TextMessage(content="hello"))
    error = caught.value
    text = interactions[0]["json"]["output"][0]["content"][0]["text"]
    assert (error.raw, error.reply.content) == (text, text)
    assert "is not a valid CityLocation" in str(error)
    assert error.fix is not None
    assert "`.raw`" in error.fix
    half = error.reply.model_copy(update={"content": '{"city": "Mexico City"}'})
    with pytest.raises(StructuredOutputError, match="country: Field required"):
        parse_structured(half, CityLocation)


def test_a_refusal_is_an_error_that_keeps_what_the_model_said() -> None:
    refused = AssistantRefusalMessage(refusal="I can't help with that.", model="openai-responses:gpt-5")
    with pytest.raises(StructuredOutputError, match="the model refused") as caught:
        parse_structured(refused, CityLocation)
    assert caught.value.raw == "I can't help with that."


def test_a_provider_without_structured_output_says_which_ones_have_it() -> None:
    with pytest.raises(LLMError, match=r"cannot constrain its replies to a JSON schema.*Fix: use openai"):
        structured_options(ScriptedChat(), OutputSchema.of(CityLocation))


class ConfigResponse(BaseModel):
    """A response with configuration metadata."""

    name: str
    metadata: dict[str, str]


def test_gemini_is_told_what_the_output_is_by_the_models_docstring_as_recorded() -> None:
    """The output model's docstring is the only place that says what the whole answer is: OpenAI gets it as the
    format's `description`; Gemini takes no such field, so it must stay in the schema, where the recorded
    request (which Gemini answered as asked) carried it."""
    recorder = Recorder()
    interactions = recording("gemini/structured_output_described")
    chat = replay_llm("gemini", recorder, interactions, model="gemini-2.5-flash")
    question = TextMessage(content=interactions[0]["request"]["contents"][0]["parts"][0]["text"])
    reply = generate_structured(chat, ConfigResponse, question)
    assert reply.output == ConfigResponse(name="api-config", metadata={"author": "Alice", "version": "1.0"})
    recorded = interactions[0]["request"]["generationConfig"]["responseJsonSchema"]
    sent = recorder.bodies[0]["generationConfig"]["responseJsonSchema"]
    assert sent.get("description") == recorded["description"] == "A response with configuration metadata."

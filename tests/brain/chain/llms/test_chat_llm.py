"""The shared pipeline: prompt context and trace expansion, the registry, schema cleaning, ids, laziness."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from typing import Any

import pytest
from pydantic import BaseModel

from tests.brain.chain.llms.conftest import (
    TOOLS,
    Recorder,
    current_turn,
    recalled_turn,
    recording,
    replay_llm,
    x_keywords,
)
from tfrobot.brain.chain.llms import (
    AnthropicChat,
    ChatLLM,
    DoubaoChat,
    GeminiChat,
    InvalidConversationError,
    LLMError,
    OpenAIChat,
    ProviderNotInstalledError,
    SchemaCleaner,
    ScriptedChat,
    ToolDefinition,
    ZhipuChat,
    create_llm,
    portable_id,
    provider_class,
    providers,
)
from tfrobot.brain.chain.llms.chat_llm import import_sdk
from tfrobot.schema.brain.chain.chain_schema import ChainContext
from tfrobot.schema.brain.chain.prompt.context_vars import Conversation, IntermediateTraceSnapshot, PromptContext
from tfrobot.schema.message import AssistantTextMessage, BaseMessage, TextMessage, ToolReturn


def test_trace_records_are_placed_before_and_after_their_user_message() -> None:
    turn = recalled_turn()
    expanded = ChatLLM._expand_trace_for_msg(turn)
    assert [m.msg_id for m in expanded] == [
        "t1-console-pre",
        "turn1",
        "t1-think",
        "t1-tools",
        "t1-answer",
        "t1-console",
    ]
    assert type(expanded[2]) is AssistantTextMessage


def test_prompt_context_orders_history_input_and_chain_messages_without_duplicates() -> None:
    turn, chain = current_turn()
    turn.intermediate_trace.append(chain[0])  # the trace already holds the call; the chain passes it again
    ctx = OpenAIChat().construct_prompt_context(turn, [recalled_turn()], chain)
    ids = [m.msg_id for m in ctx.conversation.msgs]
    assert ids == [
        "t1-console-pre",
        "turn1",
        "t1-think",
        "t1-tools",
        "t1-answer",
        "t1-console",
        "t2",
        "t2-call",
        "t2-result",
    ]
    assert type(ctx.current_input) is TextMessage


def test_context_containers_restore_every_class_through_json() -> None:
    turn, chain = current_turn()
    msgs = [recalled_turn(), turn, *chain]
    records = tuple(recalled_turn().intermediate_trace.ordered())
    for model in (
        Conversation(msgs=msgs),
        PromptContext(current_input=turn, conversation=Conversation(msgs=msgs), intermediate_msgs=chain),
        IntermediateTraceSnapshot(records=records),
        ChainContext(intermediate_msgs=chain),
    ):
        restored: BaseModel = type(model).model_validate_json(model.model_dump_json())
        assert restored == model
    restored_conv = Conversation.model_validate_json(Conversation(msgs=msgs).model_dump_json())
    assert [type(m) for m in restored_conv.msgs] == [TextMessage, TextMessage, AssistantTextMessage, BaseMessage]
    first = restored_conv.msgs[0]
    assert isinstance(first, TextMessage)
    assert type(first.intermediate_trace.records[1]) is AssistantTextMessage


def test_a_plain_assistant_base_message_fails_naming_its_position() -> None:
    broken = BaseMessage(role="assistant", content="lost subclass", msg_id="bad1")
    with pytest.raises(InvalidConversationError, match=r"conversation\.msgs\[1\] \(bad1\)"):
        OpenAIChat().construct_request_params(TextMessage(content="hi"), [TextMessage(content="a"), broken])


def test_registry_maps_names_to_classes() -> None:
    assert set(providers()) >= {"openai", "anthropic", "gemini", "zhipu", "doubao", "scripted"}
    llm = create_llm("anthropic", model="claude-haiku-4-5", max_tokens=100)
    assert type(llm) is AnthropicChat
    assert provider_class("scripted") is ScriptedChat
    with pytest.raises(LLMError, match="unknown LLM provider 'nope'; known providers: anthropic"):
        create_llm("nope", model="x")


def test_a_second_class_cannot_take_a_registered_name() -> None:
    with pytest.raises(TypeError, match="provider name 'openai'"):

        class Impostor(OpenAIChat):
            provider = "openai"


def test_a_new_provider_joins_by_being_defined() -> None:
    class EchoChat(ScriptedChat):
        provider = "echo-test"

    assert provider_class("echo-test") is EchoChat
    reply = create_llm("echo-test", rules=[]).generate(TextMessage(content="ping"))
    assert reply.content == "(scripted) You said: ping"


def test_schema_cleaner_strips_x_keywords_everywhere_and_keeps_property_names() -> None:
    schema = {
        "type": "object",
        "x-actions": ["a"],
        "properties": {
            "x-name": {"type": "string", "x-ref": "$"},
            "tags": {"type": "array", "items": {"type": "string", "x-fetch": "t"}},
            "either": {"anyOf": [{"type": "string", "x-default": "a"}, {"type": "null"}]},
        },
        "additionalProperties": {"type": "string", "x-namespace": "n"},
        "$defs": {"D": {"type": "object", "x-namespace": "d"}},
    }
    original = repr(schema)
    cleaned = SchemaCleaner().clean(schema)
    assert x_keywords(cleaned) == []
    assert set(cleaned["properties"]) == {"x-name", "tags", "either"}
    assert cleaned["properties"]["either"]["anyOf"][0] == {"type": "string"}
    assert repr(schema) == original
    assert len(x_keywords(schema)) == 6


def test_every_provider_cleans_tool_schemas() -> None:
    for cls in providers().values():
        assert x_keywords(cls().clean_tool_schema(TOOLS[0])) == [], cls.__name__


def test_portable_ids_are_valid_stable_and_distinct() -> None:
    pattern = r"[a-zA-Z0-9_-]+"
    assert portable_id("call_ok-1", pattern) == "call_ok-1"
    mapped = portable_id("call:tokyo/2", pattern)
    assert mapped == portable_id("call:tokyo/2", pattern)
    assert mapped != portable_id("call:tokyo.2", pattern)
    assert mapped.startswith("call_tokyo_2_")
    assert len(portable_id("x" * 100, pattern, 64)) <= 64


def test_sdks_are_imported_lazily() -> None:
    code = (
        "import sys, tfrobot.brain.chain.llms\n"
        "sdks = ['openai', 'anthropic', 'google.genai', 'zhipuai', 'volcenginesdkarkruntime', 'httpx2']\n"
        "print([m for m in sdks if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_missing_sdk_says_which_extra_to_install() -> None:
    with pytest.raises(ProviderNotInstalledError, match=r"pip install 'tfrobot\[acme\]'"):
        import_sdk("tfrobot_no_such_sdk", "acme", "acme")


def test_public_surface_is_pinned() -> None:
    import tfrobot.brain.chain.llms as llms

    assert llms.__all__ == sorted(llms.__all__, key=lambda n: (not n[0].isupper(), n))
    assert set(llms.__all__) == {
        *("AnthropicChat", "ChatLLM", "DoubaoChat", "GeminiChat", "OpenAIChat", "ScriptedChat", "ZhipuChat"),
        *("AuthenticationError", "ContextTooLongError", "InvalidConversationError", "InvalidRequestError"),
        *("LLMError", "ModalityDegradedWarning", "ProviderError", "ProviderNotInstalledError"),
        *("ProviderUnavailableError", "RateLimitError", "UnsupportedContentError"),
        *("FinishDelta", "MessageAssembler", "ReasoningBlockDelta", "ReasoningDelta", "StreamDelta"),
        *("RefusalDelta", "ServerToolBlockDelta", "TFLScriptDelta", "TextDelta", "ToolCallDelta"),
        *("Capabilities", "SchemaCleaner", "ScriptRule", "ScriptedCall", "ToolDefinition"),
        *("ModelProfile", "ReasoningReplay", "model_profile"),
        *("create_llm", "normalize", "portable_id", "provider_class", "providers"),
    }
    assert all(hasattr(llms, name) for name in llms.__all__)


def test_the_current_input_passed_in_the_history_too_is_sent_once() -> None:
    turn, chain = current_turn()
    payload = OpenAIChat().construct_request_params(turn, [recalled_turn(), turn], intermediate_msgs=chain)
    assert [m["content"] for m in payload["messages"]].count("And in Berlin?") == 1


def test_a_reply_holding_only_foreign_reasoning_sends_no_empty_assistant_turn() -> None:
    from tfrobot.schema.message import ReasoningBlock

    thinking_only = AssistantTextMessage(
        reasoning_blocks=[ReasoningBlock(text="hmm", signature="s", provider="anthropic")], model="anthropic:c"
    )
    turn = TextMessage(content="go on")
    for cls in (OpenAIChat, AnthropicChat, GeminiChat, ZhipuChat, DoubaoChat):
        payload = cls().construct_request_params(turn, [TextMessage(content="hi"), thinking_only])
        turns = payload.get("messages", payload.get("contents"))
        if cls is AnthropicChat:
            assert turns[1]["content"][0]["type"] == "thinking"
        else:
            assert [t["role"] for t in turns] == ["user"] * len(turns), cls.__name__


def test_the_prompt_context_built_without_revalidation_equals_a_validated_one_and_survives_json() -> None:
    turn, chain = current_turn()
    ctx = OpenAIChat().construct_prompt_context(turn, [recalled_turn()], chain)
    validated = PromptContext.model_validate(
        {
            "current_input": ctx.current_input,
            "conversation": {"msgs": ctx.conversation.msgs},
            "intermediate_msgs": chain,
        }
    )
    assert ctx == validated
    restored = PromptContext.model_validate_json(ctx.model_dump_json())
    assert restored == ctx
    assert [type(m) for m in restored.conversation.msgs] == [type(m) for m in ctx.conversation.msgs]


# ------------------------------------------------------------------------------------------------ tool names
NAME_RULES = {
    "deepseek": r"[a-zA-Z0-9_-]{1,64}",  # OpenAI's FunctionDefinition.name (and every OpenAI-shaped endpoint's)
    "anthropic": r"[a-zA-Z0-9_-]{1,128}",  # Anthropic's tool name pattern
    "gemini": r"[a-zA-Z_][a-zA-Z0-9_.:-]{0,127}",  # google-genai FunctionDeclaration.name
}


def _declared(provider: str, body: dict[str, Any]) -> str:
    if provider == "gemini":
        return str(body["tools"][0]["functionDeclarations"][0]["name"])
    tool = body["tools"][0]
    return str(tool["function"]["name"] if provider == "deepseek" else tool["name"])


def _calling(interaction: dict[str, Any], recorded: str, name: str) -> dict[str, Any]:
    """The recorded reply, calling `name` where it called `recorded`: the model calls the name it was given."""
    text = json.dumps(interaction).replace(f'\\"{recorded}\\"', f'\\"{name}\\"').replace(f'"{recorded}"', f'"{name}"')
    answer: dict[str, Any] = json.loads(text)
    return answer


@pytest.mark.parametrize(
    ("recorded_name", "recorded_tool"),
    [
        ("deepseek/tool_loop", "load_capability"),
        ("anthropic/tool_use", "get_user_country"),
        ("anthropic/tool_use_stream", "get_weather"),
        ("gemini/thought_signature", "get_user_country"),
        ("gemini/thought_signature_stream", "get_country"),
    ],
)
@pytest.mark.parametrize("ours", ["drive.weather", "天气", "9lives"])
def test_a_tool_name_the_api_refuses_is_mapped_in_the_request_and_back_in_the_reply(
    recorded_name: str, recorded_tool: str, ours: str
) -> None:
    """Regression (#14, defect 6): tool names were sent as they are, and `天气` or `drive.weather` break the
    APIs' rules (a 400 on the first request); a reply calling the name we sent must name our tool."""
    provider = recorded_name.split("/", 1)[0]
    rule = NAME_RULES[provider]
    tools = [ToolDefinition(name=ours, description="Current weather.", parameters={"type": "object", "properties": {}})]
    sent_name = replay_llm(provider, Recorder(), []).api_tool_name(ours)
    assert re.fullmatch(rule, sent_name)
    assert (sent_name == ours) == bool(re.fullmatch(rule, ours))  # valid names go as they are

    recorder = Recorder()
    chat = replay_llm(provider, recorder, [_calling(recording(recorded_name)[0], recorded_tool, sent_name)])
    question = TextMessage(content="Weather?")
    streamed = "sse" in recording(recorded_name)[0]
    reply = chat.generate_streamed(question, None, tools) if streamed else chat.generate(question, None, tools)
    assert _declared(provider, recorder.bodies[0]) == sent_name
    assert [call.name for call in reply.tool_calls or ()] == [ours]

    result = BaseMessage(
        role="tool",
        tool_reses=[ToolReturn(call_id=reply.tool_calls[0].id, name=ours, result="sunny")],  # type: ignore[index]
    )
    follow_up = chat.construct_request_params(question, None, tools, intermediate_msgs=[reply, result])
    wire = json.dumps(follow_up, default=str, ensure_ascii=False)
    assert ours not in wire or re.fullmatch(rule, ours)  # the call and its result go under the name we declared
    assert sent_name in wire

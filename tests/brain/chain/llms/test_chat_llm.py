"""The shared pipeline: prompt context and trace expansion, the registry, schema cleaning, ids, laziness."""

from __future__ import annotations

import subprocess
import sys

import pytest
from pydantic import BaseModel

from tests.brain.chain.llms.conftest import (
    TOOLS,
    current_turn,
    recalled_turn,
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
    ZhipuChat,
    create_llm,
    provider_class,
    providers,
)
from tfrobot.brain.chain.llms.transport import import_sdk
from tfrobot.schema.brain.chain.chain_schema import ChainContext
from tfrobot.schema.brain.chain.prompt.context_vars import Conversation, IntermediateTraceSnapshot, PromptContext
from tfrobot.schema.message import AssistantTextMessage, BaseMessage, TextMessage


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


def test_sdks_are_imported_lazily() -> None:
    code = (
        "import sys, tfrobot.brain.chain.llms\n"
        "sdks = ['openai', 'anthropic', 'google.genai', 'zai', 'volcenginesdkarkruntime', 'httpx2']\n"
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
        "OpenAIResponsesChat",
        *("OutputSchema", "StructuredOutputError", "StructuredReply", "parse_structured", "structured_options"),
        *("generate_structured", "agenerate_structured", "PromptCache"),
        *("AuthenticationError", "ContextTooLongError", "InvalidConversationError", "InvalidRequestError"),
        *("LLMError", "ModalityDegradedWarning", "ProviderError", "ProviderNotInstalledError"),
        *("ProviderUnavailableError", "RateLimitError", "UnsupportedContentError"),
        *("MissingAPIKeyError", "ModelNotFoundError", "ProviderConnectionError", "ProviderResponseError"),
        *("ProviderTimeoutError", "describe"),
        *("FinishDelta", "MessageAssembler", "ReasoningBlockDelta", "ReasoningDelta", "StreamDelta"),
        *("RefusalDelta", "ServerToolBlockDelta", "TFLScriptDelta", "TextDelta", "ToolCallDelta"),
        *("Capabilities", "RequestBuilder", "SchemaCleaner", "ScriptRule", "ScriptedCall", "ToolDefinition"),
        *("ModelProfile", "ReasoningReplay", "model_profile", "preserves_thinking", "derived_call_id"),
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

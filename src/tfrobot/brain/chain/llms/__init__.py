"""The LLM request layer: `ChatLLM`, one module per provider, and the registry that names them.

Importing this package imports no provider SDK (they are optional extras, loaded on first call), so it
stays fast. `create_llm("openai", model=…)` builds the provider a configuration names.
"""

from tfrobot.brain.chain.llms.anthropic import AnthropicChat
from tfrobot.brain.chain.llms.chat_llm import ChatLLM, create_llm, provider_class, providers
from tfrobot.brain.chain.llms.doubao import DoubaoChat
from tfrobot.brain.chain.llms.errors import (
    AuthenticationError,
    ContextTooLongError,
    InvalidConversationError,
    InvalidRequestError,
    LLMError,
    MissingAPIKeyError,
    ModalityDegradedWarning,
    ModelNotFoundError,
    ProviderConnectionError,
    ProviderError,
    ProviderNotInstalledError,
    ProviderResponseError,
    ProviderTimeoutError,
    ProviderUnavailableError,
    RateLimitError,
    UnsupportedContentError,
    describe,
)
from tfrobot.brain.chain.llms.gemini import GeminiChat
from tfrobot.brain.chain.llms.media import Capabilities
from tfrobot.brain.chain.llms.normalize import normalize
from tfrobot.brain.chain.llms.openai import OpenAIChat
from tfrobot.brain.chain.llms.openai_responses import OpenAIResponsesChat
from tfrobot.brain.chain.llms.output_schema import OutputSchema
from tfrobot.brain.chain.llms.portable import derived_call_id, portable_id
from tfrobot.brain.chain.llms.profiles import ModelProfile, ReasoningReplay, model_profile, preserves_thinking
from tfrobot.brain.chain.llms.prompt_cache import PromptCache
from tfrobot.brain.chain.llms.request_builder import RequestBuilder
from tfrobot.brain.chain.llms.scripted import ScriptedCall, ScriptedChat, ScriptRule
from tfrobot.brain.chain.llms.stream import (
    FinishDelta,
    MessageAssembler,
    ReasoningBlockDelta,
    ReasoningDelta,
    RefusalDelta,
    ServerToolBlockDelta,
    StreamDelta,
    TextDelta,
    TFLScriptDelta,
    ToolCallDelta,
)
from tfrobot.brain.chain.llms.structured import (
    StructuredOutputError,
    StructuredReply,
    agenerate_structured,
    generate_structured,
    parse_structured,
    structured_options,
)
from tfrobot.brain.chain.llms.tool_schema import SchemaCleaner
from tfrobot.brain.chain.llms.zhipu import ZhipuChat
from tfrobot.schema.tool_definition import ToolDefinition

__all__ = [
    "AnthropicChat",
    "AuthenticationError",
    "Capabilities",
    "ChatLLM",
    "ContextTooLongError",
    "DoubaoChat",
    "FinishDelta",
    "GeminiChat",
    "InvalidConversationError",
    "InvalidRequestError",
    "LLMError",
    "MessageAssembler",
    "MissingAPIKeyError",
    "ModalityDegradedWarning",
    "ModelNotFoundError",
    "ModelProfile",
    "OpenAIChat",
    "OpenAIResponsesChat",
    "OutputSchema",
    "PromptCache",
    "ProviderConnectionError",
    "ProviderError",
    "ProviderNotInstalledError",
    "ProviderResponseError",
    "ProviderTimeoutError",
    "ProviderUnavailableError",
    "RateLimitError",
    "ReasoningBlockDelta",
    "ReasoningDelta",
    "ReasoningReplay",
    "RefusalDelta",
    "RequestBuilder",
    "SchemaCleaner",
    "ScriptRule",
    "ScriptedCall",
    "ScriptedChat",
    "ServerToolBlockDelta",
    "StreamDelta",
    "StructuredOutputError",
    "StructuredReply",
    "TFLScriptDelta",
    "TextDelta",
    "ToolCallDelta",
    "ToolDefinition",
    "UnsupportedContentError",
    "ZhipuChat",
    "agenerate_structured",
    "create_llm",
    "derived_call_id",
    "describe",
    "generate_structured",
    "model_profile",
    "normalize",
    "parse_structured",
    "portable_id",
    "preserves_thinking",
    "provider_class",
    "providers",
    "structured_options",
]

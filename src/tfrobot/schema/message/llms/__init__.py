"""The provider-neutral LLM request/response format: closer to the APIs, still independent of any SDK."""

from tfrobot.schema.message.llms.llm_requests import (
    BaseLLMMessage,
    LLMAssistantMessage,
    LLMFunctionMessage,
    LLMMessage,
    LLMRequestMessages,
    LLMSystemMessage,
    LLMTFLMessage,
    LLMToolCall,
    LLMToolMessage,
    LLMUserMessage,
)
from tfrobot.schema.message.llms.llm_response import ReasoningBlock, ServerToolBlock, Usage

__all__ = [
    "BaseLLMMessage",
    "LLMAssistantMessage",
    "LLMFunctionMessage",
    "LLMMessage",
    "LLMRequestMessages",
    "LLMSystemMessage",
    "LLMTFLMessage",
    "LLMToolCall",
    "LLMToolMessage",
    "LLMUserMessage",
    "ReasoningBlock",
    "ServerToolBlock",
    "Usage",
]

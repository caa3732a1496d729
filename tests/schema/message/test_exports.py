"""The public surface is pinned: a change to it is a deliberate edit here (as httpx does)."""

from __future__ import annotations

import tfrobot.schema.message as message
from tfrobot.schema.message.conversation import message_dto

PUBLIC = [
    "AssistantMessage",
    "AssistantRefusalMessage",
    "AssistantTextMessage",
    "AttachmentMessage",
    "AudioMessage",
    "AudioUserMsgPart",
    "BaseGroup",
    "BaseLLMMessage",
    "BaseMessage",
    "BaseUser",
    "ConsoleResult",
    "ContactMessage",
    "DEFAULT_TAG",
    "FileUserMsgPart",
    "FunctionCall",
    "FunctionReturn",
    "HistoryMessage",
    "ImageMessage",
    "ImageUserMsgPart",
    "IntermediateTrace",
    "LLMAssistantMessage",
    "LLMFunctionMessage",
    "LLMMessage",
    "LLMRequestMessages",
    "LLMSystemMessage",
    "LLMTFLMessage",
    "LLMToolCall",
    "LLMToolMessage",
    "LLMUserMessage",
    "MediaPart",
    "Message",
    "MessageContractError",
    "MsgPart",
    "MultiPartMessage",
    "ReasoningBlock",
    "Role",
    "ServerToolBlock",
    "StepTiming",
    "TRACE_META_KEY",
    "TextMessage",
    "TextUserMsgPart",
    "ToolCall",
    "ToolReturn",
    "TurnFailure",
    "UrlMessage",
    "Usage",
    "UserAndAssMsg",
    "UserMessage",
    "VideoMessage",
    "VideoUserMsgPart",
    "content_text",
    "get_discriminator_value",
    "new_msg_id",
    "now_ms",
    "registered_classes",
]


def test_public_names_are_pinned_and_importable() -> None:
    assert sorted(message.__all__) == PUBLIC
    for name in PUBLIC:
        assert getattr(message, name) is not None


def test_seed_module_reexports_are_the_same_objects() -> None:
    for name in message_dto.__all__:
        assert getattr(message_dto, name) is getattr(message, name)

"""Every package's public names are pinned, the httpx way: `__all__` is exactly what the package exposes.

A package exposes the names without a leading `_` that its `__init__` defines or imports (its submodules
aside), plus what a PEP 562 `__getattr__` serves lazily. So a helper imported into an `__init__` and left out
of `__all__` (a leak) fails here, and so does a name in `__all__` that is not there (a missing export); and
`PINNED` makes every change to a package's surface a deliberate edit of this file. Modules that are split
(`tfl/interpreter.py`, `brain/memory/sql.py`, say) keep their package's names: this file does not change.
"""

import __future__

import importlib
from pathlib import Path
from types import ModuleType

import pytest

import tfrobot
import tfrobotserver

SEED_PRIVATE = {"_validate_get_list_return_type"}
"""Names the seeds export with a leading underscore (the seed imports it from the package)."""

PINNED: dict[str, list[str]] = {
    "tfrobot": [],
    "tfrobot.brain": ["Brain", "DCBrain", "DCChains"],
    "tfrobot.brain.chain": [],
    "tfrobot.brain.chain.llms": [
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
    ],
    "tfrobot.brain.memory": [
        "ConversationInfo",
        "ConversationNotFound",
        "DATA_FILE",
        "DEFAULT_SCOPE",
        "MEMORY_URL_ENV",
        "MemoryStoreError",
        "MemoryStoreUnavailable",
        "MessageStore",
        "Page",
        "SQLMessageStore",
        "database_unavailable",
        "default_data_dir",
        "default_url",
        "estimate_tokens",
        "watch_lost_connections",
    ],
    "tfrobot.brain.memory.migrations": [],
    "tfrobot.brain.memory.migrations.versions": [],
    "tfrobot.drive": [
        "BaseTool",
        "Confirm",
        "Drive",
        "Tool",
        "ToolArgumentsError",
        "ToolFailure",
        "ToolOutput",
        "tool",
        "word_count",
    ],
    "tfrobot.drive.mcp": ["MCPStartError", "MCPTool", "MCPToolSource", "SourceStatus", "tool_return"],
    "tfrobot.schema": [],
    "tfrobot.schema.brain": [],
    "tfrobot.schema.brain.chain": [],
    "tfrobot.schema.brain.chain.prompt": [],
    "tfrobot.schema.message": [
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
        "non_messages",
        "now_ms",
        "registered_classes",
    ],
    "tfrobot.schema.message.conversation": [],
    "tfrobot.schema.message.llms": [
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
    ],
    "tfrobot.telemetry": [
        "CAPTURE_CONTENT_ENV",
        "capture_content",
        "redact_errors_with",
        "traced_chat",
        "traced_response_id",
        "traced_script_tool",
        "traced_tfl",
        "traced_tool",
        "traced_turn",
        "tracing",
    ],
    "tfrobot.tfl": [
        "BUILTINS",
        "CallableToolRegistry",
        "ErrorKind",
        "TFLError",
        "TFLInterpreter",
        "TFLLimits",
        "TFLScriptError",
        "TFLToolRegistry",
        "TFLToolSignature",
        "ToolResult",
        "grammar_text",
        "parse",
        "seconds_of",
        "tool_name_problem",
    ],
    "tfrobotserver": [
        "AIMemoryDoc",
        "ActionAlias",
        "ActionInputError",
        "ActionProtocolError",
        "BaseGraph",
        "BasePageableList",
        "CursorPageableList",
        "Edge",
        "Graph",
        "HttpModel",
        "Injected",
        "Node",
        "PageableList",
        "Principal",
        "Robot",
        "TFSComponent",
        "_validate_get_list_return_type",
        "tfs_action",
    ],
    "tfrobotserver.actions": [
        "ActionAlias",
        "ActionDecl",
        "ActionProtocolError",
        "BoundAction",
        "Category",
        "CompiledExpression",
        "ExpressionError",
        "Injected",
        "Principal",
        "READ_OPS",
        "ResourceOpType",
        "_validate_get_list_return_type",
        "bind_actions",
        "check_component",
        "collect_actions",
        "compile_expression",
        "evaluate",
        "tfs_action",
    ],
    "tfrobotserver.app": ["ServerSettings", "TokenConfig", "create_app", "load_settings"],
    "tfrobotserver.dtos": [],
    "tfrobotserver.dtos.factory": [],
    "tfrobotserver.dtos.factory.brain": [],
    "tfrobotserver.dtos.factory.brain.memory": [],
    "tfrobotserver.mcp": [
        "CHAT_TOOL",
        "MCP_PATH",
        "McpEndpoint",
        "SCHEME",
        "action_tools",
        "build_server",
        "local_principal",
        "output_schema",
        "pick_robot",
        "resource_uri",
        "serve_stdio",
        "tool_name",
    ],
    "tfrobotserver.robot": [],
    "tfrobotserver.robot.factory": [],
    "tfrobotserver.robot.factory.brain": [],
    "tfrobotserver.robot.factory.brain.memory": [],
    "tfrobotserver.robot.factory.sandbox": [
        "BoundExceeded",
        "BoundedSandbox",
        "MAX_ALLOCATION",
        "MAX_DEPTH",
        "MAX_INT_BITS",
        "MAX_ITEMS",
        "MAX_ITERATIONS",
        "MAX_SECONDS",
        "MAX_SIZE",
    ],
    "tfrobotserver.robot.tools": [
        "BUILTIN_TOOLS",
        "MCPTools",
        "PythonTools",
        "SourceInfo",
        "ToolCatalog",
        "ToolEntry",
        "ToolOptions",
        "ToolsComponent",
        "import_object",
        "python_tools",
    ],
}


def _packages() -> list[str]:
    """Every package under src/ (a directory with an `__init__.py`), found on disk so none is forgotten."""
    found = []
    for root in (tfrobot, tfrobotserver):
        top = Path(root.__file__).parent
        found += [".".join(init.parent.relative_to(top.parent).parts) for init in top.rglob("__init__.py")]
    return sorted(found)


def _exposed(package: ModuleType) -> set[str]:
    """The names `from package import *` would offer without `__all__`, submodules and `__future__` aside."""
    names = set()
    for name, value in vars(package).items():
        if name.startswith("_") and name not in SEED_PRIVATE:
            continue
        if isinstance(value, ModuleType) and value.__name__.startswith(f"{package.__name__}."):
            continue  # a submodule, bound by importing it
        if name in __future__.all_feature_names and value is getattr(__future__, name):
            continue  # `from __future__ import annotations` is a compiler directive, not a name
        names.add(name)
    if hasattr(package, "__getattr__"):  # PEP 562: names served on first access
        names |= {name for name in getattr(package, "__all__", []) if name not in vars(package)}
    return names


def test_every_package_is_pinned() -> None:
    assert sorted(PINNED) == _packages(), "a package was added or removed: pin its names in PINNED"


@pytest.mark.parametrize("name", _packages())
def test_all_is_what_the_package_exposes(name: str) -> None:
    package = importlib.import_module(name)
    declared = getattr(package, "__all__", None)
    assert declared is not None, f"{name} has no __all__: list its public names ([] for none)"
    assert len(set(declared)) == len(declared), f"{name}.__all__ names one twice: {sorted(declared)}"
    exposed = _exposed(package)
    for missing in sorted(set(declared) - exposed):
        pytest.fail(f"{name}.__all__ names {missing!r}, which {name} does not define or import")
    for leak in sorted(exposed - set(declared)):
        pytest.fail(f"{name} exposes {leak!r} outside __all__: add it to __all__, or import it as _{leak}")
    for public in declared:
        assert getattr(package, public) is not None


@pytest.mark.parametrize("name", _packages())
def test_all_is_pinned(name: str) -> None:
    assert sorted(importlib.import_module(name).__all__) == PINNED[name]

"""OpenTelemetry traces of turns, following the GenAI semantic conventions (the optional `otel` extra).

The agent loop calls four hooks, one per unit of work a trace shows: `traced_turn` (the `invoke_agent`
span of a chain's turn), `traced_chat` (a `chat {model}` span per LLM call), `traced_tool` (an
`execute_tool {name}` span per tool call) and `traced_tfl` (an `execute_tool tfl` span per TFL script,
over the tools it calls: `traced_script_tool`);
the LLM layer adds the provider's id of each reply to its chat span (`traced_response_id`). Each hook
hands back what it was given, untouched, unless a tracer provider is set — by `tfrobot serve` when
telemetry is switched on (`setup.py`), or by the application's own OpenTelemetry setup. So without the
extra, or with it installed and no provider, a turn pays one check per hook and nothing else.

Message contents (prompts, replies, tool arguments and results, scripts) are recorded only when
`OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT` is true, as the conventions advise: off by default.
"""

from tfrobot.telemetry.hooks import (
    traced_chat,
    traced_response_id,
    traced_script_tool,
    traced_tfl,
    traced_tool,
    traced_turn,
    tracing,
)
from tfrobot.telemetry.policy import CAPTURE_CONTENT_ENV, capture_content, redact_errors_with

__all__ = [
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
]

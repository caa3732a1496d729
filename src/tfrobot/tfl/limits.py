"""The resource limits of one TFL run. The LLM writes the scripts, so every limit has a safe default."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class TFLLimits(BaseModel):
    """Bounds that stop runaway scripts with a clear error instead of hanging or exhausting memory.

    `max_allocation` is cumulative on purpose: it counts every character and item the script creates, so
    both repeated doubling (`s = s + s`) and quadratic concatenation in a loop are stopped early, before
    they cost memory or time. `max_value_size` bounds one value counted as a tree (shared parts counted
    each time), so that `a = [a, a]` repeated cannot make printing or comparing it exponential.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_steps: int = Field(default=100_000, ge=1, description="Evaluation steps (nodes and loop turns).")
    max_seconds: float = Field(default=30.0, gt=0, description="Wall time of the whole run, tool calls included.")
    tool_timeout_seconds: float = Field(default=20.0, gt=0, description="Time-out of one tool call.")
    max_output_chars: int = Field(default=100_000, ge=1, description="Characters printed in one run.")
    max_string_chars: int = Field(default=1_000_000, ge=1, description="Length of any one string.")
    max_value_size: int = Field(default=100_000, ge=1, description="Items in one value, nested items included.")
    max_allocation: int = Field(
        default=10_000_000, ge=1, description="Characters plus items created over the whole run."
    )
    max_depth: int = Field(
        default=64, ge=1, le=200, description="Nesting of expressions, blocks and values (Python's stack is finite)."
    )
    max_script_chars: int = Field(
        default=20_000,
        ge=1,
        description="Length of the script. Parsing happens before the clock starts and costs about 20 µs per "
        "character of dense code, so this bounds it (long string literals are cheap).",
    )
    max_attachments: int = Field(default=20, ge=0, description="Parts one run may attach to its output.")
    summary_chars: int = Field(default=2_000, ge=40, description="Length of `ConsoleResult.summary_result`.")

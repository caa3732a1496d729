"""`ToolDefinition` sits in the schema layer: the drive uses it without loading the LLM layer."""

from __future__ import annotations

import json
import subprocess
import sys

from tfrobot.brain.chain.llms import ToolDefinition as FromLLMs
from tfrobot.schema.tool_definition import ToolDefinition


def test_importing_the_drive_loads_no_llm_adapter() -> None:
    code = (
        "import sys, json, tfrobot.drive\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('tfrobot.brain'))))"
    )
    loaded = json.loads(subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout)
    assert loaded == []


def test_the_llm_layer_re_exports_the_same_class() -> None:
    assert FromLLMs is ToolDefinition
    restored = ToolDefinition.model_validate_json(ToolDefinition(name="weather").model_dump_json())
    assert type(restored) is ToolDefinition
    assert restored.parameters == {"type": "object", "properties": {}}

"""Robots from configuration: a YAML or JSON file per robot, validated into `RobotConfig`, built by `build_robot`.

```yaml
name: demo
description: Offline demo
llm: {provider: scripted, model: null, params: {}}   # any provider of create_llm; keys from the environment
prompt: {template: "You are {{ robot }}.", defaults: {robot: Demo}}
tools: [weather, myapp.tools:lookup, {mcp: files, command: python, args: [-m, files_server]}]  # see robot.tools
confirm_timeout: 300                                 # seconds a `confirm` tool's call waits for the user
memory: {url: null}                                  # SQLMessageStore URL; null: the server's database
documents: {collection: demo, seed_docs: 42}         # document memory (null: none)
graph: {collection: demo, seed: demo}                # knowledge graph (null: none)
```

Components get fixed names: `llm`, `prompt`, `conversations`, `tools`, `memory` (documents), `graph`.
Errors name the file and the entry (`tools[2] (myapp.tools:nope): …`).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tfrobotserver.actions.component import TFSComponent
from tfrobotserver.dtos.factory.base import Edge, Node
from tfrobotserver.robot.base import AgentSpec, Robot
from tfrobotserver.robot.factory.brain.conversations import ConversationsComponent
from tfrobotserver.robot.factory.brain.llm import LLMComponent
from tfrobotserver.robot.factory.brain.memory.graph_component import GraphComponent, demo_graph_elements
from tfrobotserver.robot.factory.brain.memory.memory_component import MemoryComponent
from tfrobotserver.robot.factory.prompt import PromptComponent
from tfrobotserver.robot.problems import validation_problems
from tfrobotserver.robot.tools import MCPTools, ToolEntry, ToolsComponent

CONFIG_SUFFIXES = (".yaml", ".yml", ".json")
DEMO_CONFIG = Path(__file__).with_name("configs") / "demo.yaml"


class _Config(BaseModel):
    model_config = ConfigDict(extra="forbid")


class LLMConfig(_Config):
    provider: str = "scripted"
    model: str | None = None
    params: dict[str, Any] = Field(default_factory=dict)
    params_from: dict[str, str] = Field(default_factory=dict)
    """Parameters whose values are Python objects named `module:attribute` (e.g. scripted `rules`)."""


class PromptConfig(_Config):
    template: str
    defaults: dict[str, Any] = Field(default_factory=dict)


class MemoryConfig(_Config):
    url: str | None = None
    """A SQLMessageStore URL; None: the server's own database."""
    recall_turns: int = Field(default=20, ge=0)


class DocumentsConfig(_Config):
    collection: str | None = None
    """Default: the robot's name."""
    seed_docs: int = Field(default=0, ge=0)
    file_types: dict[str, str] | None = None
    max_pdf_pages: int | None = Field(default=None, ge=1)
    """Pages `aingest_file` reads of one PDF; a longer one is refused (default: the memory component's)."""
    max_text_chars: int | None = Field(default=None, ge=1)
    """Characters of text one ingested file may have (default: the memory component's)."""


class GraphConfig(_Config):
    collection: str | None = None
    seed: Literal["demo", "none"] = "none"
    nodes: list[Node] = Field(default_factory=list)
    edges: list[Edge] = Field(default_factory=list)


class RobotConfig(_Config):
    """One robot."""

    name: str = Field(min_length=1, pattern=r"^[A-Za-z0-9_.-]+$")
    description: str = ""
    llm: LLMConfig = Field(default_factory=LLMConfig)
    prompt: PromptConfig | None = None
    tools: list[ToolEntry] = Field(default_factory=list)
    """Built-in names, `module:function` / `module:*`, MCP servers (`tfrobotserver.robot.tools.entries`)."""
    memory: MemoryConfig = Field(default_factory=MemoryConfig)
    documents: DocumentsConfig | None = None
    graph: GraphConfig | None = None
    max_steps: int = Field(default=6, ge=1)
    confirm_timeout: float = Field(default=300.0, gt=0)


def load_robot_config(path: Path) -> RobotConfig:
    """Parse and validate one file (YAML or JSON by suffix); errors name the file."""
    text = path.read_text(encoding="utf-8")
    try:
        data = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: line {exc.lineno}, column {exc.colno}: {exc.msg}; fix the JSON there") from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
        context = f" {exc.context}" if exc.context else ""
        raise ValueError(f"{path}: {where}{exc.problem}{context}; fix the YAML there") from None
    except yaml.YAMLError as exc:
        raise ValueError(f"{path}: not YAML: {exc}") from None
    try:
        return RobotConfig.model_validate(data)
    except ValidationError as exc:
        raise ValueError(f"{path}: {validation_problems(exc)}; fix it in the file (docs/robots.md)") from None
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None


def build_robot(config: RobotConfig) -> Robot:
    """The robot a configuration describes."""
    try:
        llm = LLMComponent(
            provider=config.llm.provider,
            model=config.llm.model,
            params=config.llm.params,
            params_from=config.llm.params_from,
        )
    except ValidationError as exc:
        raise ValueError(f"llm: {validation_problems(exc, values=False)}") from None
    components: dict[str, TFSComponent] = {
        "llm": llm,
        "conversations": ConversationsComponent(memory_url=config.memory.url),
    }
    if config.tools:
        tools = ToolsComponent(tools=config.tools)
        tools.catalog.sources()  # resolves every entry now: a wrong one is an error that names it
        components["tools"] = tools
    if config.prompt is not None:
        components["prompt"] = PromptComponent(template=config.prompt.template, defaults=config.prompt.defaults)
    if config.documents is not None:
        docs = config.documents
        extra = docs.model_dump(include={"file_types", "max_pdf_pages", "max_text_chars"}, exclude_none=True)
        components["memory"] = MemoryComponent(
            collection=docs.collection or config.name, seed_docs=docs.seed_docs, **extra
        )
    if config.graph is not None:
        graph = config.graph
        nodes, edges = list(graph.nodes), list(graph.edges)
        if graph.seed == "demo":
            demo_nodes, demo_edges = demo_graph_elements()
            nodes, edges = demo_nodes + nodes, demo_edges + edges
        components["graph"] = GraphComponent(collection=graph.collection or config.name, nodes=nodes, edges=edges)
    agent = AgentSpec(
        prompt="prompt" if config.prompt is not None else None,
        tools="tools" if config.tools else None,
        recall_turns=config.memory.recall_turns,
        max_steps=config.max_steps,
        confirm_timeout=config.confirm_timeout,
    )
    return Robot(config.name, components, description=config.description, agent=agent)


def load_robot(path: Path) -> Robot:
    """`build_robot(load_robot_config(path))`; errors name the file, and so does the robot (`Robot.source`)."""
    config = _in_folder(load_robot_config(path), path.parent.resolve())
    try:
        robot = build_robot(config)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"{path}: {exc}") from None
    robot.source = str(path)
    return robot


def _in_folder(config: RobotConfig, folder: Path) -> RobotConfig:
    """`config` with paths relative to its file's `folder`: `module:function` entries are also imported from
    the folder (after the server's own `sys.path`), and a stdio MCP server runs in it (`cwd`, relative to it).
    So a robot folder works from wherever `tfrobot serve` is started."""
    if str(folder) not in sys.path:
        sys.path.append(str(folder))
    tools = [
        entry.model_copy(update={"cwd": str(folder / (entry.cwd or "."))})
        if isinstance(entry, MCPTools) and entry.command is not None
        else entry
        for entry in config.tools
    ]
    return config.model_copy(update={"tools": tools})


def robot_files(folder: Path) -> list[Path]:
    """The robot configuration files of a folder, by name."""
    return sorted(p for p in folder.iterdir() if p.is_file() and p.suffix in CONFIG_SUFFIXES)

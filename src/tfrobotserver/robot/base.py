"""`Robot`: a named set of components, the unit the HTTP API addresses."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from tfrobotserver.actions.component import TFSComponent
from tfrobotserver.actions.errors import ActionProtocolError


@dataclass(frozen=True)
class AgentSpec:
    """Which of a robot's components make up its agent loop (by component name; None: it has none)."""

    llm: str = "llm"
    conversations: str = "conversations"
    prompt: str | None = "prompt"
    tools: str | None = None
    """The tools component (`ToolsComponent`); None: the robot has no tools."""
    recall_turns: int = 20
    max_steps: int = 6
    confirm_timeout: float = 300.0
    """Seconds a call of a `confirm` tool waits for the user's answer (then it counts as refused)."""


class Robot:
    """A robot's components by name; checked once so that every served class is concrete."""

    def __init__(
        self,
        name: str,
        components: Mapping[str, TFSComponent],
        description: str = "",
        agent: AgentSpec | None = None,
        source: str = "",
    ) -> None:
        for comp_name, comp in components.items():
            type(comp).tfs_bound_actions()  # raises for generic component classes
            if not comp_name or "/" in comp_name:
                raise ActionProtocolError(
                    action=f"{name}.{comp_name}", field="component name", problem="must be a non-empty path segment",
                    fix="use a name without '/'", value=comp_name,
                )  # fmt: skip
            comp._tfs_robot, comp._tfs_name = name, comp_name
        if agent is not None:
            roles = {
                "llm": agent.llm,
                "conversations": agent.conversations,
                "prompt": agent.prompt,
                "tools": agent.tools,
            }
            for role, wanted in roles.items():
                if wanted is not None and wanted not in components:
                    raise ValueError(
                        f"robot {name!r}: the agent's {role} component {wanted!r} is not one of its components "
                        f"{sorted(components)}"
                    )
        self.name = name
        self.description = description
        self.components: dict[str, TFSComponent] = dict(components)
        self.agent = agent
        """How the robot chats (which components are its LLM, prompt and memory; its tools); None: no chat."""
        self.source = source
        """Where the robot is defined (its robot file), for errors that tell the user what to edit."""

"""`tfrobot chat`'s robot: built and started exactly as `tfrobot serve` builds and starts it.

A robot file (`--robot FILE`, loaded by the server's `load_robot`) or the demo robot; its saved console
configuration applied, its store opened in its own scope — by the server's own `Runtime`, on the
server's database (`--config DIR`, else the default data directory): so a conversation from the
terminal is one of the robot's conversations in the console, and the console's changes apply here.
`--provider`/`--model` and `--memory-url` replace the robot's LLM and conversation store for the
session; `$TFROBOT_PROVIDER`, `$TFROBOT_MODEL` and `$TFROBOT_MEMORY_URL` are their defaults.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Final

from rich.console import Console
from rich.markup import escape

from tfrobot.brain.memory import MEMORY_URL_ENV
from tfrobot.chat import Session, chat
from tfrobot.drive import Confirm
from tfrobotserver.app.readiness import chat_readiness
from tfrobotserver.app.runtime import Runtime
from tfrobotserver.app.settings import ServerSettings
from tfrobotserver.robot.agent import build_brain, conversations_component, llm_component
from tfrobotserver.robot.base import Robot
from tfrobotserver.robot.config import load_robot
from tfrobotserver.robot.demo import build_demo_robot
from tfrobotserver.robot.factory.brain.conversations import ConversationsComponent
from tfrobotserver.robot.factory.brain.llm import LLMComponent

PROVIDER_ENV: Final = "TFROBOT_PROVIDER"
MODEL_ENV: Final = "TFROBOT_MODEL"
LEGACY_CHAT_FILE: Final = "tfrobot.db"
"""Where `tfrobot chat` kept its conversations before it shared the server's store."""


def terminal_robot(robot_file: Path | None, provider: str | None, model: str | None, memory_url: str | None) -> Robot:
    """The robot of `robot_file` (default: the demo robot), its LLM and store replaced when asked."""
    robot = load_robot(robot_file) if robot_file is not None else build_demo_robot()
    if robot.agent is None:
        raise ValueError(f"robot {robot.name!r} has no agent (an LLM and a memory): it cannot chat")
    replaced = dict(robot.components)
    provider = provider or os.environ.get(PROVIDER_ENV)
    model = model or os.environ.get(MODEL_ENV)
    if provider or model:
        current = llm_component(robot)
        kept = current.params if not provider or provider == current.provider else {}
        replaced[robot.agent.llm] = LLMComponent(
            provider=provider or current.provider, model=model or (None if provider else current.model), params=kept
        )
    memory_url = memory_url or os.environ.get(MEMORY_URL_ENV)
    if memory_url:
        replaced[robot.agent.conversations] = ConversationsComponent(memory_url=memory_url)
    return Robot(robot.name, replaced, description=robot.description, agent=robot.agent, source=robot.source)


@asynccontextmanager
async def started(robot: Robot, settings: ServerSettings) -> AsyncIterator[Runtime]:
    """The server's runtime for `robot` alone, started (saved configuration applied, store opened)."""
    runtime = Runtime(settings, [robot])
    try:
        await runtime.ensure_started()
    except BaseException:
        await runtime.aclose()  # what started before the failure (a store, an MCP server) is let go
        raise
    try:
        yield runtime
    finally:
        await runtime.aclose()


async def run_chat(
    robot: Robot,
    settings: ServerSettings,
    messages: Iterable[str],
    *,
    console: Console,
    session: Session,
    confirm: Confirm | None = None,
) -> None:
    """Say which robot, provider and store run, then chat turn by turn (`tfrobot.chat.chat`); `confirm` asks
    before a call of a `confirm` tool runs (None: such calls are refused)."""
    async with started(robot, settings):
        llm = llm_component(robot)
        store = conversations_component(robot).store
        console.print(
            f"[dim]robot {escape(robot.name)} · llm {escape(llm.provider)} ({escape(llm.llm().model)}) · "
            f"store {escape(store.safe_url)} (scope {escape(store.scope)})[/dim]",
            soft_wrap=True,
        )
        readiness = chat_readiness(robot)
        for problem in readiness.problems if readiness is not None else ():
            label = "warning" if readiness is not None and readiness.ready else "cannot chat yet"
            console.print(f"[yellow]{label}: {escape(problem)}[/yellow]", soft_wrap=True)
        legacy = settings.resolved_data_dir() / LEGACY_CHAT_FILE
        if legacy.is_file():
            console.print(
                f"[dim]conversations of tfrobot chat before 0.2 stay in {legacy}; read them with "
                f"--memory-url sqlite+aiosqlite:///{legacy}[/dim]",
                soft_wrap=True,
            )
        await chat(messages, console=console, brain=build_brain(robot, confirm), session=session)

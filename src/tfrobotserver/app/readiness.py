"""Whether each robot can chat now: what `GET /api/robots` reports and the start-up log says.

A robot that cannot reach its provider for a reason no turn can fix (no API key, the SDK not
installed) says so before anyone chats, with the fix; the LLM is built as a turn builds it
(`ChatLLM.readiness`: the SDK client, no network). A tool source that is not up (an MCP server that
failed to start, or is reconnecting) is a problem too; an `optional` one is listed without making
the robot unready, since it chats on without those tools. So is a tool TFL cannot name
(`DriveToolRegistry.left_out`): scripts cannot call it, function calls still do.
"""

from __future__ import annotations

from tfrobot.brain.chain.llms import describe
from tfrobot.drive import Drive
from tfrobot.drive.tfl_registry import DriveToolRegistry
from tfrobotserver.app.bodies import ChatReadiness
from tfrobotserver.robot.agent import llm_component, tools_component
from tfrobotserver.robot.base import Robot


def chat_readiness(robot: Robot) -> ChatReadiness | None:
    """`ready` and the problems (each with its fix) of a robot with an agent; None for one without."""
    if robot.agent is None:
        return None
    problems: list[str] = []
    llm = llm_component(robot)
    error = llm.llm().readiness()
    if error is not None:
        failure = describe(error)
        problems.append(f"{robot.agent.llm} ({llm.provider}): {failure.message}. Fix: {failure.fix}")
    blocking = bool(problems)
    tools = tools_component(robot)
    for source in tools.catalog.sources() if tools is not None else ():
        if source.state == "ready":
            continue
        why = f": {source.error}" if source.error else ""
        if source.optional:
            problems.append(f"tools ({source.name}): {source.state}{why} (optional: the robot chats without its tools)")
        else:
            blocking = True
            problems.append(f"tools ({source.name}): {source.state}{why}")
    if tools is not None:
        for name, reason in DriveToolRegistry(Drive(tools.catalog.tools())).left_out.items():
            problems.append(
                f"tools ({name}): left out of TFL scripts ({reason}); function calls still reach it. Fix: to call "
                "it from TFL, name it with letters, digits and _ (`@tool(name=...)`, or the entry's `prefix`)"
            )
    return ChatReadiness(ready=not blocking, problems=problems)

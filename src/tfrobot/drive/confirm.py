"""Confirmation of destructive tool calls: the user approves each call of a `confirm=True` tool first.

Whoever runs the turn injects a `Confirm` — an async `confirm(call) -> bool` that asks the user (the
console's chat asks in the browser, `tfrobot chat` on the terminal). A refusal, no answer within the
time-out, a failing hook or no hook at all: the call does not run, and its result says why, so the
LLM can tell the user instead of retrying blindly.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from tfrobot.schema.message import ToolCall

Confirm = Callable[[ToolCall], Awaitable[bool]]
"""Asks the user whether `call` may run; True runs it."""

DEFAULT_CONFIRM_TIMEOUT = 300.0
"""Seconds a call waits for the user's answer before it counts as refused."""


async def confirmation_refusal(call: ToolCall, confirm: Confirm | None, timeout: float) -> str | None:
    """None when the user approved `call`; otherwise the result text that says why it did not run."""
    if confirm is None:
        return (
            f"{call.name} was not run: it needs the user's confirmation, and this chat cannot ask for it; "
            "use a chat that can ask (the console's streaming chat, or `tfrobot chat` on a terminal)"
        )
    try:
        approved = await asyncio.wait_for(confirm(call), timeout=timeout)
    except TimeoutError:
        return f"{call.name} was not run: the user did not confirm it within {timeout:g} s"
    except Exception as exc:  # a broken hook must not run the call, nor end the turn
        return f"{call.name} was not run: asking the user for confirmation failed ({type(exc).__name__}: {exc})"
    return None if approved else f"{call.name} was not run: the user refused this call"

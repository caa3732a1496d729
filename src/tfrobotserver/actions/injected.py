"""Parameters the server supplies itself, which therefore never appear in a params schema.

The seed's actions take `async_session: AsyncSession` as their first argument; a console must not
be asked for it. Any parameter annotated with one of the marker types below (or with
`Annotated[X, Injected("key")]`) is filled by the server from the request context.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Any, get_args, get_origin

from sqlalchemy.ext.asyncio import AsyncSession


@dataclass(frozen=True)
class Principal:
    """The authenticated caller (a token's name and scopes; never the token itself)."""

    name: str
    scopes: frozenset[str] = field(default_factory=frozenset)
    unattended: bool = False
    """No person stands behind each call: an MCP client hands the actions to its model as tools, so what a
    `confirm` tool needs (a person's yes) cannot be assumed from the call itself."""


@dataclass(frozen=True)
class Injected:
    """`Annotated` marker: the server fills this parameter from its context entry `key`."""

    key: str


ASYNC_SESSION = "async_session"
PRINCIPAL = "principal"
ROBOT = "robot"
"""The `Robot` that owns the component (for actions that use its other components)."""
TURN_PREPARER = "turn_preparer"
"""The robot's `TurnPreparer` (`tfrobotserver.robot.turn`): its next turn for an input, prepared, not run."""
STEP_PREPARER = "step_preparer"
"""The robot's `StepPreparer` (`tfrobotserver.robot.turn`): a stored turn's LLM step, rebuilt."""

_BY_TYPE: dict[Any, str] = {AsyncSession: ASYNC_SESSION, Principal: PRINCIPAL}


def injection_key(annotation: Any) -> str | None:
    """The context key that fills a parameter of this annotation, or None for a client parameter."""
    if get_origin(annotation) is Annotated:
        for meta in annotation.__metadata__:
            if isinstance(meta, Injected):
                return meta.key
        return injection_key(get_args(annotation)[0])
    return _BY_TYPE.get(annotation)

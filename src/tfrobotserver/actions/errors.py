"""The one error type of the TFSAction layer.

Protocol mistakes are found while classes are created (at import or app start-up), long before a
console user clicks a button; the error therefore has to tell a developer exactly where to look:
which component and action, which field of which schema, the offending value, and how to fix it.
"""

from __future__ import annotations

from typing import Any, ClassVar


class ActionProtocolError(TypeError):
    """A TFSAction declaration that breaks the protocol (raised at registration, never at run time)."""

    def __init__(self, *, action: str, field: str, problem: str, fix: str, value: Any = None) -> None:
        self.action = action
        self.field = field
        self.problem = problem
        self.fix = fix
        self.value = value
        shown = "" if value is None else f" (value: {value!r})"
        super().__init__(f"TFSAction {action!r}, {field}: {problem}{shown}. Fix: {fix}")


class ActionInputError(ValueError):
    """Raised by a component when a parameter is well-typed but unusable (answered with 422).

    Pydantic validation catches type errors before the call; this is for what only the component
    can know (a template that does not compile, an id that does not exist).
    """

    status: ClassVar[int] = 422
    """The HTTP status the server answers with."""
    error: ClassVar[str] = "invalid_params"
    """The `error` code of the answer."""

    def __init__(self, path: str, message: str, value: Any = None) -> None:
        self.path = path
        self.message = message
        self.value = value
        super().__init__(f"{path}: {message}")


class ActionConflictError(Exception):
    """Raised by a component when a write collides with the stored state (answered with 409 `conflict`).

    Two cases: a create whose key exists (`value` is the key), and an update sent with a version that is
    no longer the stored one (`current` is the element as stored now, `overwrite` the parameters that,
    sent with the rest unchanged, replace it anyway). The message says what happened and what to do.
    """

    def __init__(
        self,
        path: str,
        message: str,
        value: Any = None,
        *,
        current: Any = None,
        overwrite: dict[str, Any] | None = None,
    ) -> None:
        self.path = path
        self.message = message
        self.value = value
        self.current = current
        self.overwrite = overwrite
        super().__init__(f"{path}: {message}")


class ActionNotFoundError(ActionInputError):
    """The parameter names something this component does not have, or not for this robot (answered with 404).

    Used where telling "unknown" from "someone else's" apart would leak (another robot's conversation id).
    """

    status: ClassVar[int] = 404
    error: ClassVar[str] = "not_found"

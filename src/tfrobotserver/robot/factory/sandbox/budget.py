"""The bounds of one template render and the budget that enforces them, before anything is built.

Every operation the bounded sandbox intercepts (operators, `~`, filters, method calls, output) first
works out how large its result will be from its arguments, then asks the budget: a string longer than
`MAX_SIZE` characters or a container of more than `MAX_ITEMS` items is refused before it exists, and
everything created is charged to `MAX_ALLOCATION` (characters plus items over the whole render), so a
loop cannot build many values that are each within bounds. The budget also holds the clock: the render
runs on a worker thread, and each intercepted operation and loop turn checks the time limit there.
"""

from __future__ import annotations

import time
from contextvars import ContextVar, Token
from dataclasses import dataclass, field

from jinja2.exceptions import SecurityError

MAX_SIZE = 1_000_000
"""Longest string a template may build, and longest rendered text (characters)."""
MAX_ITEMS = 100_000
"""Most items of one list, tuple or dict a template may build (Python objects cost 8-80 bytes an item)."""
MAX_ALLOCATION = 5_000_000
"""Characters plus items a render may create in total."""
MAX_ITERATIONS = 1_000_000
"""Loop iterations one render may run, all loops together."""
MAX_INT_BITS = 100_000
"""Largest integer a template may compute with `*` or `**`."""
MAX_DEPTH = 100
"""Deepest nesting of a value that is turned into text (its `repr` recurses once per level)."""
MAX_SECONDS = 3.0
"""Wall time of one render."""

_YIELD_SECONDS = 0.002
"""Render time between two voluntary releases of the GIL (`time.sleep(0)`): the event loop thread gets it
then, not after the interpreter's 5 ms switch interval."""


class BoundExceeded(SecurityError):
    """A render bound was crossed; a `SecurityError`, so it is a template error like the sandbox's own."""


@dataclass
class RenderBudget:
    """What one render has spent: loop turns, characters and items created, and its deadline."""

    seconds: float = MAX_SECONDS
    iterations: int = MAX_ITERATIONS
    allocated: int = 0
    deadline: float = field(default=0.0)
    yielded: float = field(default=0.0)

    def __post_init__(self) -> None:
        self.yielded = time.monotonic()
        self.deadline = self.yielded + self.seconds

    def tick(self) -> None:
        """One intercepted operation: the time limit is checked, and now and then another thread may run."""
        now = time.monotonic()
        if now > self.deadline:
            raise BoundExceeded(f"the template ran longer than {self.seconds:g} s")
        if now - self.yielded > _YIELD_SECONDS:
            time.sleep(0)
            self.yielded = now

    def iteration(self) -> None:
        """One loop turn, drawn from `MAX_ITERATIONS`."""
        self.iterations -= 1
        if self.iterations < 0:
            raise BoundExceeded(f"the template ran more than {MAX_ITERATIONS:,} loop iterations")
        self.tick()

    def charge(self, units: int) -> None:
        """`units` characters or items are about to be created."""
        self.tick()
        self.allocated += units
        if self.allocated > MAX_ALLOCATION:
            raise BoundExceeded(
                f"the template created more than {MAX_ALLOCATION:,} characters and items in total; build less "
                "text by concatenation in loops, output it directly"
            )

    def string(self, length: int, what: str) -> None:
        """A string of `length` characters is about to be built by `what`."""
        if length > MAX_SIZE:
            raise BoundExceeded(f"{what} would build a string of {length:,} characters; at most {MAX_SIZE:,}")
        self.charge(length)

    def items(self, count: int, what: str) -> None:
        """A container of `count` items is about to be built by `what`."""
        if count > MAX_ITEMS:
            raise BoundExceeded(f"{what} would build {count:,} items; at most {MAX_ITEMS:,}")
        self.charge(count)


_BUDGET: ContextVar[RenderBudget | None] = ContextVar("tfrobot_render_budget", default=None)


def current() -> RenderBudget:
    """The budget of the render in progress; outside a render (Jinja folds constant expressions while it
    compiles) a fresh one, so that the per-value bounds hold there too."""
    return _BUDGET.get() or RenderBudget()


def start(seconds: float = MAX_SECONDS) -> Token[RenderBudget | None]:
    """Begin a render's budget in this context; returns the token for `finish`."""
    return _BUDGET.set(RenderBudget(seconds))


def finish(token: Token[RenderBudget | None]) -> None:
    """End the render's budget."""
    _BUDGET.reset(token)


__all__ = [
    "MAX_ALLOCATION",
    "MAX_DEPTH",
    "MAX_INT_BITS",
    "MAX_ITEMS",
    "MAX_ITERATIONS",
    "MAX_SECONDS",
    "MAX_SIZE",
    "BoundExceeded",
    "RenderBudget",
    "current",
    "finish",
    "start",
]

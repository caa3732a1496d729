"""A Jinja2 sandbox whose templates are bounded in time and memory before they allocate.

`BoundedSandbox` (in `environment`) is the environment; `budget` holds the bounds and the per-render
budget, `sizes` measures text without building it, `filters` and `calls` predict what each filter,
method and operator builds.
"""

from __future__ import annotations

from tfrobotserver.robot.factory.sandbox.budget import (
    MAX_ALLOCATION,
    MAX_DEPTH,
    MAX_INT_BITS,
    MAX_ITEMS,
    MAX_ITERATIONS,
    MAX_SECONDS,
    MAX_SIZE,
    BoundExceeded,
)
from tfrobotserver.robot.factory.sandbox.environment import BoundedSandbox

__all__ = [
    "MAX_ALLOCATION",
    "MAX_DEPTH",
    "MAX_INT_BITS",
    "MAX_ITEMS",
    "MAX_ITERATIONS",
    "MAX_SECONDS",
    "MAX_SIZE",
    "BoundExceeded",
    "BoundedSandbox",
]

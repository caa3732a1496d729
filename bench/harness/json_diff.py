"""Where two JSON-like values differ: what a bench reports when two contenders do not do the same work."""

from __future__ import annotations

from typing import Any


def first_difference(a: Any, b: Any, path: str = "$") -> str | None:
    """Where two JSON-like values first differ, with both values; None when they are equal."""
    if type(a) is not type(b):
        return f"{path}: {type(a).__name__} {a!r:.120} vs {type(b).__name__} {b!r:.120}"
    if isinstance(a, dict):
        for key in dict.fromkeys([*a, *b]):
            if key not in a or key not in b:
                return f"{path}.{key}: only in {'the first' if key in a else 'the second'}"
            if (found := first_difference(a[key], b[key], f"{path}.{key}")) is not None:
                return found
        return None
    if isinstance(a, list):
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            if (found := first_difference(x, y, f"{path}[{i}]")) is not None:
                return found
        return None if len(a) == len(b) else f"{path}: {len(a)} items vs {len(b)}"
    return None if a == b else f"{path}: {a!r:.120} vs {b!r:.120}"

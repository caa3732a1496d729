"""One rule for every request body: standard JSON numbers and text without U+0000, refused with a 422 otherwise.

PostgreSQL's `text` and `jsonb` cannot hold U+0000 (NUL), and JSON has no NaN or Infinity (`1e400`
overflows to Infinity when parsed), which `json`/`jsonb` columns refuse; SQLite stores both, and a NaN
then comes back as `null`. Rather than a 500 on one store and a silent change on the other, every action
body is checked once, before its parameters are validated: each offending string (or mapping key) and
number is reported with its path, so the caller knows exactly which field to fix. Binary data goes
base64-encoded (as `aingest_file` takes it), where a NUL byte is fine.
"""

from __future__ import annotations

import math
from typing import Any

from pydantic_core import from_json

from tfrobotserver.dtos.api import FieldError

MAX_REPORTED = 20
"""Offending values listed in one answer; the first ones are enough to find the others."""
_SHOWN = 200
"""Characters of an offending string echoed back."""

NUL_MESSAGE = (
    "text cannot hold the NUL character (U+0000): the stores (PostgreSQL text and JSONB) refuse it; remove it, "
    "or send binary data base64-encoded"
)
NON_FINITE_MESSAGE = (
    "not a finite number: JSON has no NaN or Infinity (and 1e400 overflows to Infinity); send a finite number or null"
)


def _path(parts: tuple[str | int, ...]) -> str:
    return ".".join(str(p) for p in parts) or "(params)"


def unstorable_values(data: Any) -> list[FieldError]:
    """Every string or key holding U+0000 and every NaN / ±Infinity in a parsed JSON value (at most
    `MAX_REPORTED`), with its dotted path (`metadata.note`, `keywords.2`). Iterative: any depth."""
    found: list[FieldError] = []
    stack: list[tuple[tuple[str | int, ...], Any]] = [((), data)]
    while stack and len(found) < MAX_REPORTED:
        path, value = stack.pop()
        if path and isinstance(path[-1], str) and "\x00" in path[-1]:
            found.append(FieldError(path=_path(path), message=f"a key: {NUL_MESSAGE}", type="nul_character"))
        if isinstance(value, str):
            if "\x00" in value:
                found.append(
                    FieldError(path=_path(path), message=NUL_MESSAGE, type="nul_character", value=value[:_SHOWN])
                )
        elif isinstance(value, float):
            if not math.isfinite(value):
                found.append(
                    FieldError(path=_path(path), message=NON_FINITE_MESSAGE, type="non_finite_number", value=str(value))
                )
        elif isinstance(value, dict):
            stack.extend(((*path, key), item) for key, item in reversed(value.items()))
        elif isinstance(value, list):
            stack.extend(((*path, index), item) for index, item in reversed(list(enumerate(value))))
    return found[:MAX_REPORTED]


def unstorable_body(body: bytes) -> list[FieldError]:
    """`unstorable_values` of a request body; nothing when it is not JSON at all (validation says so)."""
    try:
        data = from_json(body, allow_inf_nan=True)
    except ValueError:
        return []
    return unstorable_values(data)

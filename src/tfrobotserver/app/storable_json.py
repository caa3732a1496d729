"""One rule for every request body: standard JSON numbers and text without U+0000, refused with a 422 otherwise.

PostgreSQL's `text` and `jsonb` cannot hold U+0000 (NUL), and JSON has no NaN or Infinity (`1e400`
overflows to Infinity when parsed), which `json`/`jsonb` columns refuse; SQLite stores both, and a NaN
then comes back as `null`. Rather than a 500 on one store and a silent change on the other, every action
body is checked once, before its parameters are validated: each offending string (or mapping key) and
number is reported with its path, so the caller knows exactly which field to fix. Binary data goes
base64-encoded (as `aingest_file` takes it), where a NUL byte is fine.

Values that arrive already parsed (MCP tool arguments: the SDK decoded the JSON-RPC message, `\\ud800`
escapes included) may also hold a lone UTF-16 surrogate, which UTF-8 cannot encode: `unstorable_values`
reports those too, with their path, before anything tries to encode them. JSON bytes never yield one
(pydantic's parser refuses the escape), so HTTP bodies are refused by validation instead.
"""

from __future__ import annotations

import math
import re
from typing import Any

from pydantic_core import from_json

from tfrobotserver.app.bodies import FieldError

MAX_REPORTED = 20
"""Offending values listed in one answer; the first ones are enough to find the others."""
_SHOWN = 200
"""Characters of an offending string echoed back."""

NUL_MESSAGE = (
    "text cannot hold the NUL character (U+0000): the stores (PostgreSQL text and JSONB) refuse it; remove it, "
    "or send binary data base64-encoded"
)
SURROGATE_MESSAGE = (
    "text cannot hold a lone UTF-16 surrogate (U+D800-U+DFFF without its pair): UTF-8 cannot encode it; send the "
    "pair, or remove the character"
)
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
NON_FINITE_MESSAGE = (
    "not a finite number: JSON has no NaN or Infinity (and 1e400 overflows to Infinity); send a finite number or null"
)


def _path(parts: tuple[str | int, ...]) -> str:
    return ".".join(str(p) for p in parts) or "(params)"


def _text_problem(text: str) -> tuple[str, str] | None:
    """(message, type) when `text` cannot be stored: a NUL or a lone surrogate; None when it can."""
    if "\x00" in text:
        return NUL_MESSAGE, "nul_character"
    if not text.isascii() and _LONE_SURROGATE.search(text):
        return SURROGATE_MESSAGE, "lone_surrogate"
    return None


def unstorable_values(data: Any) -> list[FieldError]:
    """Every string or key holding U+0000 or a lone surrogate and every NaN / ±Infinity in a parsed JSON value (at most
    `MAX_REPORTED`), with its dotted path (`metadata.note`, `keywords.2`). Iterative: any depth."""
    found: list[FieldError] = []
    stack: list[tuple[tuple[str | int, ...], Any]] = [((), data)]
    while stack and len(found) < MAX_REPORTED:
        path, value = stack.pop()
        key = path[-1] if path and isinstance(path[-1], str) else None
        if key is not None and (problem := _text_problem(key)):
            found.append(FieldError(path=_path(path), message=f"a key: {problem[0]}", type=problem[1]))
        if isinstance(value, str):
            if problem := _text_problem(value):
                shown = value[:_SHOWN].encode("utf-8", "replace").decode()
                found.append(FieldError(path=_path(path), message=problem[0], type=problem[1], value=shown))
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

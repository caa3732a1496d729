"""Whether a message can be stored: every message is kept as UTF-8 JSON, which no lone surrogate survives.

A Python `str` may hold a lone UTF-16 surrogate (U+D800-U+DFFF without its pair): `bytes.decode(...,
errors="surrogateescape")` makes them from undecodable bytes, `json.loads` from a `"\\ud800"` escape. UTF-8
cannot encode one, so such a message validated, travelled through a whole turn and failed only at storage
(`model_dump_json` raising), losing the turn. Messages validated from Python objects are checked here, once,
and refused with the path of the text; JSON input never holds one (pydantic's parser refuses the escape).

The check walks the message's values without building anything (no dump, no paths) unless it finds one:
serializing every message as it is made would leave its garbage between the messages of a conversation in
memory, and reading a conversation back for every request is what the payload pipeline spends its time on.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
"""Any surrogate code point: in a Python `str` (UTF-32 inside) a pair never appears, only lone halves."""


def check_storable(msg: BaseModel) -> None:
    """Raise ValueError naming the text, the character and the fix when `msg` holds a lone surrogate
    anywhere: a field, an extra field kept for a newer version, a nested model, a key."""
    if not _holds_surrogate(msg):
        return
    path, text, index = _find(msg.model_dump(), "")
    shown = text if len(text) <= 60 else f"{text[:60]}…"
    raise ValueError(
        f"{path or 'the message'} holds a lone UTF-16 surrogate U+{ord(text[index]):04X} at index {index} "
        f"({shown!r}); UTF-8 cannot encode it, so the message could never be stored. Fix: decode the source "
        "bytes with errors='replace' (not 'surrogateescape'), or remove the character."
    )


def _holds_surrogate(value: object) -> bool:
    """Whether any text in `value` (a model, with its extra fields; containers; keys) holds a surrogate."""
    if isinstance(value, str):
        return not value.isascii() and _LONE_SURROGATE.search(value) is not None
    if isinstance(value, BaseModel):
        for item in value.__dict__.values():
            if _holds_surrogate(item):
                return True
        extra = value.__pydantic_extra__
        return bool(extra) and _holds_surrogate(extra)
    if isinstance(value, dict):
        for key, item in value.items():
            if _holds_surrogate(key) or _holds_surrogate(item):
                return True
    elif isinstance(value, list | tuple):
        for item in value:
            if _holds_surrogate(item):
                return True
    return False


def _find(value: Any, path: str) -> tuple[str, str, int]:
    """The first text in `value` (a dump: dicts, lists, scalars) holding a surrogate: its path, text, index
    (called only when there is one)."""
    if isinstance(value, str):
        hit = _LONE_SURROGATE.search(value)
        if hit:
            return path, value, hit.start()
    elif isinstance(value, dict):
        for key, item in value.items():
            if isinstance(key, str) and (hit := _LONE_SURROGATE.search(key)):
                return f"{path}.{key!r}".lstrip("."), key, hit.start()
            if _holds_surrogate(item):
                return _find(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list | tuple):
        for i, item in enumerate(value):
            if _holds_surrogate(item):
                return _find(item, f"{path}[{i}]")
    raise AssertionError("_find is called only on a value that holds a surrogate")

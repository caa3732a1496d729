"""Whether a message can be stored: every message is kept as UTF-8 JSON, which no lone surrogate survives.

A Python `str` may hold a lone UTF-16 surrogate (U+D800-U+DFFF without its pair): `bytes.decode(...,
errors="surrogateescape")` makes them from undecodable bytes, `json.loads` from a `"\\ud800"` escape. UTF-8
cannot encode one, so such a message validated, travelled through a whole turn and failed only at storage
(`model_dump_json` raising), losing the turn. Messages validated from Python objects are checked here, once,
and refused with the path of the text; JSON input never holds one (pydantic's parser refuses the escape).
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel
from pydantic_core import PydanticSerializationError

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
"""Any surrogate code point: in a Python `str` (UTF-32 inside) a pair never appears, only lone halves."""


def check_storable(msg: BaseModel) -> None:
    """Raise ValueError naming the text, the character and the fix when `msg` holds a lone surrogate.

    Serializing to JSON (in Rust) is the complete and fast test, extra fields and nested messages included;
    only when it fails is the message walked to say where."""
    try:
        msg.__pydantic_serializer__.to_json(msg)
    except PydanticSerializationError:
        found = _find(msg.model_dump(), "")
        if found is None:
            return  # another reason a dump fails (not a text problem): the store reports it
        path, text, index = found
        shown = text if len(text) <= 60 else f"{text[:60]}…"
        raise ValueError(
            f"{path or 'the message'} holds a lone UTF-16 surrogate U+{ord(text[index]):04X} at index {index} "
            f"({shown!r}); UTF-8 cannot encode it, so the message could never be stored. Fix: decode the source "
            "bytes with errors='replace' (not 'surrogateescape'), or remove the character."
        ) from None


def _find(value: Any, path: str) -> tuple[str, str, int] | None:
    """The first text in `value` (a dump: dicts, lists, scalars) holding a surrogate: its path, text, index."""
    if isinstance(value, str):
        hit = _LONE_SURROGATE.search(value)
        return (path, value, hit.start()) if hit else None
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(key, str) and (hit := _LONE_SURROGATE.search(key)):
                return (f"{path}.{key!r}".lstrip("."), key, hit.start())
            if (found := _find(item, f"{path}.{key}" if path else str(key))) is not None:
                return found
    elif isinstance(value, list | tuple):
        for i, item in enumerate(value):
            if (found := _find(item, f"{path}[{i}]")) is not None:
                return found
    return None

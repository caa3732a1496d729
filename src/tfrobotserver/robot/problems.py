"""pydantic validation errors as one line a config file's author can act on: `path: problem (got value)`.

`ValidationError`'s own text spreads one problem over three lines, spells an item `rules.2.user`, and
repeats every alternative of a union; configuration errors name the path as the file writes it
(`rules[2].user`, `tools[0]`) and keep only what our validators said when they said something.
"""

from __future__ import annotations

from pydantic import ValidationError

_TYPE_TAGS = frozenset({"str", "int", "float", "bool", "list", "dict"})


def field_path(loc: tuple[str | int, ...]) -> str:
    """A location as a config file spells it: `rules[2].user`; the tags pydantic gives a union's
    alternatives (`str`, `PythonTools`, `function-after[…]`) are left out."""
    parts = []
    for part in loc:
        if isinstance(part, int):
            parts.append(f"[{part}]")
        elif part.isidentifier() and not part[:1].isupper() and part not in _TYPE_TAGS:
            parts.append(f".{part}")
    return "".join(parts).lstrip(".")


def validation_problems(exc: ValidationError, *, values: bool = True) -> str:
    """Every problem of `exc` on one line, `; `-separated; `values=False` leaves the inputs out (they may be
    secrets). Of a union's alternatives only the errors our own validators raised are kept, when there are."""
    errors = exc.errors(include_url=False)
    own = [e for e in errors if e["type"] == "value_error"]
    lines = []
    for error in own or errors:
        where = field_path(error["loc"])
        message = error["msg"].removeprefix("Value error, ")
        shown = repr(error["input"])[:80]
        plain = not values or error["type"] == "missing" or isinstance(error["input"], dict)
        got = "" if plain or error["type"] == "value_error" else f" (got {shown})"
        lines.append(f"{where}: {message}{got}" if where else f"{message}{got}")
    return "; ".join(dict.fromkeys(lines))

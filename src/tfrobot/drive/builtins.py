"""Tools that ship with TFRobot for any robot, not only the demo: a robot file names them in `tools:` by
their built-in name (`tfrobotserver.robot.tools.BUILTIN_TOOLS`). Each is a plain typed function, so the
`Drive` derives its JSON Schema from the signature like any other Python tool."""

from __future__ import annotations

__all__ = ["word_count"]


def word_count(text: str) -> dict[str, int]:
    """Count the words, lines and characters of a text (words are separated by whitespace).

    LLMs miscount long texts token by token; a tool gives the exact figures a length limit needs."""
    return {"words": len(text.split()), "lines": len(text.splitlines()), "characters": len(text)}

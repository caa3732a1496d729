"""Tools whose names TFL cannot write as they are (a robot file names them as `module:*`)."""

from __future__ import annotations

from tfrobot.drive import tool

__all__ = ["chinese", "dashed", "digit", "dotted"]


@tool(name="my-tool")
def dashed(text: str) -> str:
    """Echo the text (a dashed name)."""
    return f"my-tool saw {text}"


@tool(name="drive.weather")
def dotted(city: str) -> str:
    """The weather of a city (a dotted name)."""
    return f"{city}: sunny"


@tool(name="3d_view")
def digit(thing: str) -> str:
    """A name that starts with a digit."""
    return f"3d of {thing}"


@tool(name="天气")
def chinese(city: str) -> str:
    """A name in Chinese: fine for function calling, not a TFL name."""
    return f"{city}: 晴"

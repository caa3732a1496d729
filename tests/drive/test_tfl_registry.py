"""The Drive's tools inside TFL through the real `DriveToolRegistry`: signatures, results, errors."""

from __future__ import annotations

from tfrobot.drive import Drive
from tfrobot.drive.tfl_registry import DriveToolRegistry
from tfrobot.tfl import TFLInterpreter


def postcode(city: str, country: str = "FR") -> str:
    """The postcode of a city."""
    return {"Paris": "75001"}.get(city, "00000") + "-" + country


def disk() -> str:
    """Fails the way a real tool does."""
    raise ValueError("disk full")


def interpreter() -> TFLInterpreter:
    return TFLInterpreter(DriveToolRegistry(Drive([postcode, disk])))


def test_signature_and_result() -> None:
    registry = DriveToolRegistry(Drive([postcode]))
    signature = registry.signature("postcode")
    assert signature is not None
    assert signature.parameters == ("city", "country")
    assert signature.required == frozenset({"city"})
    assert registry.signature("nope") is None
    result = interpreter().run('print(postcode(city="Paris"))')
    assert result.trace_meta is not None
    assert result.trace_meta["ok"] is True, result.result
    assert result.result == "75001-FR"


def test_a_failing_tool_stops_the_script_with_its_message_once() -> None:
    result = interpreter().run('x = disk()\nprint("not reached")')
    assert result.trace_meta is not None
    assert result.trace_meta["ok"] is False
    assert "disk full" in result.result
    assert "not reached" not in result.result
    assert "RuntimeError" not in result.result  # regression: the error was wrapped a second time

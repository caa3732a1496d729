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


def zipcode(city: str) -> str:
    """A string that looks like a number."""
    return "75001"


def test_results_keep_their_python_type() -> None:
    """Regression: results went through JSON text and back, so the string "75001" became a number."""
    result = TFLInterpreter(DriveToolRegistry(Drive([zipcode]))).run('z = zipcode(city="Paris")\nprint(z + "-FR")')
    assert result.trace_meta is not None
    assert result.trace_meta["ok"] is True, result.result
    assert result.result == "75001-FR"


def test_invalid_arguments_are_reported_like_a_json_call() -> None:
    result = interpreter().run("print(postcode(city=3))")
    assert result.trace_meta is not None
    assert result.trace_meta["ok"] is False
    assert "invalid arguments for postcode: city: Input should be a valid string" in result.result

"""The Drive's tools inside TFL through the real `DriveToolRegistry`: signatures, results, errors."""

from __future__ import annotations

from tfrobot.drive import Drive
from tfrobot.drive.tfl_registry import DriveToolRegistry
from tfrobot.tfl import TFLInterpreter


def postcode(city: str, country: str = "FR") -> str:
    """The postcode of a city."""
    return {"Paris": "75001"}.get(city, "00000") + "-" + country


def zipcode(city: str) -> str:
    """A string that looks like a number."""
    return "75001"


def disk() -> str:
    """Fails the way a real tool does."""
    raise ValueError("disk full")


def run(script: str, *, ok: bool) -> str:
    """The console output of `script` with the three tools above, which must succeed (or fail) as `ok`."""
    result = TFLInterpreter(DriveToolRegistry(Drive([postcode, zipcode, disk]))).run(script)
    assert result.trace_meta is not None
    assert result.trace_meta["ok"] is ok, result.result
    return result.result


def test_signature_and_result() -> None:
    registry = DriveToolRegistry(Drive([postcode]))
    signature = registry.signature("postcode")
    assert signature is not None
    assert signature.parameters == ("city", "country")
    assert signature.required == frozenset({"city"})
    assert registry.signature("nope") is None
    assert run('print(postcode(city="Paris"))', ok=True) == "75001-FR"


def test_a_failing_tool_stops_the_script_with_its_message_once() -> None:
    output = run('x = disk()\nprint("not reached")', ok=False)
    assert "disk full" in output
    assert "not reached" not in output
    assert "RuntimeError" not in output  # regression: the error was wrapped a second time


def test_results_keep_their_python_type() -> None:
    """Regression: results went through JSON text and back, so the string "75001" became a number."""
    assert run('z = zipcode(city="Paris")\nprint(z + "-FR")', ok=True) == "75001-FR"


def test_invalid_arguments_are_reported_like_a_json_call() -> None:
    output = run("print(postcode(city=3))", ok=False)
    assert "invalid arguments for postcode: city: Input should be a valid string" in output

"""The Drive's tools inside TFL through the real `DriveToolRegistry`: signatures, results, errors."""

from __future__ import annotations

from tfrobot.drive import Drive, Tool
from tfrobot.drive.tfl_registry import DriveToolRegistry, tfl_name
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


def test_names_tfl_cannot_write_are_mapped_or_left_out_never_an_error() -> None:
    """Regression (issue 13, A): a `my-tool` made the interpreter (so every turn) raise."""

    def echo(text: str) -> str:
        """Echo."""
        return text

    drive = Drive(
        [
            Tool(echo, name="my-tool"),
            Tool(echo, name="drive.weather"),
            Tool(echo, name="3d"),
            Tool(echo, name="天气"),
            Tool(echo, name="if"),
            Tool(echo, name="len"),
            Tool(echo, name="my_tool"),
        ]
    )
    registry = DriveToolRegistry(drive)
    assert sorted(registry.names()) == ["_3d", "drive_weather", "my_tool"]
    assert registry.tool_names == {"_3d": "3d", "drive_weather": "drive.weather", "my_tool": "my_tool"}
    assert registry.left_out == {
        "天气": "not an ASCII name: TFL names are letters A-Z, digits and _, not starting with a digit",
        "if": "'if' is a TFL keyword",
        "len": "'len' is a TFL builtin",
        "my-tool": "its TFL name 'my_tool' is taken by the tool 'my_tool'",
    }
    result = TFLInterpreter(registry).run('print(drive_weather(text="a"), _3d(text="b"))')
    assert result.result == "a b"
    assert [tfl_name(n) for n in ("a-b", "x.y.z", "9", "ok", "天气")] == ["a_b", "x_y_z", "_9", "ok", None]

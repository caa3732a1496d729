"""The `tfrobot` demo runs end to end: build, store, reload, convert."""

from __future__ import annotations

import pytest

from tfrobot.__main__ import main


def test_demo_round_trips_and_prints_the_request(capsys: pytest.CaptureFixture[str]) -> None:
    main()
    out = capsys.readouterr().out
    assert "every class intact" in out
    assert "call_2" in out
    assert "console" in out

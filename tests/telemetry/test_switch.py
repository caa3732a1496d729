"""When `tfrobot serve` exports traces: off by default, on by --otel, TFROBOT_OTEL or an OTLP endpoint,
and never against the SDK's own off switches."""

from __future__ import annotations

import pytest

from tfrobot.telemetry.switch import ENABLE_ENV, asked, off_switch, wanted

SWITCHES = (ENABLE_ENV, "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_SDK_DISABLED")


@pytest.fixture(autouse=True)
def _clean(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (*SWITCHES, "OTEL_TRACES_EXPORTER"):
        monkeypatch.delenv(name, raising=False)


def test_off_by_default_on_by_the_flag() -> None:
    assert wanted() is False
    assert wanted(True) is True
    assert wanted(False) is False


@pytest.mark.parametrize(
    ("name", "value"), [(ENABLE_ENV, "1"), ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318")]
)
def test_the_environment_switches_it_on_and_the_flag_still_wins(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str
) -> None:
    monkeypatch.setenv(name, value)
    assert wanted() is True
    assert wanted(False) is False


@pytest.mark.parametrize(("name", "value"), [("OTEL_SDK_DISABLED", "true"), ("OTEL_TRACES_EXPORTER", "none")])
def test_the_sdks_off_switches_win(monkeypatch: pytest.MonkeyPatch, name: str, value: str) -> None:
    monkeypatch.setenv(name, value)
    monkeypatch.setenv(ENABLE_ENV, "1")
    assert wanted() is False
    assert wanted(True) is False


def test_a_switch_that_is_neither_on_nor_off_is_refused_with_the_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENABLE_ENV, "maybe")
    with pytest.raises(ValueError, match=r"TFROBOT_OTEL='maybe'.*set it to 1 or 0"):
        wanted()


@pytest.mark.parametrize(
    ("name", "value", "said"),
    [
        ("OTEL_SDK_DISABLED", "TRUE", "OTEL_SDK_DISABLED=true"),
        ("OTEL_TRACES_EXPORTER", "none", "OTEL_TRACES_EXPORTER=none"),
    ],
)
def test_the_off_switch_in_force_is_named_and_the_request_still_seen(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str, said: str
) -> None:
    """So that `tfrobot serve --otel` can say why it exports nothing instead of staying silent."""
    assert off_switch() is None
    monkeypatch.setenv(name, value)
    assert off_switch() == said
    assert asked(True) is True
    assert wanted(True) is False

"""Whether a process exports traces: the switch `tfrobot serve` reads (no OpenTelemetry import here, so the
answer is known without the `otel` extra, and a missing extra is an error only when telemetry is wanted)."""

from __future__ import annotations

import os
from typing import Final

ENABLE_ENV: Final = "TFROBOT_OTEL"
"""`TFROBOT_OTEL=1` switches telemetry on for `tfrobot serve` (as `--otel` does); `0` keeps it off."""
ENDPOINT_ENVS: Final = ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
"""An endpoint in one of these switches telemetry on too: whoever sets it wants the traces there."""
_TRUE: Final = frozenset({"1", "true", "yes", "on"})
_FALSE: Final = frozenset({"0", "false", "no", "off"})


def wanted(flag: bool | None = None) -> bool:
    """Whether to export traces: never against the SDK's own off switches (`off_switch`); else whether they
    were asked for (`asked`)."""
    return off_switch() is None and asked(flag)


def asked(flag: bool | None = None) -> bool:
    """Whether traces were asked for: the command-line `flag` when given, else `TFROBOT_OTEL`, else whether
    an OTLP endpoint is configured."""
    if flag is not None:
        return flag
    switch = os.environ.get(ENABLE_ENV, "").strip().lower()
    if switch in _TRUE or switch in _FALSE:
        return switch in _TRUE
    if switch:
        raise ValueError(f"{ENABLE_ENV}={switch!r} is neither on (1, true) nor off (0, false); set it to 1 or 0")
    return any(os.environ.get(name) for name in ENDPOINT_ENVS)


def off_switch() -> str | None:
    """The SDK's own variable that switches tracing off, as it is set (`OTEL_SDK_DISABLED=true`,
    `OTEL_TRACES_EXPORTER=none`), so that a start-up asked to trace can say why it does not; None when
    neither is set."""
    if os.environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return "OTEL_SDK_DISABLED=true"
    if os.environ.get("OTEL_TRACES_EXPORTER", "").strip().lower() == "none":
        return "OTEL_TRACES_EXPORTER=none"
    return None

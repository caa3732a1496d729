"""Traces of the server's requests, joined to the turns they start (`tfrobot serve --otel`).

The FastAPI instrumentation opens a server span per request; a chat turn runs in a task of its own
(`turns.py`), which `asyncio.create_task` starts with a copy of the request's context, so the turn's
`invoke_agent` span is a child of the request's span and both are one trace. Off unless switched on
(`tfrobot.telemetry.setup.wanted`): without it the app has no instrumentation at all.
"""

from __future__ import annotations

import os
from typing import Final

from fastapi import FastAPI

from tfrobot.telemetry import redact_errors_with
from tfrobot.telemetry.switch import wanted
from tfrobotserver.redaction import redact_text

SEMCONV_ENV: Final = "OTEL_SEMCONV_STABILITY_OPT_IN"
"""The instrumentations' choice of HTTP attribute names; `http` (the stable names: `http.request.method`,
`url.path`, `http.response.status_code`) unless the user chose otherwise."""
EXTRA_FIX: Final = "install the `otel` extra (pip install 'tfrobot[otel]'), or serve without --otel / TFROBOT_OTEL"


def enable_tracing(app: FastAPI, flag: bool | None = None) -> bool:
    """Set up the SDK from the environment and trace `app`'s requests, when telemetry is wanted (`flag`:
    the `--otel/--no-otel` option, None when not given); returns whether it is on."""
    if not wanted(flag):
        return False
    os.environ.setdefault(SEMCONV_ENV, "http")  # read once, when the instrumentation first looks: set it before
    try:
        from opentelemetry.instrumentation.fastapi import FastAPIInstrumentor

        from tfrobot.telemetry import setup
    except ImportError as exc:
        raise ImportError(
            f"telemetry is switched on but {exc.name or 'opentelemetry'} is missing: {EXTRA_FIX}"
        ) from exc
    redact_errors_with(redact_text)  # errors on spans leave as the log lines do: credentials masked
    provider = setup.configure_sdk()
    FastAPIInstrumentor.instrument_app(app, tracer_provider=provider, exclude_spans=["receive", "send"])
    return True

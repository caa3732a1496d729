"""HTTP error responses: one JSON shape (`ErrorBody`) for every status the API returns.

A component failure is answered with 500 and an error id that is also in the server log with
the stack trace; the response never carries the trace or the exception text, which may hold
internals (paths, SQL, secrets). A database that is not there (refused, restarting, a connection
killed) is a 503 with `Retry-After`: the same request can succeed in a moment. The server's log lines
(ours and uvicorn's) pass `RedactingFilter`: a traceback that quotes a DSN or a header shows it masked.

A provider failure is not a server fault and says what it is (`error_for`): `provider_error` with
the failure's kind, the provider's message and the fix, at a status that tells who must act —
424 when the robot's LLM setup is wrong (no key, a refused key, an unknown model, the SDK not
installed), 429 with `Retry-After` when the provider rate-limits, 422 when the conversation itself
cannot be sent (too long, content the provider cannot take), 502 when the provider failed or
answered something that is not its API, 504 when it did not answer in time. A conversation that is
not the robot's is a 404.
"""

from __future__ import annotations

import logging
import math
import uuid
from collections.abc import Iterable, Mapping
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic_core import ErrorDetails
from starlette.exceptions import HTTPException as StarletteHTTPException

from tfrobot.brain.chain.llms import LLMError, describe
from tfrobot.brain.memory import ConversationNotFound, database_unavailable
from tfrobot.schema.message import TurnFailure
from tfrobotserver.app.bodies import ErrorBody, FieldError
from tfrobotserver.app.security_headers import API_HEADERS
from tfrobotserver.redaction import install_log_redaction

logger = logging.getLogger("tfrobotserver")


class ApiError(Exception):
    """An error the API answers with `status` and an `ErrorBody`."""

    def __init__(
        self,
        status: int,
        error: str,
        message: str,
        errors: list[FieldError] | None = None,
        error_id: str | None = None,
        *,
        current: Any = None,
        overwrite: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.body = ErrorBody(
            error=error, message=message, errors=errors, error_id=error_id, current=current, overwrite=overwrite
        )

    @classmethod
    def of_body(cls, status: int, body: ErrorBody) -> ApiError:
        """An error answering with this very body."""
        err = cls(status, body.error, body.message)
        err.body = body
        return err


PROVIDER_STATUS: dict[str, int] = {
    "missing_key": 424,
    "auth": 424,
    "model_not_found": 424,
    "not_installed": 424,
    "rate_limited": 429,
    "context_too_long": 422,
    "unsupported_content": 422,
    "invalid_conversation": 422,
    "invalid_request": 502,
    "bad_response": 502,
    "unavailable": 502,
    "connection": 502,
    "timeout": 504,
}
"""The HTTP status of each kind of provider failure (see the module docstring); any other kind is a 502."""


def failure_error(failure: TurnFailure, conversation_id: str | None = None) -> ApiError:
    """The answer to a turn that failed with `failure` (typed, never a bare 500)."""
    status = PROVIDER_STATUS.get(failure.kind, 502)
    body = ErrorBody(
        error="provider_error",
        message=failure.message,
        status=status,
        kind=failure.kind,
        provider=failure.provider,
        provider_message=failure.provider_message,
        fix=failure.fix,
        retry_after=failure.retry_after,
        retries=failure.retries,
        upstream_status=failure.status,
        conversation_id=conversation_id,
    )
    return ApiError.of_body(status, body)


def error_for(exc: BaseException, where: str, conversation_id: str | None = None) -> ApiError:
    """The answer to `exc` raised while serving `where`: a 404 for a conversation that is not the robot's,
    the typed provider error of an LLM failure, else `internal_error` (a 500, or a 503 for the database)."""
    if isinstance(exc, ConversationNotFound):
        return ApiError(404, "not_found", f"{where}: no conversation {exc.conversation_id!r} in this robot")
    if isinstance(exc, LLMError):
        logger.info("%s: %s", where, exc)
        return failure_error(describe(exc), conversation_id)
    return internal_error(exc, where)


def _jsonable(value: Any) -> Any:
    """An error's input as JSON can carry it: a body that is not UTF-8 is echoed with replacement characters,
    a NaN or Infinity (which JSON has not) as its name."""
    if isinstance(value, bytes | bytearray):
        return value.decode("utf-8", "replace")
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return value


def field_errors(details: Iterable[ErrorDetails | Mapping[str, Any]], skip_prefix: int = 0) -> list[FieldError]:
    """pydantic error details as path / message / type / value, one per invalid field."""
    out: list[FieldError] = []
    for d in details:
        loc = [str(p) for p in tuple(d.get("loc", ()))[skip_prefix:]]
        out.append(
            FieldError(
                path=".".join(loc) or "(params)",
                message=str(d.get("msg", "")),
                type=str(d.get("type", "")),
                value=_jsonable(d.get("input")),
            )
        )
    return out


def internal_error(exc: BaseException, where: str) -> ApiError:
    """Log `exc` with a fresh error id and return the 500 that quotes only the id; or, when the database
    was not there (refused, restarting, connection killed), the 503 that says so and to retry."""
    error_id = uuid.uuid4().hex
    if database_unavailable(exc):
        logger.warning("%s: database unavailable; error id %s", where, error_id, exc_info=exc)
        status, error = 503, "unavailable"
        message = f"{where} failed: the database is unavailable right now; retry in a moment (error id {error_id})"
    else:
        logger.error("%s failed; error id %s", where, error_id, exc_info=exc)
        status, error = 500, "internal_error"
        message = f"{where} failed; the server log has the details under error id {error_id}"
    return ApiError(status, error, message, error_id=error_id)


_HEADERS = {401: {"WWW-Authenticate": "Bearer"}, 503: {"Retry-After": "1"}}


def error_headers(err: ApiError) -> dict[str, str]:
    """The headers of an error answer: the API's security headers, and `Retry-After` (whole seconds) when
    the provider said when to retry."""
    if err.body.retry_after is not None:
        return {**API_HEADERS, "Retry-After": str(max(1, math.ceil(err.body.retry_after)))}
    return {**API_HEADERS, **_HEADERS.get(err.status, {})}


def error_response(err: ApiError) -> JSONResponse:
    """The JSON response of `err`: the exception handlers and the request guards answer through it.

    It carries the API's security headers itself: a 500 is sent from outside every middleware."""
    body = err.body.model_dump(mode="json", exclude_none=True)
    return JSONResponse(body, status_code=err.status, headers=error_headers(err))


_NO_ROBOT = "/api/robots//"
"""A path whose robot segment is empty (a client that built it before choosing a robot): no route matches
it, and the 404 says why rather than a bare "Not Found"."""


def install_error_handlers(app: FastAPI) -> None:
    """Route every error through `ErrorBody`; mask credentials in the log lines errors produce."""
    install_log_redaction("tfrobotserver", "uvicorn.error")  # access lines: method, path, status; no secrets

    async def on_api_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, ApiError)
        return error_response(exc)

    async def on_validation(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        errors = field_errors(exc.errors())
        return error_response(ApiError(422, "invalid_request", "the request is not valid; see `errors`", errors=errors))

    async def on_http(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, StarletteHTTPException)
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
        path = request.url.path
        if exc.status_code == 404 and path.startswith(_NO_ROBOT):
            return error_response(
                ApiError(
                    404,
                    code,
                    f"{path} names no robot (the segment after /api/robots/ is empty); GET /api/robots lists the "
                    "robots: put one's name there",
                )
            )
        return error_response(ApiError(exc.status_code, code, str(exc.detail)))

    async def on_unexpected(request: Request, exc: Exception) -> JSONResponse:
        return error_response(internal_error(exc, f"{request.method} {request.url.path}"))

    app.add_exception_handler(ApiError, on_api_error)
    app.add_exception_handler(RequestValidationError, on_validation)
    app.add_exception_handler(StarletteHTTPException, on_http)
    app.add_exception_handler(Exception, on_unexpected)

"""An MCP server written with the official SDK (FastMCP), for the tests: every kind of result a tool can give.

`python -m tests.drive.mcp.example_server stdio` serves over stdin/stdout; `… http PORT` serves
streamable HTTP on 127.0.0.1:PORT/mcp. `$EXAMPLE_GREETING` (set by the robot file's `env`) shows that
the server gets the environment it is given; `$EXAMPLE_TOKEN`, when set, is the bearer token every HTTP
request must carry.
"""

from __future__ import annotations

import asyncio
import os
import sys
from typing import Any

from mcp.server.fastmcp import Context, FastMCP, Image
from mcp.types import ToolAnnotations
from starlette.middleware.base import BaseHTTPMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
)

server = FastMCP("example", host="127.0.0.1")
NOTES: dict[str, str] = {"todo": "buy milk"}


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def greet(name: str) -> str:
    """Greet someone (with $EXAMPLE_GREETING)."""
    return f"{os.environ.get('EXAMPLE_GREETING', 'Hello')}, {name}!"


@server.tool()
def snapshot() -> Image:
    """A 1x1 PNG."""
    return Image(data=PNG, format="png")


@server.tool()
def stats(values: list[float]) -> dict[str, float]:
    """Count, sum and mean of some numbers (structured content)."""
    return {"count": len(values), "sum": sum(values), "mean": sum(values) / len(values)}


@server.tool()
def fail(reason: str) -> str:
    """Always fails with `reason`."""
    raise ValueError(reason)


@server.tool()
async def nap(seconds: float) -> str:
    """Sleep, then answer."""
    await asyncio.sleep(seconds)
    return f"slept {seconds:g} s"


@server.tool()
def crash() -> str:
    """End the server's process in the middle of the call."""
    os._exit(3)


@server.tool(annotations=ToolAnnotations(destructiveHint=True))
def delete_note(name: str) -> str:
    """Delete a note."""
    return f"deleted {name}" if NOTES.pop(name, None) is not None else f"no note {name}"


@server.tool()
async def learn(name: str, ctx: Context[Any, Any, Any]) -> str:
    """Add a tool named `name` (it says "I am <name>") and tell the client its tools changed."""

    def learned() -> str:
        return f"I am {name}"

    server.add_tool(learned, name=name, description=f"A tool learned at run time: {name}.")
    await ctx.session.send_tool_list_changed()
    return f"learned {name}"


class _BearerToken(BaseHTTPMiddleware):
    async def dispatch(self, request: Request, call_next: Any) -> Response:
        if request.headers.get("authorization") != f"Bearer {os.environ['EXAMPLE_TOKEN']}":
            return JSONResponse({"error": "unauthorized"}, status_code=401)
        response: Response = await call_next(request)
        return response


def main(argv: list[str]) -> None:
    if argv[:1] == ["http"]:
        import uvicorn

        app = server.streamable_http_app()
        if os.environ.get("EXAMPLE_TOKEN"):
            app.add_middleware(_BearerToken)
        uvicorn.run(app, host="127.0.0.1", port=int(argv[1]), log_level="warning")
    else:
        server.run("stdio")


if __name__ == "__main__":
    main(sys.argv[1:])

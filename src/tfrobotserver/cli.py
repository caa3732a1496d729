"""The `tfrobot` command: `serve` runs TFRobotServer, `mcp` serves one robot to an MCP client over stdio,
`chat` talks to the demo robot, `demo` runs the message demo.

The entry point lives here rather than in `tfrobot` because the framework must not import the
server (layer rule); the demo is imported lazily from `tfrobot.__main__`.
"""

from __future__ import annotations

import gc
import ipaddress
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import typer
import uvicorn
from fastapi import FastAPI
from rich.console import Console

from tfrobotserver.app.factory import configured_robots, create_app
from tfrobotserver.app.settings import ServerSettings, load_settings

app = typer.Typer(help="TFRobot: an agent framework and its TFSAction server.", no_args_is_help=True)
_console = Console(stderr=True)


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def plan_bind(settings: ServerSettings, host: str | None, port: int | None) -> tuple[str, int, list[str]]:
    """Host, port and start-up notes; without tokens the host is forced to 127.0.0.1."""
    host = host or settings.host
    port = settings.port if port is None else port
    notes: list[str] = []
    if not settings.tokens:
        if not _is_loopback(host):
            notes.append(f"no token configured: refusing to bind {host}; binding 127.0.0.1 only")
            host = "127.0.0.1"
        notes.append("no token configured: local mode, every caller on this machine can read and write")
    return host, port, notes


@app.command()
def serve(
    host: Annotated[str | None, typer.Option(help="interface to bind (default 127.0.0.1)")] = None,
    port: Annotated[int | None, typer.Option(help="port (default 8000)")] = None,
    config: Annotated[
        Path | None, typer.Option("--config", help="directory holding server.toml", file_okay=False, exists=True)
    ] = None,
    access_log: Annotated[bool, typer.Option(help="log one line per request (off: less work per request)")] = True,
    workers: Annotated[
        int, typer.Option(min=1, help="server processes sharing the port (PostgreSQL only beyond 1)")
    ] = 1,
) -> None:
    """Serve the configured robots (default: the offline demo robot) over HTTP."""
    try:
        settings = load_settings(config)
        api = create_app(settings)
        if workers > 1 and settings.resolved_database_url().startswith("sqlite"):
            raise ValueError(
                f"--workers {workers} needs a client-server database: SQLite takes one writer at a time. Set "
                "database_url in server.toml to PostgreSQL (postgresql+asyncpg://…), or serve with one worker"
            )
    except (OSError, ValueError, TypeError, ImportError) as exc:  # config mistakes: say what, not a traceback
        _console.print(f"[red]cannot start: {exc}[/red]", soft_wrap=True)
        raise typer.Exit(2) from None
    bind_host, bind_port, notes = plan_bind(settings, host, port)
    for note in notes:
        _console.print(f"[yellow]{note}[/yellow]")
    shown = f"[{bind_host}]" if ":" in bind_host else bind_host
    _console.print(f"TFRobotServer on [bold]http://{shown}:{bind_port}[/bold]  (API docs: /docs)")
    _console.print(f"data: {settings.resolved_database_url()}")
    options: dict[str, Any] = {"host": bind_host, "port": bind_port, "log_level": "info", "access_log": access_log}
    if workers == 1:
        # What is loaded by now lives as long as the process: frozen out of the collector's sight, a full
        # collection under load pauses every request for ~14 ms instead of ~105 ms (README, Reliability).
        gc.freeze()
        uvicorn.run(api, **options)
        return
    # each worker process builds its own app from the same configuration directory
    os.environ[_CONFIG_ENV] = str(config.resolve()) if config is not None else ""
    uvicorn.run(f"{__name__}:worker_app", factory=True, workers=workers, **options)


_CONFIG_ENV = "TFROBOT_SERVE_CONFIG"
"""How `serve --workers N` hands its --config directory to the worker processes."""


def worker_app() -> FastAPI:
    """The app of one `serve --workers N` process (uvicorn imports it by name in each worker)."""
    config = os.environ.get(_CONFIG_ENV)
    api = create_app(load_settings(Path(config) if config else None))
    gc.freeze()
    return api


@app.command("mcp")
def mcp_stdio(
    robot: Annotated[str, typer.Argument(help="the robot to serve (its name in the configuration)")],
    config: Annotated[
        Path | None, typer.Option("--config", help="directory holding server.toml", file_okay=False, exists=True)
    ] = None,
    read_only: Annotated[
        bool, typer.Option("--read-only", help="offer the read actions only (no write, no chat)")
    ] = False,
) -> None:
    """Serve one robot to an MCP client (Claude Desktop, Cursor, …) over stdio: its actions, chat and data."""
    import asyncio

    from tfrobotserver.mcp import local_principal, pick_robot, serve_stdio  # the MCP SDK: only for this command

    try:
        settings = load_settings(config)
        found = pick_robot(configured_robots(settings), robot)
    except (OSError, ValueError, TypeError, ImportError) as exc:  # config mistakes: say what, not a traceback
        _console.print(f"[red]cannot start: {exc}[/red]", soft_wrap=True)
        raise typer.Exit(2) from None
    asyncio.run(serve_stdio(settings, found, local_principal(read_only)))


@app.command()
def chat(
    message: Annotated[
        list[str] | None, typer.Option("--message", "-m", help="send this and exit (repeat for several turns)")
    ] = None,
    conversation: Annotated[str | None, typer.Option(help="continue this conversation id")] = None,
    provider: Annotated[str | None, typer.Option(help="LLM provider (default $TFROBOT_PROVIDER or scripted)")] = None,
    model: Annotated[str | None, typer.Option(help="model name (default $TFROBOT_MODEL)")] = None,
    memory_url: Annotated[
        str | None, typer.Option(help="SQL URL of the memory (default: SQLite in the data dir)")
    ] = None,
) -> None:
    """Chat with the demo robot in the terminal, streaming its thinking, tool calls and TFL output."""
    import asyncio

    from tfrobot.chat import chat as run_chat
    from tfrobot.chat import configured_llm

    out = Console()
    try:
        llm = configured_llm(provider, model)
    except (ValueError, ImportError) as exc:
        _console.print(f"[red]cannot chat: {exc}[/red]", soft_wrap=True)
        raise typer.Exit(2) from None
    turns = message if message else _prompt_lines(out)
    conversation_id = asyncio.run(
        run_chat(turns, console=out, conversation_id=conversation, llm=llm, memory_url=memory_url)
    )
    out.print(f"[dim]conversation: {conversation_id} (continue with --conversation {conversation_id})[/dim]")


def _prompt_lines(out: Console) -> Iterator[str]:
    """Lines typed at the prompt until an empty line, `exit`, or end of input."""
    while True:
        try:
            line = out.input("[bold]you>[/bold] ").strip()
        except EOFError:
            return
        if not line or line in {"exit", "quit"}:
            return
        yield line


@app.command()
def demo() -> None:
    """Run the message-system demo (store, reload and print a conversation)."""
    from tfrobot.__main__ import main as message_demo

    message_demo()


def main() -> None:
    """Console-script entry point."""
    app()

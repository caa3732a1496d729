"""The `tfrobot` command: `tfrobot serve` runs TFRobotServer, `tfrobot demo` the message demo.

The entry point lives here rather than in `tfrobot` because the framework must not import the
server (layer rule); the demo is imported lazily from `tfrobot.__main__`.
"""

from __future__ import annotations

import ipaddress
from pathlib import Path
from typing import Annotated

import typer
import uvicorn
from rich.console import Console

from tfrobotserver.app.factory import create_app
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
) -> None:
    """Serve the configured robots (default: the offline demo robot) over HTTP."""
    try:
        settings = load_settings(config)
        api = create_app(settings)
    except (OSError, ValueError, TypeError, ImportError) as exc:  # config mistakes: say what, not a traceback
        _console.print(f"[red]cannot start: {exc}[/red]", soft_wrap=True)
        raise typer.Exit(2) from None
    bind_host, bind_port, notes = plan_bind(settings, host, port)
    for note in notes:
        _console.print(f"[yellow]{note}[/yellow]")
    shown = f"[{bind_host}]" if ":" in bind_host else bind_host
    _console.print(f"TFRobotServer on [bold]http://{shown}:{bind_port}[/bold]  (API docs: /docs)")
    _console.print(f"data: {settings.resolved_database_url()}")
    uvicorn.run(api, host=bind_host, port=bind_port, log_level="info")


@app.command()
def demo() -> None:
    """Run the message-system demo (store, reload and print a conversation)."""
    from tfrobot.__main__ import main as message_demo

    message_demo()


def main() -> None:
    """Console-script entry point."""
    app()

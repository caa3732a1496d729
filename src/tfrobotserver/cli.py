"""The `tfrobot` command: `serve` runs TFRobotServer, `mcp` serves one robot to an MCP client over stdio,
`chat` talks to one of its robots, `demo` runs the message demo.

The entry point lives here rather than in `tfrobot` because the framework must not import the
server (layer rule); the demo is imported lazily from `tfrobot.__main__`.
"""

from __future__ import annotations

import asyncio
import copy
import gc
import ipaddress
import json
import os
import secrets
import socket
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Annotated, Any

import typer
import uvicorn
from fastapi import FastAPI
from rich.console import Console

from tfrobot.brain.memory import MemoryStoreError
from tfrobot.telemetry.switch import ENABLE_ENV, asked, off_switch
from tfrobotserver.app.factory import configured_robots, create_app
from tfrobotserver.app.runtime import StartupError
from tfrobotserver.app.settings import ServerSettings, host_name, load_settings
from tfrobotserver.app.telemetry import enable_tracing
from tfrobotserver.redaction import redact_text

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
    if not settings.tokens and not _is_loopback(host):
        notes.append(f"no token configured: refusing to bind {host}; binding 127.0.0.1 only")
        host = "127.0.0.1"
    return host, port, notes


LOCAL_TOKEN_ENV = "TFROBOT_LOCAL_TOKEN"
"""Pins the local secret (scripts, tests); `tfrobot serve` otherwise makes a new one at each start."""
LOCAL_TOKEN_FILE = "local-token"
"""Where in the data dir `tfrobot serve` leaves the local secret (mode 0600) for scripts and curl."""
_SERVE_ENV = "TFROBOT_SERVE"
"""How `serve --workers N` hands its configuration to the worker processes (the secret goes in
`LOCAL_TOKEN_ENV`)."""


def bound_settings(settings: ServerSettings, host: str, port: int, allowed_hosts: list[str]) -> ServerSettings:
    """`settings` for the host and port actually bound, plus the `--allowed-host` names."""
    extra = [host_name(name) for name in allowed_hosts]
    return settings.model_copy(update={"host": host, "port": port, "allowed_hosts": [*settings.allowed_hosts, *extra]})


def make_local_secret() -> str:
    """`$TFROBOT_LOCAL_TOKEN`, or a fresh random secret."""
    secret = os.environ.get(LOCAL_TOKEN_ENV) or secrets.token_urlsafe(32)
    if len(secret) < 16:
        raise ValueError(
            f"{LOCAL_TOKEN_ENV} is shorter than 16 characters; unset it to get a random secret at each start"
        )
    return secret


def write_local_secret(path: Path, secret: str) -> None:
    """Write `secret` to `path`, readable by this user only (never through a planted symlink)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        os.chmod(path, 0o600)  # an existing file keeps its mode through O_TRUNC
        handle.write(secret + "\n")


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
    allowed_host: Annotated[
        list[str] | None,
        typer.Option(help="a Host name besides localhost that may reach the server (repeat; see allowed_hosts)"),
    ] = None,
    local_token: Annotated[
        bool,
        typer.Option(
            help="without configured tokens, API calls need the secret made at each start (printed with the console "
            f"link, also in <data dir>/{LOCAL_TOKEN_FILE}); --no-local-token lets every local process in"
        ),
    ] = True,
    otel: Annotated[
        bool | None,
        typer.Option(
            help="export OpenTelemetry traces of requests and turns (the `otel` extra; configured by the OTEL_* "
            "variables; default: on when TFROBOT_OTEL=1 or an OTLP endpoint is set; docs/telemetry.md)"
        ),
    ] = None,
) -> None:
    """Serve the configured robots (default: the offline demo robot) over HTTP."""
    try:
        settings = load_settings(config)
        bind_host, bind_port, notes = plan_bind(settings, host, port)
        settings = bound_settings(settings, bind_host, bind_port, allowed_host or [])
        secret = make_local_secret() if local_token and not settings.tokens else None
        api = create_app(settings, local_secret=secret)
        traced = enable_tracing(api, otel)
        if not traced and (vetoed := off_switch()) is not None and asked(otel):
            notes.append(
                f"telemetry: asked for, but off: {vetoed} switches the OpenTelemetry SDK off; unset it to export traces"
            )
        if workers > 1 and settings.resolved_database_url().startswith("sqlite"):
            raise ValueError(
                f"--workers {workers} needs a client-server database: SQLite takes one writer at a time. Set "
                "database_url in server.toml to PostgreSQL (postgresql+asyncpg://…), or serve with one worker"
            )
        secret_file = settings.resolved_data_dir() / LOCAL_TOKEN_FILE
        sock = _bind(bind_host, bind_port)
    except (OSError, ValueError, TypeError, ImportError) as exc:  # config mistakes: say what, not a traceback
        _console.print(f"[red]cannot start: {exc}[/red]", soft_wrap=True)
        raise typer.Exit(2) from None

    def announce() -> None:
        """What the user needs once the server is up: the notes, the address, the console link."""
        if not settings.tokens:
            who = "API calls need this start's local secret" if secret else "every local process can read and write"
            notes.append(f"no token configured: local mode, loopback only; {who}")
        for note in notes:
            _console.print(f"[yellow]{note}[/yellow]")
        shown = f"[{bind_host}]" if ":" in bind_host else bind_host
        _console.print(f"TFRobotServer on [bold]http://{shown}:{bind_port}[/bold]  (API docs: /docs)")
        if secret is not None:
            _console.print(f"console: [bold]http://{shown}:{bind_port}/#token={secret}[/bold]", soft_wrap=True)
            _console.print(
                f"local secret (API calls send `Authorization: Bearer <it>`): {secret_file}, readable by you only",
                soft_wrap=True,
            )
        _console.print(f"data: {redact_text(settings.resolved_database_url())}")
        if traced:
            _console.print("telemetry: OpenTelemetry traces exported (docs/telemetry.md)")

    options: dict[str, Any] = {
        "host": bind_host,
        "port": bind_port,
        "log_level": "info",
        "access_log": access_log,
        "log_config": _log_config(),
    }
    if workers == 1:
        server = uvicorn.Server(uvicorn.Config(api, **options))
        code = asyncio.run(_serve_bound(api, server, sock, announce, secret_file if secret else None, secret))
        if code:
            raise typer.Exit(code)
        return
    sock.close()  # the port was free; uvicorn's supervisor binds it again for its workers
    if secret is not None:
        write_local_secret(secret_file, secret)
    announce()
    # each worker process builds its own app from the same configuration
    plan = {"config": str(config.resolve()) if config else None, "allowed_hosts": allowed_host or []}
    os.environ[_SERVE_ENV] = json.dumps({**plan, "host": bind_host, "port": bind_port, "local": bool(secret)})
    if secret is not None:
        os.environ[LOCAL_TOKEN_ENV] = secret
    os.environ[ENABLE_ENV] = "1" if traced else "0"  # the workers trace as this process decided
    uvicorn.run(f"{__name__}:worker_app", factory=True, workers=workers, **options)


def _bind(host: str, port: int) -> socket.socket:
    """The listening socket, bound before anything is written: a second `tfrobot serve` on a port in use
    stops here with the fix, and leaves the first server's `local-token` alone."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise OSError(
            f"cannot listen on {host}:{port}: {exc.strerror or exc}; another server (maybe another tfrobot serve) "
            "has it: stop it, or pick another port with --port or `port` in server.toml"
        ) from None
    sock.set_inheritable(True)
    return sock


async def _serve_bound(
    api: FastAPI,
    server: uvicorn.Server,
    sock: socket.socket,
    announce: Callable[[], None],
    secret_file: Path | None,
    secret: str | None,
) -> int:
    """Start the robots, then write the local secret and `announce` the server, then serve on `sock`: the
    secret file changes only once this server is bound and started. A start-up the user can fix is a line
    and exit code 2."""
    runtime = api.state.runtime
    try:
        await runtime.ensure_started()
    except (StartupError, OSError, MemoryStoreError) as exc:
        await runtime.aclose()
        sock.close()
        _console.print(f"[red]cannot start: {redact_text(str(exc))}[/red]", soft_wrap=True)
        return 2
    if secret_file is not None and secret is not None:
        write_local_secret(secret_file, secret)
    announce()
    # What is loaded by now lives as long as the process: frozen out of the collector's sight, a full
    # collection under load pauses every request for ~14 ms instead of ~105 ms (docs/reliability.md).
    gc.freeze()
    await server.serve(sockets=[sock])
    return 0 if server.started else 3


def _log_config() -> dict[str, Any]:
    """Uvicorn's logging, plus the server's own start-up lines (which robots can chat, the stores it opened) and
    the framework's warnings (`tfrobot.*`: an MCP server that failed, a tool left out). Every line but the
    access log (method, path, status) goes through one handler that masks credentials (`RedactingFilter`),
    whichever logger made it: a filter on a logger does not see its children's records."""
    config = copy.deepcopy(uvicorn.config.LOGGING_CONFIG)
    config.setdefault("filters", {})["redact"] = {"()": "tfrobotserver.redaction.RedactingFilter"}
    config["handlers"]["default"]["filters"] = ["redact"]
    config["loggers"]["tfrobotserver"] = {"handlers": ["default"], "level": "INFO", "propagate": False}
    config["loggers"]["tfrobot"] = {"handlers": ["default"], "level": "WARNING", "propagate": False}
    return config


_CONFIG_ENV = "TFROBOT_SERVE_CONFIG"
"""How `serve --workers N` hands its --config directory to the worker processes."""


def worker_app() -> FastAPI:
    """The app of one `serve --workers N` process (uvicorn imports it by name in each worker)."""
    plan = json.loads(os.environ[_SERVE_ENV])
    settings = load_settings(Path(plan["config"]) if plan["config"] else None)
    settings = bound_settings(settings, plan["host"], plan["port"], plan["allowed_hosts"])
    api = create_app(settings, local_secret=os.environ[LOCAL_TOKEN_ENV] if plan["local"] else None)
    enable_tracing(api)
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
    robot: Annotated[
        Path | None, typer.Option("--robot", help="a robot file (YAML/JSON), as `serve` loads it", dir_okay=False)
    ] = None,
    config: Annotated[
        Path | None,
        typer.Option("--config", help="the server's directory (server.toml: its database)", file_okay=False),
    ] = None,
    provider: Annotated[str | None, typer.Option(help="replace the robot's LLM provider ($TFROBOT_PROVIDER)")] = None,
    model: Annotated[str | None, typer.Option(help="replace the robot's model ($TFROBOT_MODEL)")] = None,
    memory_url: Annotated[
        str | None, typer.Option(help="another conversation store ($TFROBOT_MEMORY_URL; default: the server's)")
    ] = None,
) -> None:
    """Chat with a robot (default: the demo) in the terminal, in the server's store, streaming its trace.
    Exit code 0; 1 when the last turn failed; 2 when the robot could not start."""
    import asyncio

    from tfrobot.chat import Session, TerminalConfirm
    from tfrobotserver.terminal import run_chat, terminal_robot

    out = Console()
    try:
        settings = load_settings(config)
        chosen = terminal_robot(robot, provider, model, memory_url)
    except (OSError, ValueError, TypeError, ImportError) as exc:  # config mistakes: say what, not a traceback
        _console.print(f"[red]cannot chat: {exc}[/red]", soft_wrap=True)
        raise typer.Exit(2) from None
    session = Session(conversation)
    turns = message if message else _prompt_lines(out)
    try:
        asyncio.run(run_chat(chosen, settings, turns, console=out, session=session, confirm=TerminalConfirm(out)))
    except KeyboardInterrupt:
        out.print()
    except StartupError as exc:  # an MCP server that did not start, a collection another robot owns: the fix
        _console.print(f"[red]cannot chat: {redact_text(str(exc))}[/red]", soft_wrap=True)
        raise typer.Exit(2) from None
    except (OSError, ValueError, MemoryStoreError) as exc:  # the store cannot be opened: say why
        _console.print(f"[red]cannot chat: {exc}[/red]", soft_wrap=True)
        raise typer.Exit(1) from None
    else:
        if session.last_failed:
            raise typer.Exit(1)  # scripts see that the last turn failed (the reason is printed above)
    finally:
        if session.conversation_id:
            out.print(
                f"[dim]conversation: {session.conversation_id} (continue with --conversation "
                f"{session.conversation_id})[/dim]",
                soft_wrap=True,
            )


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

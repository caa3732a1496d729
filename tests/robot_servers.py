"""A real `tfrobot serve` of robot files, on a free loopback port, for the tests that need the whole process:
clients that hang up mid-stream, the console in Chromium, `tfrobot chat` sharing the server's store."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Final

ROOT = Path(__file__).resolve().parents[1]
TFROBOT = Path(sys.executable).with_name("tfrobot")


LOCAL_TOKEN: Final = "robot-servers-local-secret-0123456789"
"""The local secret these servers run with (`TFROBOT_LOCAL_TOKEN` pins the one `tfrobot serve` makes)."""
AUTH: Final = {"Authorization": f"Bearer {LOCAL_TOKEN}"}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def post(url: str, payload: Any, headers: Mapping[str, str] | None = None) -> tuple[int, Any]:
    """A JSON POST; the status and the decoded JSON body (errors included)."""
    request = urllib.request.Request(
        url, data=json.dumps(payload).encode(), headers={"Content-Type": "application/json", **AUTH, **(headers or {})}
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def action(url: str, robot: str, component: str, name: str, params: Any = None) -> Any:
    """An action's result (a non-200 fails with the body)."""
    status, body = post(f"{url}/api/robots/{robot}/components/{component}/actions/{name}", params or {})
    assert status == 200, body
    return body


def write_config(config: Path, robots: Mapping[str, str], settings: str = "") -> None:
    """Write `robots` (file name → YAML) and a `server.toml` with the data in `config/data` plus `settings`."""
    for name, text in robots.items():
        (config / name).write_text(text, encoding="utf-8")
    (config / "server.toml").write_text(f"data_dir = {json.dumps(str(config / 'data'))}\n{settings}")


def serve_fails(
    config: Path,
    robots: Mapping[str, str],
    *,
    settings: str = "",
    port: int | None = None,
    env: Mapping[str, str | None] | None = None,
) -> str:
    """`tfrobot serve` of `robots` that must exit by itself with code 2 (a start-up error) within 60 s (tests
    start several at once on two shared cores); its output. One that starts instead is stopped and fails the
    test with what it answered."""
    write_config(config, robots, settings)
    given, port = port, port or free_port()
    proc = subprocess.Popen(
        [str(TFROBOT), "serve", "--port", str(port), "--config", str(config)],
        cwd=ROOT,
        env=_environment(env or {}),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while proc.poll() is None and time.monotonic() < deadline:
        # a server answering on a port of its own: it started (a given port may be another server's)
        if given is None and _answers(url) and proc.poll() is None:
            proc.terminate()
            break
        time.sleep(0.2)
    try:
        out, _ = proc.communicate(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, _ = proc.communicate()
    assert proc.returncode == 2, f"exit code {proc.returncode} (2: a start-up error):\n{out.decode()}"
    return out.decode()


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(urllib.request.Request(f"{url}/api/robots", headers=AUTH), timeout=1):
            return True
    except OSError:
        return False


@contextmanager
def serve_robots(
    config: Path, robots: Mapping[str, str], env: Mapping[str, str | None], *, settings: str = ""
) -> Iterator[str]:
    """`tfrobot serve --config config` serving `robots` (file name → YAML) with its data in `config/data`
    (`settings`: more `server.toml` lines), the environment `env` on top of this one (None: the variable
    removed); yields the base URL, stops the server afterwards."""
    write_config(config, robots, settings)
    port = free_port()
    log = config / "serve.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [str(TFROBOT), "serve", "--port", str(port), "--config", str(config)],
            cwd=ROOT,
            env=_environment(env),
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_until_up(url, proc, log)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _environment(changes: Mapping[str, str | None]) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1", "TFROBOT_LOCAL_TOKEN": LOCAL_TOKEN}
    for name, value in changes.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    return env


STARTUP_SECONDS = 90
"""How long a `tfrobot serve` may take to answer: tests start several at once, beside other test processes,
on two shared cores (30 s was too short at a load of 12)."""


def _wait_until_up(url: str, proc: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"tfrobot serve exited with {proc.returncode}:\n{log.read_text()}")
        try:
            probe = urllib.request.Request(f"{url}/api/robots", headers=AUTH)
            with urllib.request.urlopen(probe, timeout=1) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"tfrobot serve did not answer at {url} in {STARTUP_SECONDS} s:\n{log.read_text()}")

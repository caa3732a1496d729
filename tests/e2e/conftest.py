"""Browser tests: a real `tfrobot serve` on a free loopback port, driven through Debian's Chromium.

The server runs the robot of `tests/e2e/robots.py` with its data in a temporary directory; the
console is the Vite build in `src/tfrobotserver/static/` (`make web` builds it, `make test` does
it first). Playwright never downloads a browser here: it launches `/usr/bin/chromium`.
"""

from __future__ import annotations

import asyncio
import fcntl
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, Request, expect, sync_playwright

from tests.conftest import E2E_PERF_FILE
from tfrobot.brain.memory import SQLMessageStore
from tfrobot.schema.message import BaseMessage

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# Assertions wait as long as actions do: on a loaded two-core machine (eight builders, CI) a table's
# first page took 5 s, the assertions' default wait.
expect.set_options(timeout=15_000)
SCREENSHOTS = Path(os.environ.get("TFROBOT_SCREENSHOTS", ROOT / "build" / "e2e-screenshots"))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_until_up(url: str, proc: subprocess.Popen[bytes], log: Path, headers: dict[str, str]) -> None:
    deadline = time.monotonic() + 90  # a first start seeds its stores: 22 s seen at a load of 13 on two cores
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"tfrobot serve exited with {proc.returncode}:\n{log.read_text()}")
        try:
            with urllib.request.urlopen(urllib.request.Request(f"{url}/api/robots", headers=headers), timeout=1) as res:
                if res.status == 200:
                    return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"tfrobot serve did not answer at {url} in 90 s:\n{log.read_text()}")


READ_TOKEN = "e2e-reader-token-0123456789"
LOCAL_TOKEN = "e2e-local-secret-0123456789"
"""The local secret of the token-less server (`TFROBOT_LOCAL_TOKEN` pins what `tfrobot serve` makes)."""


@contextmanager
def _serve(config: Path, extra_toml: str = "") -> Iterator[str]:
    """Run `tfrobot serve` on a free loopback port with the e2e and demo robots; yield its URL."""
    if not (ROOT / "src" / "tfrobotserver" / "static" / "index.html").is_file():
        pytest.fail("the console is not built: run `make web` (make test does it first)")
    robots = ["tests.e2e.robots:build_e2e_robot", "tfrobotserver.robot.demo:build_demo_robot"]
    data = json.dumps(str(config / "data"))
    (config / "server.toml").write_text(f"data_dir = {data}\nrobots = {json.dumps(robots)}\n{extra_toml}")
    port = _free_port()
    log = config / "serve.log"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1", "TFROBOT_LOCAL_TOKEN": LOCAL_TOKEN}
    tfrobot = Path(sys.executable).with_name("tfrobot")
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [str(tfrobot), "serve", "--port", str(port), "--config", str(config)],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_until_up(url, proc, log, {"Authorization": f"Bearer {READ_TOKEN if extra_toml else LOCAL_TOKEN}"})
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The base URL of a `tfrobot serve` serving the e2e robot and the demo robot, no tokens (local mode:
    API calls need `LOCAL_TOKEN`)."""
    with _serve(tmp_path_factory.mktemp("serve")) as url:
        yield url


@pytest.fixture(scope="session")
def token_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The same robots behind bearer tokens; READ_TOKEN may read but not write."""
    tokens = f'[[tokens]]\nname = "reader"\nscopes = ["read"]\nsecret = "{READ_TOKEN}"\n'
    with _serve(tmp_path_factory.mktemp("serve-tokens"), tokens) as url:
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Debian's Chromium, headless, no background networking, a fresh profile per launch.

    Module-scoped: Playwright's sync API runs an event loop while it is open, which the
    pytest-asyncio tests of other packages must not find running.
    """
    if not CHROMIUM.exists():
        pytest.fail("/usr/bin/chromium is missing: `make chromium` (apt-get install chromium) as root")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield b
        b.close()


class Calls:
    """The action calls a page made: POST …/actions/{name}, with their JSON bodies."""

    def __init__(self) -> None:
        self.posts: list[tuple[str, dict[str, object]]] = []

    def record(self, request: Request) -> None:
        if request.method == "POST" and "/actions/" in request.url:
            body = request.post_data
            self.posts.append((request.url.rsplit("/", 1)[1], json.loads(body) if body else {}))

    def to(self, action: str) -> list[dict[str, object]]:
        return [body for name, body in self.posts if name == action]


@pytest.fixture
def calls() -> Calls:
    return Calls()


@contextmanager
def console_page(browser: Browser, url: str, calls: Calls | None = None, timeout: float = 15_000) -> Iterator[Page]:
    """A fresh browser context on the server at `url` holding its local secret (as the console keeps the one
    of its link), recording action calls when given `calls`, failing on page errors and on anything the CSP
    blocked."""
    context = browser.new_context(base_url=url, viewport={"width": 1400, "height": 900})
    context.add_init_script(f"sessionStorage.setItem('tfrobot.token', {json.dumps(LOCAL_TOKEN)})")
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.on("console", lambda m: errors.append(m.text) if "Content Security Policy" in m.text else None)
    if calls is not None:
        pg.on("request", calls.record)
    pg.set_default_timeout(timeout)
    yield pg
    context.close()
    assert not errors, f"errors in the page: {errors}"


@pytest.fixture
def page(browser: Browser, server: str, calls: Calls) -> Iterator[Page]:
    """The console on the shared e2e server (`console_page`)."""
    with console_page(browser, server, calls) as pg:
        yield pg


def shot(page: Page, name: str) -> None:
    """Save a screenshot (build/e2e-screenshots/, or docs/screenshots/ with `make screenshots`)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.wait_for_timeout(350)  # let modal and dropdown transitions finish: the picture, not the test
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))


HANG_MS = 60_000
"""What a measured console interaction may take before the test calls it broken. Figures are printed, not
asserted (speed claims live in bench/ and in the printed figures): on a CI machine shared with servers,
databases and Chromium a render can take several times its usual time, while a hang takes for ever."""


def record_perf(key: str, value: float) -> None:
    """Keep a measured figure in build/e2e-perf.json (the README quotes them); a figure past `HANG_MS` fails
    the test, as a hang."""
    assert value < HANG_MS, f"{key}: {value:.0f} ms, past {HANG_MS} ms: the console hung"
    E2E_PERF_FILE.parent.mkdir(parents=True, exist_ok=True)
    with E2E_PERF_FILE.with_suffix(".lock").open("w") as lock:  # xdist workers: one read-and-write at a time
        fcntl.flock(lock, fcntl.LOCK_EX)
        figures = json.loads(E2E_PERF_FILE.read_text()) if E2E_PERF_FILE.is_file() else {}
        figures[key] = round(value, 1)
        E2E_PERF_FILE.write_text(json.dumps(figures, indent=2, sort_keys=True) + "\n")


def seed_store(db: Path, conversations: Iterable[list[BaseMessage]], scope: str = "demo") -> None:
    """Store `conversations` in the SQLite store at `db` (a served robot's `DATA_FILE`), in `scope`, as the server
    stores them; from a thread of its own, since Playwright may hold this thread's event loop."""

    async def work() -> None:
        opened = await SQLMessageStore.open(f"sqlite+aiosqlite:///{db}")
        try:
            for messages in conversations:
                await opened.scoped(scope).sync_msgs(messages)
        finally:
            await opened.aclose()

    failures: list[BaseException] = []

    def run() -> None:
        try:
            asyncio.run(work())
        except BaseException as exc:  # handed to the caller's thread
            failures.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    if failures:
        raise failures[0]

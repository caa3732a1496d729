"""The attacker suite's fixtures: real `tfrobot serve` processes on loopback, an attacker's web site on two
other loopback origins, a listener standing in for the attacker's LLM endpoint, and Debian's Chromium.

Two servers, both in local mode (no token configured, as `make run` starts one):

* `guarded` runs with `--no-local-token`: nothing but the browser guard (Host, Origin, content type)
  stands between a foreign page and the actions, so every attack that fails against it fails because of
  the guard alone. Its environment holds a fake `OPENAI_API_KEY` for the exfiltration chain to steal.
* `default` runs as `make run` does: the guard plus the local secret made at start.

Both log every request (uvicorn's access log): the attacks mark their requests with `?attack=N`, and the
log says what status each got. Routes are enumerated from the app, actions from the running server.
"""

from __future__ import annotations

import http.server
import json
import os
import re
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, sync_playwright

from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS, ROOT, _free_port, _wait_until_up
from tfrobotserver.app.factory import create_app
from tfrobotserver.app.settings import ServerSettings

SOAK = os.environ.get("RELIABILITY_SOAK") == "1"
LOCAL_SECRET = "security-local-secret-0123456789"
FAKE_OPENAI_KEY = "sk-exfiltration-canary-0123456789abcdef"
REBOUND = "rebind.attacker.test"
"""A name Chromium resolves to 127.0.0.1 (`--host-resolver-rules`): a DNS rebinding, simulated."""


@dataclass
class Served:
    """One running `tfrobot serve`."""

    url: str
    port: int
    process: subprocess.Popen[bytes]
    log: Path
    data_dir: Path
    headers: dict[str, str]
    """What a legitimate local client sends (the local secret, when the server wants one)."""

    def statuses(self, marker: str = "attack") -> dict[int, int]:
        """Status codes the access log shows for requests whose query carries `marker=N`, by N."""
        found: dict[int, int] = {}
        for line in self.log.read_text(errors="replace").splitlines():
            match = re.search(rf'"[A-Z]+ [^ "]*[?&]{marker}=(\d+)[^ "]* HTTP/[0-9.]+" (\d{{3}})', line)
            if match:
                found[int(match[1])] = int(match[2])
        return found

    def memory_mib(self) -> tuple[float, float]:
        """The server process's resident set now and its peak so far (VmRSS, VmHWM), in MiB."""
        status = dict(line.split(":", 1) for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines())
        return int(status["VmRSS"].split()[0]) / 1024, int(status["VmHWM"].split()[0]) / 1024


@contextmanager
def _serve(tmp: Path, *args: str, env: dict[str, str]) -> Iterator[Served]:
    data = tmp / "data"
    (tmp / "server.toml").write_text(f"data_dir = {json.dumps(str(data))}\n")
    port = _free_port()
    log = tmp / "serve.log"
    tfrobot = Path(sys.executable).with_name("tfrobot")
    full_env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", **env}
    with log.open("wb") as out:
        process = subprocess.Popen(
            [str(tfrobot), "serve", "--port", str(port), "--config", str(tmp), *args],
            cwd=ROOT,
            env=full_env,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    headers = {"Authorization": f"Bearer {LOCAL_SECRET}"} if "--no-local-token" not in args else {}
    served = Served(f"http://127.0.0.1:{port}", port, process, log, data, headers)
    try:
        _wait_until_up(served.url, process, log, headers)
        yield served
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture(scope="session")
def guarded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """Local mode with `--no-local-token`: the browser guard alone; a fake OpenAI key to steal."""
    env = {"OPENAI_API_KEY": FAKE_OPENAI_KEY, "TFROBOT_LOCAL_TOKEN": ""}
    with _serve(tmp_path_factory.mktemp("guarded"), "--no-local-token", env=env) as served:
        yield served


@pytest.fixture(scope="session")
def default(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """Local mode as `make run` starts it: the guard and the local secret (pinned so the test knows it)."""
    with _serve(tmp_path_factory.mktemp("default"), env={"TFROBOT_LOCAL_TOKEN": LOCAL_SECRET}) as served:
        yield served


def app_routes() -> list[tuple[str, str]]:
    """(method, path) of every route of the app `tfrobot serve` runs: the OpenAPI document's operations and
    the routes outside it (console, assets, docs), path parameters filled with the demo robot's names and
    the asset mount with one real bundle."""
    app = create_app(ServerSettings(data_dir=Path("/nonexistent")))
    fill = {"{robot}": "demo", "{component}": "memory", "{action}": "aget_docs"}
    found = [(m.upper(), path) for path, ops in app.openapi()["paths"].items() for m in ops]
    for route in app.routes:  # routers included into the app have no path of their own: their routes are above
        path = getattr(route, "path", "")
        if path == "/assets":  # the console's StaticFiles mount
            index = (ROOT / "src" / "tfrobotserver" / "static" / "index.html").read_text()
            path = re.findall(r'src="(/assets/[^"]+)"', index)[0]
        methods = getattr(route, "methods", None) or {"GET"}
        found += [(m, path) for m in sorted(methods) if path and m != "HEAD" and (m, path) not in found]
    for key, value in fill.items():
        found = [(m, p.replace(key, value)) for m, p in found]
    return found


def all_actions(served: Served) -> list[tuple[str, dict[str, Any]]]:
    """(path, action info) of every action of every component of every robot the server hosts."""
    found: list[tuple[str, dict[str, Any]]] = []
    with httpx.Client(base_url=served.url, headers=served.headers) as client:
        for robot in client.get("/api/robots").json():
            base = f"/api/robots/{robot['name']}/components"
            for component in client.get(base).json():
                url = f"{base}/{component['name']}/actions"
                found += [(f"{url}/{a['name']}", a) for a in client.get(url).json()]
    return found


@dataclass
class Listener:
    """A TCP listener on loopback that records every byte sent to it (the attacker's "LLM endpoint")."""

    port: int
    received: list[bytes] = field(default_factory=list)


@pytest.fixture
def exfil_listener() -> Iterator[Listener]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    sock.settimeout(0.1)
    listener = Listener(sock.getsockname()[1])
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = sock.accept()
            except TimeoutError:
                continue
            with conn:
                conn.settimeout(1)
                try:
                    listener.received.append(conn.recv(65536))
                except OSError:
                    listener.received.append(b"")

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield listener
    stop.set()
    thread.join()
    sock.close()


@dataclass
class Site:
    """The attacker's web site: pages by path, served from one loopback origin."""

    origin: str
    pages: dict[str, str]


@contextmanager
def _site(host: str) -> Iterator[Site]:
    pages: dict[str, str] = {}

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            return

        def do_GET(self) -> None:
            body = pages.get(self.path.split("?")[0], "").encode()
            self.send_response(200 if body else 404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = http.server.ThreadingHTTPServer((host, 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    name = "localhost" if host == "127.0.0.1" else host
    try:
        yield Site(f"http://{name}:{server.server_address[1]}", pages)
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def attacker_sites() -> Iterator[list[Site]]:
    """The attacker's site on two origins: `127.0.0.2` (another site than the server's 127.0.0.1) and
    `localhost` on another port (the same *site* as a server reached as localhost, another origin)."""
    with _site("127.0.0.2") as other_site, _site("127.0.0.1") as same_site:
        yield [other_site, same_site]


@pytest.fixture(scope="module")
def chromium() -> Iterator[Browser]:
    """Debian's Chromium, resolving `REBOUND` to 127.0.0.1 as a rebound DNS answer would, and without its
    Private Network Access checks (which would stop a public page's calls to loopback first): Firefox and
    Safari have none, so the server must hold on its own."""
    if not CHROMIUM.exists():
        pytest.fail("/usr/bin/chromium is missing: `make chromium` (apt-get install chromium) as root")
    args = [
        *CHROMIUM_ARGS,
        f"--host-resolver-rules=MAP {REBOUND} 127.0.0.1",
        "--disable-features=LocalNetworkAccessChecks,BlockInsecurePrivateNetworkRequests,"
        "PrivateNetworkAccessSendPreflights",
    ]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=args)
        yield browser
        browser.close()

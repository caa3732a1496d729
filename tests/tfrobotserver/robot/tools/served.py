"""A real `tfrobot serve` running the shop robot: Python tools, the example MCP server over stdio and over
HTTP, scripted rules that call them. The serve, chat and browser tests share it."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.drive.mcp.conftest import ROOT, TOKEN, HttpServer

SHOP_ROBOT = """\
name: shop
description: Orders, files and the web, through Python and MCP tools
llm:
  provider: scripted
  params:
    rules:
      - {{user: order, tool_calls: [{{name: lookup_order, arguments: {{order_id: A-1}}}},
                                   {{name: files_greet, arguments: {{name: Ann}}}},
                                   {{name: web_stats, arguments: {{values: [1, 2, 3]}}}},
                                   {{name: web_snapshot}}]}}
      - {{user: refund, tool_calls: [{{name: refund_order, arguments: {{order_id: B-2}}}}]}}
      - {{user: crash, tool_calls: [{{name: files_crash}}]}}
      - {{after: "tool:*", reply: "Done: {{results}}"}}
tools:
  - tests.tfrobotserver.robot.tools.shop:*
  - mcp: files
    command: {python}
    args: [-m, tests.drive.mcp.example_server, stdio]
    env: {{PYTHONPATH: {root}, EXAMPLE_GREETING: Hello}}
    prefix: files_
  - mcp: web
    url: {url}
    headers: {{Authorization: "Bearer ${{SHOP_WEB_TOKEN}}"}}
    prefix: web_
confirm_timeout: 20
"""

WRITE_TOKEN = "shop-writer-token-0123456789"
OTHER_TOKEN = "shop-other-writer-0123456789"
READ_TOKEN = "shop-reader-token-0123456789"
TOKENS = f"""
[[tokens]]
name = "writer"
scopes = ["read", "write"]
secret = "{WRITE_TOKEN}"
[[tokens]]
name = "other"
scopes = ["read", "write"]
secret = "{OTHER_TOKEN}"
[[tokens]]
name = "reader"
scopes = ["read"]
secret = "{READ_TOKEN}"
"""


def shop_robot(http: HttpServer) -> str:
    return SHOP_ROBOT.format(python=json.dumps(sys.executable), root=json.dumps(str(ROOT)), url=http.url)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def serve_shop(folder: Path, http: HttpServer, *, tokens: bool = False) -> Iterator[str]:
    """`tfrobot serve --config folder` with the shop robot on a free loopback port; yields its URL."""
    (folder / "shop.yaml").write_text(shop_robot(http), encoding="utf-8")
    data = json.dumps(str(folder / "data"))
    (folder / "server.toml").write_text(f"data_dir = {data}\n{TOKENS if tokens else ''}", encoding="utf-8")
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SHOP_WEB_TOKEN": TOKEN, "PYTHONDONTWRITEBYTECODE": "1"}
    log = folder / "serve.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [str(Path(sys.executable).with_name("tfrobot")), "serve", "--port", str(port), "--config", str(folder)],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
        )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    headers = {"Authorization": f"Bearer {READ_TOKEN}"} if tokens else {}
    try:
        deadline = time.monotonic() + 40
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"tfrobot serve exited with {proc.returncode}:\n{log.read_text()}")
            try:
                request = urllib.request.Request(f"{url}/api/robots", headers=headers)
                with urllib.request.urlopen(request, timeout=1) as res:
                    if res.status == 200:
                        break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"tfrobot serve did not answer in 40 s:\n{log.read_text()}") from None
                time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

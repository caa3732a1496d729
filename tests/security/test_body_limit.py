"""Bodies above `max_body_bytes` (16 MiB by default) are a 413 before the server reads them whole, declared
(`Content-Length`) or streamed (chunked), and the server's memory stays flat while it refuses them.

Regression: without a limit one 48 MB `aingest_file` grew the server from 113 MB to 1.7 GB. The requests are
written on raw sockets so that nothing but the server decides how much of a body is sent before it answers.
`RELIABILITY_SOAK=1` repeats the refusals to show that nothing accumulates.
"""

from __future__ import annotations

import base64
import json
import socket
import threading
import time

import httpx

from tests.security.conftest import SOAK, Served

INGEST = "/api/robots/demo/components/memory/actions/aingest_file"
SIZE = 48 * 1024 * 1024
CHUNK = 1024 * 1024


def _send_large(served: Served, *, chunked: bool) -> tuple[int, bytes, int]:
    """POST a 48 MB JSON body to `aingest_file`; the status, the response body, and the bytes sent before
    the server answered and closed (the rest of the body is never written)."""
    prefix = b'{"file_name": "big.txt", "content_base64": "'
    framing = b"Transfer-Encoding: chunked\r\n" if chunked else f"Content-Length: {SIZE}\r\n".encode()
    head = (
        f"POST {INGEST} HTTP/1.1\r\nHost: 127.0.0.1:{served.port}\r\nContent-Type: application/json\r\n".encode()
        + framing
        + b"Connection: close\r\n\r\n"
    )
    sock = socket.create_connection(("127.0.0.1", served.port), timeout=30)
    answer = bytearray()
    done = threading.Event()

    def read() -> None:
        try:
            while chunk := sock.recv(65536):
                answer.extend(chunk)
        except OSError:
            pass
        done.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    sent = 0
    try:
        sock.sendall(head)
        block = prefix + b"A" * (CHUNK - len(prefix))
        while sent < SIZE and not done.is_set() and not answer:
            data = block if sent == 0 else b"A" * CHUNK
            sock.sendall(f"{len(data):x}\r\n".encode() + data + b"\r\n" if chunked else data)
            sent += len(data)
    except OSError:
        pass  # the server answered and closed while the body was still coming: what it should do
    done.wait(30)
    sock.close()
    status_line, _, rest = bytes(answer).partition(b"\r\n")
    body = rest.split(b"\r\n\r\n", 1)[1] if b"\r\n\r\n" in rest else b""
    return int(status_line.split()[1]), body, sent


def test_a_48_mb_body_is_413_before_it_is_read_and_memory_stays_flat(guarded: Served) -> None:
    # warm the route up: its first call allocates caches (and took past httpx's default 5 s beside other tests)
    with httpx.Client(base_url=guarded.url, timeout=60) as client:
        small = {"file_name": "warm.txt", "content_base64": base64.b64encode(b"warm up").decode()}
        assert client.post(INGEST, json=small).status_code == 200
    time.sleep(0.2)
    rss_before, peak_before = guarded.memory_mib()
    rounds = 10 if SOAK else 1
    figures = []
    for _ in range(rounds):
        for chunked in (False, True):
            status, body, sent = _send_large(guarded, chunked=chunked)
            assert status == 413, body
            error = json.loads(body.split(b"\r\n", 1)[-1] if chunked else body)  # a chunked answer has a size line
            assert error["error"] == "payload_too_large"
            assert "16,777,216 bytes" in error["message"]
            assert "max_body_bytes" in error["message"]
            figures.append((chunked, sent))
    rss_after, peak_after = guarded.memory_mib()
    declared = [sent for chunked, sent in figures if not chunked]
    streamed = [sent for chunked, sent in figures if chunked]
    print(
        f"\nbody limit: {len(figures)} bodies of 48 MiB refused with 413; sent before the answer: "
        f"Content-Length {max(declared) / 2**20:.0f} MiB at most, chunked {max(streamed) / 2**20:.0f} MiB at most; "
        f"server RSS {rss_before:.0f} -> {rss_after:.0f} MiB, peak {peak_before:.0f} -> {peak_after:.0f} MiB"
    )
    assert peak_after - peak_before < 24, "the server held a large part of a refused body"
    assert max(streamed) < 40 * CHUNK  # the server stopped reading near the limit (plus the sockets' buffers)


def test_a_body_within_the_limit_is_accepted(guarded: Served) -> None:
    """A file of 11 MiB fits, base64-encoded, under the default 16 MiB."""
    content = base64.b64encode(b"quantum entanglement of qubits\n" * (11 * 2**20 // 31)).decode()
    assert len(content) > 14 * 2**20
    with httpx.Client(base_url=guarded.url, timeout=60) as client:
        response = client.post(INGEST, json={"file_name": "large.txt", "content_base64": content})
    assert response.status_code != 413, response.text

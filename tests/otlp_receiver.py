"""A small OTLP/HTTP trace receiver on loopback, built on the official protobuf definitions
(`opentelemetry-proto`): what a collector does with `POST /v1/traces`, minus the forwarding.

It decodes each `ExportTraceServiceRequest`, keeps its spans as plain dicts (`dump()`: hex ids, the
resource's and the span's attributes, kind and status as their enum names) and answers with an
`ExportTraceServiceResponse`, as the OTLP specification says. The end-to-end test points a real
`tfrobot serve` at it; run it by hand to watch a server's traces:

    python -m tests.otlp_receiver --port 4318     # prints each span as a JSON line
"""

from __future__ import annotations

import argparse
import gzip
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import Span, Status

PATH = "/v1/traces"


def value_of(value: AnyValue) -> Any:
    """An OTLP attribute value as a Python value (arrays as lists)."""
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return [value_of(item) for item in value.array_value.values]
    if kind == "kvlist_value":
        return attributes_of(value.kvlist_value.values)
    if kind == "bytes_value":
        return value.bytes_value.hex()
    return None if kind is None else getattr(value, kind)


def attributes_of(pairs: Any) -> dict[str, Any]:
    return {pair.key: value_of(pair.value) for pair in pairs if isinstance(pair, KeyValue)}


def span_dict(span: Span, resource: dict[str, Any], scope: str) -> dict[str, Any]:
    """One received span, as the dump shows it."""
    return {
        "trace_id": span.trace_id.hex(),
        "span_id": span.span_id.hex(),
        "parent_span_id": span.parent_span_id.hex() or None,
        "name": span.name,
        "kind": Span.SpanKind.Name(span.kind),
        "scope": scope,
        "service": resource.get("service.name"),
        "duration_ms": round((span.end_time_unix_nano - span.start_time_unix_nano) / 1e6, 3),
        "attributes": attributes_of(span.attributes),
        "status": Status.StatusCode.Name(span.status.code),
        "events": [event.name for event in span.events],
    }


class Receiver(ThreadingHTTPServer):
    """The server; `spans` holds every span received, in arrival order."""

    daemon_threads = True

    def __init__(self, port: int = 0, *, echo: bool = False) -> None:
        super().__init__(("127.0.0.1", port), _Handler)
        self.spans: list[dict[str, Any]] = []
        self.requests = 0
        self.echo = echo
        self.lock = threading.Lock()

    @property
    def endpoint(self) -> str:
        """The base URL to put in `OTEL_EXPORTER_OTLP_ENDPOINT` (the exporter appends /v1/traces)."""
        return f"http://127.0.0.1:{self.server_address[1]}"

    def dump(self) -> list[dict[str, Any]]:
        with self.lock:
            return list(self.spans)

    def take(self, request: ExportTraceServiceRequest) -> None:
        received = [
            span_dict(span, attributes_of(batch.resource.attributes), scoped.scope.name)
            for batch in request.resource_spans
            for scoped in batch.scope_spans
            for span in scoped.spans
        ]
        with self.lock:
            self.requests += 1
            self.spans.extend(received)
        if self.echo:
            for span in received:
                print(json.dumps(span, ensure_ascii=False), flush=True)


class _Handler(BaseHTTPRequestHandler):
    server: Receiver

    def do_POST(self) -> None:
        if self.path != PATH:
            self.send_error(404, f"only {PATH} is served")
            return
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        if self.headers.get("Content-Type") != "application/x-protobuf":
            self.send_error(415, "OTLP/HTTP binary protobuf only (application/x-protobuf)")
            return
        request = ExportTraceServiceRequest()
        request.ParseFromString(body)
        self.server.take(request)
        answer = ExportTraceServiceResponse().SerializeToString()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the spans are the output."""


@contextmanager
def otlp_receiver() -> Iterator[Receiver]:
    """A receiver on a free loopback port, served from a thread while the block runs."""
    receiver = Receiver()
    thread = threading.Thread(target=receiver.serve_forever, daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        receiver.shutdown()
        receiver.server_close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=4318)
    receiver = Receiver(parser.parse_args().port, echo=True)
    print(f"OTLP/HTTP receiver on {receiver.endpoint}{PATH}", flush=True)
    receiver.serve_forever()


if __name__ == "__main__":
    main()

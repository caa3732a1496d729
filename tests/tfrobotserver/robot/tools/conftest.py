"""The example MCP server over HTTP, shared by this package's tests (started once per module)."""

from __future__ import annotations

from tests.drive.mcp.conftest import http_server

__all__ = ["http_server"]

"""The server's test fixtures (a real app on SQLite behind httpx's ASGI transport), shared with these suites."""

from tests.tfrobotserver.app.conftest import client, secured, settings

__all__ = ["client", "secured", "settings"]

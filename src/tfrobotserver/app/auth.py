"""Bearer-token authentication with read and write scopes.

Secrets are compared with `hmac.compare_digest` against every configured token (no early exit),
and are never logged or echoed. With no token configured the server is a local tool: every
caller is the local user with both scopes, and the CLI binds 127.0.0.1 only.
"""

from __future__ import annotations

import hmac
from collections.abc import Sequence

from tfrobotserver.actions.injected import Principal
from tfrobotserver.app.errors import ApiError
from tfrobotserver.app.settings import TokenConfig

LOCAL = Principal(name="local", scopes=frozenset({"read", "write"}))


class Authenticator:
    """Maps an `Authorization` header to a `Principal`, or refuses with 401 / 403."""

    def __init__(self, tokens: Sequence[TokenConfig]) -> None:
        self._tokens = [(t.resolve_secret().encode(), t.name, frozenset(t.scopes)) for t in tokens]

    @property
    def enabled(self) -> bool:
        """False when no token is configured (local, loopback-only mode)."""
        return bool(self._tokens)

    def authenticate(self, authorization: str | None) -> Principal:
        """The caller behind the header; 401 when the header is missing, malformed or unknown."""
        if not self._tokens:
            return LOCAL
        scheme, _, given = (authorization or "").partition(" ")
        if scheme.lower() != "bearer" or not given.strip():
            raise ApiError(401, "unauthorized", "send `Authorization: Bearer <token>`; this server requires a token")
        candidate = given.strip().encode()
        found: Principal | None = None
        for secret, name, scopes in self._tokens:
            if hmac.compare_digest(secret, candidate) and found is None:
                found = Principal(name=name, scopes=scopes | ({"read"} if "write" in scopes else set()))
        if found is None:
            raise ApiError(401, "unauthorized", "the bearer token is not valid for this server")
        return found

    @staticmethod
    def require(principal: Principal, scope: str, what: str) -> None:
        """403 unless the principal holds `scope` (write implies read)."""
        if scope not in principal.scopes:
            raise ApiError(
                403,
                "forbidden",
                f"{what} needs the {scope!r} scope; token {principal.name!r} has {sorted(principal.scopes)}",
            )

"""Bearer-token authentication with read and write scopes.

Secrets are compared with `hmac.compare_digest` against every configured token (no early exit),
and are never logged or echoed. With no token configured the server is a local tool, bound to
127.0.0.1 only, whose callers are the local user with both scopes: `tfrobot serve` still asks them
for the local secret it makes at each start (`local_secret`), so that no other process or page that
has not been given it can call; without one (in-process apps, `--no-local-token`) anyone may.
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

    def __init__(self, tokens: Sequence[TokenConfig], local_secret: str | None = None) -> None:
        self._tokens: list[tuple[bytes, str, frozenset[str]]] = [
            (t.resolve_secret().encode(), t.name, frozenset(t.scopes)) for t in tokens
        ]
        self._missing = "send `Authorization: Bearer <token>`; this server requires a token"
        if not tokens and local_secret is not None:
            self._tokens = [(local_secret.encode(), LOCAL.name, LOCAL.scopes)]
            self._missing = (
                "this local server requires the secret `tfrobot serve` printed at start (also in the file "
                "`local-token` of its data dir): open the console through the printed link, or send "
                "`Authorization: Bearer <secret>`"
            )

    @property
    def enabled(self) -> bool:
        """False when any caller is let in: no token configured and no local secret."""
        return bool(self._tokens)

    def authenticate(self, authorization: str | None) -> Principal:
        """The caller behind the header; 401 when the header is missing, malformed or unknown."""
        if not self._tokens:
            return LOCAL
        scheme, _, given = (authorization or "").partition(" ")
        if scheme.lower() != "bearer" or not given.strip():
            raise ApiError(401, "unauthorized", self._missing)
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

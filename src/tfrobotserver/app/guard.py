"""The browser guard: no web page gets ambient authority over the server (THREATS.md).

A `tfrobot serve` on a laptop is reachable by every page the user's browser opens. Like Jupyter's
Host check and the MCP Inspector after CVE-2025-49596, every request passes these checks before any
route sees it, with tokens or without:

1. **Host** names this server: `localhost`, a loopback address, the bound host (any IP address when
   bound to all interfaces) or one of `allowed_hosts`. A DNS-rebound page (`attacker.example`
   resolving to 127.0.0.1) is same-origin with the server in the browser's eyes; only its Host header
   gives it away. The port is not compared: the name is what such a page controls, and a port would
   break a port mapping (`docker -p 9000:8000`) or a proxy.
2. **Origin**: a request a browser sends from another page carries that page's origin. Anything but
   the server's own origin (the request's Host, port included) or one of `allowed_origins` is refused,
   `Origin: null` (sandboxed frames, `file:` pages, cross-origin redirects) too. Without an Origin,
   `Sec-Fetch-Site: cross-site` or `same-site` (`localhost:3000` is the same site as `localhost:8000`)
   is refused as well, except for a top-level GET navigation: a link to the console still opens it.
3. **Content type**: every state-changing method (anything but GET, HEAD and OPTIONS) needs
   `Content-Type: application/json`. A browser sends text/plain, form and multipart bodies to another
   origin without asking first (no CORS preflight), never a JSON one. An empty POST is no exception:
   a page can send that without a preflight too.

Starlette's `TrustedHostMiddleware` does the first check only, with any port, and answers a bare
400 "Invalid host header"; these refusals are `ErrorBody`s naming what was refused and the setting
that allows it. No response ever carries `Access-Control-Allow-*`: no other origin may read answers.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from tfrobotserver.app.errors import ApiError, error_response
from tfrobotserver.app.settings import ServerSettings, host_name, origin

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
JSON = "application/json"
_OTHER_SITE = frozenset({"cross-site", "same-site"})
_LOCAL_NAMES = frozenset({"localhost"})
_DEFAULT_PORTS = {"http": 80, "https": 443}


@dataclass(frozen=True)
class HostPolicy:
    """Which `Host` names reach this server: `localhost`, loopback addresses, and the configured ones."""

    names: frozenset[str]
    addresses: frozenset[ipaddress.IPv4Address | ipaddress.IPv6Address]
    any_address: bool
    """Bound to all interfaces (0.0.0.0 / ::): an IP address cannot be rebound, so any is fine."""

    @classmethod
    def of(cls, settings: ServerSettings) -> HostPolicy:
        """The policy for the bound `settings.host` and `settings.allowed_hosts`."""
        names, addresses, any_address = set(_LOCAL_NAMES), set(), False
        for entry in [host_name(settings.host), *settings.allowed_hosts]:
            try:
                address = ipaddress.ip_address(entry)
            except ValueError:
                names.add(entry)
                continue
            any_address = any_address or (entry == host_name(settings.host) and address.is_unspecified)
            addresses.add(address)
        return cls(frozenset(names), frozenset(addresses), any_address)

    def allows(self, name: str) -> bool:
        """Whether a request whose Host is `name` (as `host_name` spells it) is for this server."""
        if name in self.names:
            return True
        try:
            address = ipaddress.ip_address(name)
        except ValueError:
            return False
        return address.is_loopback or self.any_address or address in self.addresses

    def describe(self) -> str:
        """The allowed names for an error message."""
        extra = "any IP address" if self.any_address else "loopback addresses"
        return ", ".join([*sorted(self.names), *sorted(map(str, self.addresses)), extra])


def split_authority(value: str) -> tuple[str, int | None]:
    """`host[:port]` of a Host header as (`host_name`, port); a ValueError when it is not one."""
    value = value.strip()
    host, port = value, ""
    if value.startswith("["):
        host, _, rest = value.partition("]")
        host += "]"
        if rest and not rest.startswith(":"):
            raise ValueError(f"{value!r} is not host[:port]")
        port = rest[1:]
    elif value.count(":") == 1:
        host, _, port = value.partition(":")
    if port and not (port.isascii() and port.isdigit() and int(port) <= 65535):
        raise ValueError(f"{value!r} is not host[:port]: the port is not a number up to 65535")
    return host_name(host), int(port) if port else None


class BrowserGuard:
    """ASGI middleware refusing requests a foreign page could send (see the module docstring)."""

    def __init__(self, app: ASGIApp, settings: ServerSettings) -> None:
        self.app = app
        self.hosts = HostPolicy.of(settings)
        self.origins = frozenset(settings.allowed_origins)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        refusal = self.refusal(scope["method"], Headers(scope=scope))
        if refusal is None:
            await self.app(scope, receive, send)
            return
        await error_response(refusal)(scope, receive, send)

    def refusal(self, method: str, headers: Headers) -> ApiError | None:
        """Why a request with this method and these headers is refused, or None when it may pass."""
        host = headers.get("host")
        if host is None:
            return ApiError(403, "host_not_allowed", "the request has no Host header; send `Host: <server>:<port>`")
        try:
            name, port = split_authority(host)
        except ValueError:
            return ApiError(403, "host_not_allowed", f"Host {host!r} is not a host name; send `Host: <server>:<port>`")
        if not self.hosts.allows(name):
            return ApiError(
                403,
                "host_not_allowed",
                f"Host {host!r} is not a name of this server, so the request is refused (DNS rebinding protection);"
                f" allowed: {self.hosts.describe()}. To reach the server by that name on purpose, add {name!r} to"
                f" `allowed_hosts` in server.toml or start it with `tfrobot serve --allowed-host {name}`",
            )
        return self._cross_site(method, headers, name, port) or self._content_type(method, headers)

    def _cross_site(self, method: str, headers: Headers, name: str, port: int | None) -> ApiError | None:
        sent = headers.get("origin")
        if sent is None:
            site = headers.get("sec-fetch-site", "")
            navigation = method in {"GET", "HEAD"} and headers.get("sec-fetch-mode") == "navigate"
            if site in _OTHER_SITE and not navigation:
                return ApiError(
                    403,
                    "origin_not_allowed",
                    f"a request from another site (Sec-Fetch-Site: {site}) is refused: only this server's own "
                    "pages, and clients that are not browsers, may call it",
                )
            return None
        if sent.strip() == "null":
            return ApiError(
                403,
                "origin_not_allowed",
                "a request with `Origin: null` (a sandboxed frame, a file: page or a cross-origin redirect) is "
                "refused: call the API from the console at this server's own address",
            )
        try:
            given = origin(sent)
        except ValueError:
            return ApiError(403, "origin_not_allowed", f"Origin {sent!r} is not an origin, so the request is refused")
        scheme = given.partition(":")[0]
        shown = f"[{name}]" if ":" in name else name
        own = f"{scheme}://{shown}:{port or _DEFAULT_PORTS[scheme]}"
        if given == own or given in self.origins:
            return None
        return ApiError(
            403,
            "origin_not_allowed",
            f"requests from origin {sent!r} are refused: only pages of this server ({own}) may call it. If that "
            "origin is this server behind a proxy that rewrites Host, add it to `allowed_origins` in server.toml",
        )

    @staticmethod
    def _content_type(method: str, headers: Headers) -> ApiError | None:
        if method in SAFE_METHODS:
            return None
        sent = headers.get("content-type")
        if sent is not None and sent.partition(";")[0].strip().lower() == JSON:
            return None
        return ApiError(
            415,
            "unsupported_media_type",
            f"{method} needs a JSON body and got Content-Type {sent or '(none)'}: send Content-Type: "
            "application/json (with `{}` as the body when there is nothing to send)",
        )

"""Credentials out of everything the server shows: configurations, listings, errors and log lines.

The server holds secrets it must use but never show: a DSN's password (`memory_url`, `database_url`), API
keys and tokens in a provider's settings (`extra_params.extra_headers`), a key in a URL's query string
(`?key=`). Configurations are shown to read tokens (`GET …/components`), returned by config actions and
recorded in change logs; errors echo values; logs print exceptions. Each of those goes through this
module, one set of rules:

- a mapping entry whose *name* says it holds a secret (`password`, `api_key`, `x-api-key`, `Authorization`,
  `*_token`, `secret`, `cookie` …; see `is_secret_name`) has its scalar values replaced by `MASK`, nested
  ones included (the shape stays, so a reader still sees which settings are set);
- under a request's headers (a mapping whose key ends in `headers`: `headers`, `extra_headers`,
  `default_headers`) a broader rule, since gateways invent their own credential headers
  (`Ocp-Apim-Subscription-Key`, `X-Portkey-Virtual-Key`): a header is masked when any word part of its name
  (split at `-`, `_`, `.` and camelCase) is a credential word (key, token, secret, auth, password,
  credential, signature, cookie, session …; see `_is_secret_header`);
- in any text: a URL's password (`postgresql+asyncpg://u:SECRET@h/db` → `u:***@h/db`, the form SQLAlchemy's
  `render_as_string(hide_password=True)` gives), the value of a secret-named query parameter (`?key=…`),
  credentials after an HTTP auth scheme (`Bearer …`: a word with a digit or one of `._~+/=-`),
  `name=value` / `"name": "value"` pairs with a secret name, as they appear in reprs and messages, and the
  value after a secret-named command-line option (`--api-key sk-…`, `--token=…`);
- a process's settings as a robot file gives an MCP server: every value of an `env` mapping (any variable
  may be a key: `STRIPE_KEY`, `DATABASE_URL`), and in an `args` list the value after a secret-named option
  (`redact_args`); a `${VAR}` reference is shown as written, since it says where the secret is, not what.

Data (documents, graphs, messages) is not redacted: it is what the user stored, and masking it would make
a read-modify-write client send the mask back. SQLAlchemy's URL rendering covers only database URLs and no
library covers headers, query keys and reprs together, hence these few linear-time expressions.
"""

from __future__ import annotations

import logging
import re
from typing import Any

MASK = "***"

_SECRET_SUFFIXES = (
    "password",
    "passwd",
    "secret",
    "token",
    "apikey",
    "accesskey",
    "privatekey",
    "secretkey",
    "signingkey",
    "authorization",
    "credential",
    "credentials",
    "cookie",
    "signature",
)
_SECRET_NAMES = frozenset({"key", "auth", "pwd", "sig"})
_NAME = r"[A-Za-z][A-Za-z0-9_.\-]{0,80}"

_URL_PASSWORD = re.compile(r"(?P<head>\b[A-Za-z][A-Za-z0-9+.\-]{0,30}://[^\s:/@?#]*:)(?P<secret>[^\s/?#]+)(?=@)")
_QUERY_PARAM = re.compile(rf"(?P<head>[?&;](?P<name>{_NAME})=)(?P<secret>[^&#\s\"'<>]+)")
_TOKEN_CHARS = r"[A-Za-z0-9._~+/=\-]"
_SCHEMES = r"(?:[Bb]earer|Basic|Digest|Token)"
_AUTH_SCHEME = re.compile(rf"(?P<head>\b{_SCHEMES}\s+)(?P<secret>(?={_TOKEN_CHARS}*[0-9._~+/=\-]){_TOKEN_CHARS}{{6,}})")
_PAIR = re.compile(
    rf"(?P<head>(?P<quote>[\"']?)(?P<name>{_NAME})(?P=quote)\s*[:=]\s*)"
    rf"(?P<secret>\"[^\"\n]*\"|'[^'\n]*'|(?:{_SCHEMES}\s+)?[^\s\"',;&}}\])]+)"
)


_OPTION_VALUE = re.compile(
    rf"(?P<head>(?<![\w\-])--?(?P<name>{_NAME})[ \t]+)(?P<secret>[^\s\"',;&}}\])\-$][^\s\"',;&}}\])]*)"
)
"""A command-line option and its value, as a command line is shown (`--api-key sk-…`; not `--key ${KEY}`)."""
_OPTION = re.compile(rf"--?(?P<name>{_NAME})")
_PROCESS_ENV = "env"
"""The key under which a configuration gives a process its environment (an MCP stdio server's `env`)."""
_PROCESS_ARGS = "args"
"""The key under which a configuration gives a process its command line (an MCP stdio server's `args`)."""

_ENV_REFERENCE = re.compile(r"(?:[A-Za-z]+\s+)?\$\{[A-Za-z_][A-Za-z0-9_]*\}")
"""A value that only names an environment variable (`${TOKEN}`, `Bearer ${TOKEN}`), as robot files write
secrets: it says where the secret is, not what it is, and is shown as written."""


def is_secret_name(name: str) -> bool:
    """Whether a setting, header or parameter called `name` holds a credential (`x-api-key`, `apiKey`,
    `DB_PASSWORD`, `refresh_token` …); `max_tokens`, `keywords` and `token_count` do not."""
    flat = re.sub(r"[^a-z0-9]", "", name.lower())
    return flat in _SECRET_NAMES or flat.endswith(_SECRET_SUFFIXES)


_HEADER_WORDS = (
    "key",
    "token",
    "secret",
    "auth",
    "authorization",
    "authentication",
    "password",
    "passwd",
    "pwd",
    "credential",
    "signature",
    "sig",
    "cookie",
    "session",
)
"""Word parts that make a header a credential; a part matches as the word, its plural, or a compound ending in
it (`apikey`, `accesstoken`)."""
_HEADER_PARTS = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
"""The word parts of a header's name: `X-ApiKey` → X, Api, Key; `OCP_APIM_KEY` → OCP, APIM, KEY."""
_HEADERS_SUFFIX = "headers"


def _is_secret_header(name: str) -> bool:
    """Whether an HTTP header called `name` holds a credential: any word part of it is a credential word
    (`Ocp-Apim-Subscription-Key`, `X-Portkey-Virtual-Key`, `X-Auth-Token`, `Set-Cookie`, `X-Session-Id`), or
    `is_secret_name` says so; `Content-Type`, `X-Request-Id` and `Accept` do not."""
    for part in _HEADER_PARTS.findall(name):
        word = part.lower()
        if word.endswith("s") and word[:-1] in _HEADER_WORDS:
            return True
        if any(word == w or (len(w) > 3 and word.endswith(w)) for w in _HEADER_WORDS):
            return True
    return is_secret_name(name)


def _is_headers(key: Any) -> bool:
    """Whether a mapping under `key` is a request's headers (`headers`, `extra_headers`, `defaultHeaders`)."""
    return isinstance(key, str) and key.lower().replace("-", "_").endswith(_HEADERS_SUFFIX)


_VARIABLE_NAME = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")
"""An environment variable's name (`OPENAI_API_KEY`): "no API key: OPENAI_API_KEY is not set" names where a
key belongs, not a key (keys are not upper-case words joined by underscores)."""


def _masked_if_secret(match: re.Match[str]) -> str:
    if not is_secret_name(match["name"]) or _VARIABLE_NAME.fullmatch(match["secret"]):
        return match[0]
    quote = match["secret"][0]
    return match["head"] + (quote + MASK + quote if quote in "\"'" else MASK)


def redact_text(text: str) -> str:
    """`text` with every credential it shows masked (URL passwords, secret query parameters, auth schemes,
    secret-named pairs); everything else unchanged. Idempotent."""
    if not text:
        return text
    text = _URL_PASSWORD.sub(lambda m: m["head"] + MASK, text)
    text = _QUERY_PARAM.sub(_masked_if_secret, text)
    text = _AUTH_SCHEME.sub(lambda m: m["head"] + MASK, text)
    text = _OPTION_VALUE.sub(_masked_if_secret, text)
    return _PAIR.sub(_masked_if_secret, text)


def redact_args(args: list[str] | tuple[str, ...]) -> list[str]:
    """A command line (one argument per item) with its credentials masked: the item after a secret-named
    option (`["--api-key", "sk-…"]` → `["--api-key", "***"]`), and whatever `redact_text` masks in each item
    (`--token=…`, a URL's password)."""
    shown: list[str] = []
    hide = False
    for arg in args:
        if hide and not arg.startswith("-") and not _ENV_REFERENCE.fullmatch(arg):
            shown.append(MASK)
        else:
            shown.append(redact_text(arg))
        option = _OPTION.fullmatch(arg)
        hide = option is not None and is_secret_name(option["name"])
    return shown


def redact(value: Any, *, secret: bool = False) -> Any:
    """A JSON-like value (dicts, lists, scalars) with its credentials masked: every scalar under a secret-named
    key (at any depth below it) becomes `MASK` (but a mere `${VAR}` reference), every other string goes
    through `redact_text`. The input is not modified: a container holding something masked is a new one, one
    holding nothing masked is returned as it is (a provider request of 20,000 messages is not copied whole:
    the copy was most of the objects whose collection stalled the server). `secret`: `value` sits under a
    secret-named key."""
    if isinstance(value, dict):
        shown = {k: _redact_entry(k, v, secret) for k, v in value.items()}
        return value if all(shown[k] is v for k, v in value.items()) else shown
    if isinstance(value, list | tuple):
        items = [redact(item, secret=secret) for item in value]
        return value if isinstance(value, list) and all(a is b for a, b in zip(items, value, strict=True)) else items
    if secret and value is not None and value != "" and not isinstance(value, bool):
        return value if isinstance(value, str) and _ENV_REFERENCE.fullmatch(value) else MASK
    if isinstance(value, str):
        return redact_text(value)
    return value


def _redact_entry(key: Any, value: Any, secret: bool) -> Any:
    """One mapping entry's value, by the rules of its key (see the module docstring)."""
    if key == _PROCESS_ARGS and isinstance(value, list) and all(isinstance(a, str) for a in value):
        return redact_args(value)
    if key == _PROCESS_ENV and isinstance(value, dict):
        return {name: redact(item, secret=True) for name, item in value.items()}
    if _is_headers(key) and isinstance(value, dict):
        return {
            name: redact(item, secret=secret or (isinstance(name, str) and _is_secret_header(name)))
            for name, item in value.items()
        }
    return redact(value, secret=secret or (isinstance(key, str) and is_secret_name(key)))


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
"""Control characters but tab and newline: a NUL, a carriage return or a terminal escape from a request's
value must not reach the log raw (a forged line, a corrupted file, a hijacked terminal)."""


def _escaped(text: str) -> str:
    return _CONTROL.sub(lambda m: f"\\x{ord(m[0]):02x}", text)


class RedactingFilter(logging.Filter):
    """A logging filter that masks credentials in a record's message and its formatted exception, and shows
    their control characters escaped (`\\x00`)."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = _escaped(redact_text(record.getMessage()))
        record.args = None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = _escaped(redact_text(record.exc_text))
        if record.stack_info:
            record.stack_info = redact_text(record.stack_info)
        return True


def install_log_redaction(*names: str) -> None:
    """Put one `RedactingFilter` on each named logger (once, however often it is called)."""
    for name in names:
        logger = logging.getLogger(name)
        if not any(isinstance(f, RedactingFilter) for f in logger.filters):
            logger.addFilter(RedactingFilter())

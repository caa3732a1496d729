"""Credentials are masked wherever the server shows a configuration, an error or a log line."""

from __future__ import annotations

import logging

import pytest

from tfrobotserver.redaction import MASK, RedactingFilter, is_secret_name, redact, redact_args, redact_text


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("postgresql+asyncpg://u:SECRET@h/db", "postgresql+asyncpg://u:***@h/db"),
        ("postgresql://u:p@ss@host:5432/db?sslmode=require", "postgresql://u:***@host:5432/db?sslmode=require"),
        ("https://proxy.local/v1?key=SECRET&alt=json", "https://proxy.local/v1?key=***&alt=json"),
        ("https://h/v1?api_key=SECRET", "https://h/v1?api_key=***"),
        ("Authorization: Bearer SECRETabcdef", "Authorization: ***"),
        ("sent Bearer sk-SECRET123 to the proxy", "sent Bearer *** to the proxy"),
        ("{'x-api-key': 'SECRET', 'n': 1}", "{'x-api-key': '***', 'n': 1}"),
        ('{"password": "two SECRET words"}', '{"password": "***"}'),
        ("api_key=SECRET and refresh_token=SECRET", "api_key=*** and refresh_token=***"),
    ],
)
def test_credentials_in_text_are_masked(text: str, shown: str) -> None:
    assert redact_text(text) == shown
    assert redact_text(shown) == shown  # idempotent
    assert "SECRET" not in redact_text(text)


@pytest.mark.parametrize(
    "text",
    [
        "max_tokens=10 keywords=a,b token_count: 3",
        "sqlite+aiosqlite:////home/u/.local/share/tfrobot/server.sqlite3",
        "http://host:8080/path@version",
        "no token configured: every caller has read and write access",
        "Basic settings and a Bearer of news",
        "mail me at a@b.example",
    ],
)
def test_ordinary_text_is_left_alone(text: str) -> None:
    assert redact_text(text) == text


@pytest.mark.parametrize("name", ["api_key", "x-api-key", "apiKey", "Authorization", "DB_PASSWORD", "secret",
                                  "refresh_token", "key", "Cookie", "aws_secret_access_key"])  # fmt: skip
def test_secret_names(name: str) -> None:
    assert is_secret_name(name)


@pytest.mark.parametrize("name", ["max_tokens", "keywords", "token_count", "secret_env", "base_url", "monkey"])
def test_names_that_are_not_secrets(name: str) -> None:
    assert not is_secret_name(name)


def test_configurations_keep_their_shape_with_values_masked() -> None:
    config = {
        "memory_url": "postgresql+asyncpg://tf:SECRET@db/prod",
        "params": {
            "base_url": "https://gw.local/v1?key=SECRET",
            "max_tokens": 512,
            "extra_params": {"extra_headers": {"Authorization": "Bearer SECRET", "x-api-key": "SECRET"}},
            "token": None,
            "password": {"nested": "SECRET-but-under-a-name"},
        },
        "rules": [{"reply": "a Bearer abc.def-SECRET token"}],
    }
    shown = redact(config)
    assert "SECRET" not in repr(shown)
    assert shown["memory_url"] == "postgresql+asyncpg://tf:***@db/prod"
    assert shown["params"]["max_tokens"] == 512
    assert shown["params"]["extra_params"]["extra_headers"] == {"Authorization": MASK, "x-api-key": MASK}
    assert shown["params"]["token"] is None
    assert shown["params"]["password"] == {"nested": MASK}
    assert config["params"]["extra_params"]["extra_headers"]["x-api-key"] == "SECRET"  # the input is not modified


def test_a_reference_to_an_environment_variable_is_shown_as_written() -> None:
    """A robot file's `Authorization: Bearer ${TOKEN}` names where the secret is: masking it hid which
    variable an MCP server's header reads; a value written inline is still masked."""
    headers = {"Authorization": "Bearer ${SHOP_TOKEN}", "x-api-key": "${KEY}", "Cookie": "id=${X}; y"}
    assert redact({"headers": headers}) == {
        "headers": {"Authorization": "Bearer ${SHOP_TOKEN}", "x-api-key": "${KEY}", "Cookie": MASK}
    }


def test_the_name_of_a_key_variable_is_not_a_key() -> None:
    """Regression: the server's start-up line "no API key: OPENAI_API_KEY is not set" came out as
    "no API key: *** is not set", hiding which variable to set."""
    line = "openai: no API key: OPENAI_API_KEY is not set"
    assert redact_text(line) == line
    assert redact_text("key: AKIAIOSFODNN7EXAMPLE") == "key: ***"
    assert redact_text("api_key=SK_LIVE_1234_abcd") == "api_key=***"


def test_log_records_and_their_tracebacks_are_masked(caplog: pytest.LogCaptureFixture) -> None:
    logger = logging.getLogger("tests.redaction")
    logger.addFilter(RedactingFilter())
    try:
        try:
            raise RuntimeError("cannot reach postgresql://u:SECRET@h/db with x-api-key=SECRET")
        except RuntimeError:
            logger.exception("failed on %s", "https://h/?key=SECRET")
    finally:
        logger.filters.clear()
    assert "SECRET" not in caplog.text
    assert "u:***@h/db" in caplog.text
    assert "key=***" in caplog.text


def test_a_command_line_shows_secret_options_masked() -> None:
    args = ["-m", "srv", "--api-key", "sk-SECRET", "--token=SECRET", "--port", "3", "--key", "${KEY}", "--verbose"]
    shown = redact_args(args)
    assert shown == ["-m", "srv", "--api-key", MASK, f"--token={MASK}", "--port", "3", "--key", "${KEY}", "--verbose"]
    assert redact_text(" ".join(args)) == " ".join(shown)  # the same command line, shown as one string
    assert redact_args(shown) == shown  # idempotent


def test_a_process_environment_shows_every_value_masked_but_references() -> None:
    """Any variable of an MCP server's `env` may be a key (`STRIPE_KEY` is not a secret-looking name)."""
    entry = {"mcp": "files", "args": ["--api-key", "SECRET"], "env": {"STRIPE_KEY": "SECRET", "TOKEN": "${T}"}}
    assert redact({"tools": [entry]}) == {
        "tools": [{"mcp": "files", "args": ["--api-key", MASK], "env": {"STRIPE_KEY": MASK, "TOKEN": "${T}"}}]
    }


def test_log_lines_show_control_characters_escaped(caplog: pytest.LogCaptureFixture) -> None:
    """A value from a request (a confirmation id holding NUL, a carriage return) must not reach the log raw."""
    logger = logging.getLogger("tfrobotserver.test_controls")
    logger.addFilter(RedactingFilter())
    try:
        logger.warning("no confirmation %s\rFAKE LINE", "a\x00b\x1b[31m")
    finally:
        logger.filters.clear()
    assert all(raw not in caplog.text for raw in ("\x00", "\r", "\x1b"))
    assert caplog.messages[0] == "no confirmation a\\x00b\\x1b[31m\\x0dFAKE LINE"


@pytest.mark.parametrize(
    "header",
    [
        "Ocp-Apim-Subscription-Key",
        "X-Portkey-Virtual-Key",
        "X-ApiKey",
        "X-Auth-Token",
        "Set-Cookie",
        "X-Session-Id",
        "X-Amz-Signature",
        "X-Client-Secret",
        "X-Credentials",
        "APIKey",
    ],
)
def test_a_credential_header_a_gateway_invents_is_masked(header: str) -> None:
    """R15: headers are masked by the word parts of their name, not only by the names `is_secret_name` knows."""
    shown = redact({"params": {"extra_params": {"extra_headers": {header: "canary-0123456789", "Accept": "x/y"}}}})
    assert shown["params"]["extra_params"]["extra_headers"] == {header: MASK, "Accept": "x/y"}
    assert redact({"default_headers": {header: "canary-0123456789"}}) == {"default_headers": {header: MASK}}


@pytest.mark.parametrize("header", ["Content-Type", "X-Request-Id", "Accept-Encoding", "Keep-Alive", "User-Agent"])
def test_an_ordinary_header_is_shown(header: str) -> None:
    assert redact({"headers": {header: "value"}}) == {"headers": {header: "value"}}

"""Bearer tokens map to principals with their scopes; anything else is a 401 that says what to send."""

from __future__ import annotations

import pytest
from pydantic import SecretStr

from tfrobotserver.actions.injected import Principal
from tfrobotserver.app.auth import LOCAL, Authenticator
from tfrobotserver.app.errors import ApiError
from tfrobotserver.app.settings import TokenConfig

READER = "r" * 24
WRITER = "w" * 24


def _tokens() -> list[TokenConfig]:
    return [
        TokenConfig(name="reader", secret=SecretStr(READER)),
        TokenConfig(name="writer", scopes=["write"], secret=SecretStr(WRITER)),
    ]


def _refusal(auth: Authenticator, header: str | None) -> ApiError:
    with pytest.raises(ApiError) as caught:
        auth.authenticate(header)
    return caught.value


def test_each_token_is_its_principal_and_write_implies_read() -> None:
    auth = Authenticator(_tokens())
    assert auth.enabled
    assert auth.authenticate(f"Bearer {READER}") == Principal(name="reader", scopes=frozenset({"read"}))
    assert auth.authenticate(f"bearer  {WRITER} ") == Principal(name="writer", scopes=frozenset({"read", "write"}))


@pytest.mark.parametrize("header", [None, "", "Bearer", "Bearer   ", f"Basic {READER}", READER])
def test_a_missing_or_malformed_header_is_a_401_saying_what_to_send(header: str | None) -> None:
    refusal = _refusal(Authenticator(_tokens()), header)
    assert (refusal.status, refusal.body.error) == (401, "unauthorized")
    assert "Authorization: Bearer <token>" in str(refusal)


def test_an_unknown_token_is_a_401_that_does_not_echo_it() -> None:
    refusal = _refusal(Authenticator(_tokens()), f"Bearer {READER}x")
    assert (refusal.status, str(refusal)) == (401, "the bearer token is not valid for this server")
    assert READER not in str(refusal)


def test_the_local_secret_stands_for_the_local_user_when_no_token_is_configured() -> None:
    secret = "s" * 32
    auth = Authenticator([], local_secret=secret)
    assert auth.enabled
    assert auth.authenticate(f"Bearer {secret}") == LOCAL
    assert "the secret `tfrobot serve` printed at start" in str(_refusal(auth, None))


def test_configured_tokens_replace_the_local_secret() -> None:
    secret = "s" * 32
    auth = Authenticator(_tokens(), local_secret=secret)
    assert _refusal(auth, f"Bearer {secret}").status == 401


def test_with_no_token_and_no_secret_every_caller_is_the_local_user() -> None:
    auth = Authenticator([])
    assert not auth.enabled
    assert auth.authenticate(None) == LOCAL
    assert auth.authenticate("Bearer anything") == LOCAL


def test_a_token_whose_environment_variable_is_unset_stops_the_start(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TFROBOT_TEST_TOKEN", raising=False)
    with pytest.raises(ValueError, match="TFROBOT_TEST_TOKEN"):
        Authenticator([TokenConfig(name="ci", secret_env="TFROBOT_TEST_TOKEN")])


def test_require_refuses_a_missing_scope_naming_the_token_and_its_scopes() -> None:
    reader = Principal(name="reader", scopes=frozenset({"read"}))
    Authenticator.require(reader, "read", "listing robots")
    with pytest.raises(ApiError) as caught:
        Authenticator.require(reader, "write", "saving a template")
    assert (caught.value.status, caught.value.body.error) == (403, "forbidden")
    assert str(caught.value) == "saving a template needs the 'write' scope; token 'reader' has ['read']"

"""The authorization URL with PKCE S256, the code exchange, the refresh, and CobroClient's token store."""

from __future__ import annotations

import base64
import hashlib
import re
from urllib.parse import parse_qs, urlsplit

import pytest

from cobro_sdk import CobroClient, CobroOAuth, InMemoryTokenStore, MerchantTokens, NotFoundError, UnauthorizedError, pkce_challenge, random_token

ID_TOKEN = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJtIn0.c2ln"


def test_pkce_challenge_is_base64url_sha256_without_padding() -> None:
    verifier = random_token()
    assert re.fullmatch(r"[A-Za-z0-9_-]{43}", verifier)
    expected = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
    assert pkce_challenge(verifier) == expected and len(expected) == 43
    assert random_token() != random_token()


def test_authorization_url_carries_state_and_the_s256_challenge() -> None:
    oauth = CobroOAuth("https://auth.sandbox.example/", "client-1", "secret-1")
    start = oauth.authorization_url("http://localhost:8080/callback", scope="openid email")
    url = urlsplit(start.url)
    assert (url.scheme, url.netloc, url.path) == ("https", "auth.sandbox.example", "/integration/oauth2/authorize")
    query = {key: values[0] for key, values in parse_qs(url.query).items()}
    assert query == {
        "response_type": "code",
        "client_id": "client-1",
        "redirect_uri": "http://localhost:8080/callback",
        "state": start.state,
        "scope": "openid email",
        "code_challenge": pkce_challenge(start.code_verifier),
        "code_challenge_method": "S256",
    }
    assert "secret-1" not in start.url
    fixed = oauth.authorization_url("http://localhost:8080/callback", state="s" * 43, code_verifier="v" * 43)
    assert (fixed.state, fixed.code_verifier) == ("s" * 43, "v" * 43)
    assert "scope" not in parse_qs(urlsplit(fixed.url).query)


def test_exchange_sends_the_documented_json_form(service) -> None:
    oauth = CobroOAuth(service.url, "client-1", "secret-1", clock=lambda: 1000.0)
    service.answer(200, {"idToken": ID_TOKEN, "refreshToken": "refresh-1", "tokenType": "Bearer", "expiresIn": 3600})
    tokens = oauth.exchange_code("code-1", "http://localhost:8080/callback", "v" * 43)
    assert tokens == MerchantTokens(id_token=ID_TOKEN, refresh_token="refresh-1", expires_at=4600.0)
    request = service.requests[0]
    assert (request["method"], request["path"]) == ("POST", "/integration/oauth2/token")
    assert request["json"] == {
        "grantType": "authorization_code",
        "code": "code-1",
        "clientId": "client-1",
        "clientSecret": "secret-1",
        "redirectUri": "http://localhost:8080/callback",
        "codeVerifier": "v" * 43,
    }


def test_a_refused_exchange_raises_a_typed_error(service) -> None:
    oauth = CobroOAuth(service.url, "client-1", "wrong")
    service.answer(401, {"code": "InvalidClientError", "message": "Invalid client credentials", "id": "e-1"})
    with pytest.raises(UnauthorizedError) as raised:
        oauth.exchange_code("code-1", "http://localhost:8080/callback", "v" * 43)
    assert (raised.value.code, raised.value.id) == ("InvalidClientError", "e-1")


def test_refresh_keeps_the_refresh_token(service) -> None:
    oauth = CobroOAuth(service.url, "client-1", "secret-1", clock=lambda: 50.0)
    service.answer(200, {"idToken": "new-id-token", "tokenType": "Bearer", "expiresIn": 3600})
    assert oauth.refresh("refresh-1") == MerchantTokens("new-id-token", "refresh-1", 3650.0)
    assert service.requests[0]["path"] == "/integration/oauth2/refresh"
    assert service.requests[0]["json"] == {"grantType": "refresh_token", "refreshToken": "refresh-1", "clientId": "client-1", "clientSecret": "secret-1"}


def test_the_client_refreshes_near_expiry_and_saves_to_the_store(service) -> None:
    now = [1000.0]
    store = InMemoryTokenStore(MerchantTokens("old-id-token", "refresh-1", expires_at=1000.0 + 3600))
    cobro = CobroClient(
        integration_url=service.url, auth_url=service.url, client_id="c", client_secret="s", token_store=store, clock=lambda: now[0]
    )
    service.answer(404, {"message": "Payment request not found"})
    with pytest.raises(NotFoundError):
        cobro.payment_requests.get_payment_request("INV-2026-000001")
    assert service.requests[-1]["headers"]["Authorization"] == "Bearer old-id-token"

    now[0] = 1000.0 + 3600 - 30  # within the 60 s margin
    service.answer(200, {"idToken": "new-id-token", "tokenType": "Bearer", "expiresIn": 3600})
    service.answer(404, {"message": "Payment request not found"})
    with pytest.raises(NotFoundError):
        cobro.payment_requests.get_payment_request("INV-2026-000001")
    paths = [request["path"] for request in service.requests]
    assert paths == ["/payment-request/INV-2026-000001", "/integration/oauth2/refresh", "/payment-request/INV-2026-000001"]
    assert service.requests[-1]["headers"]["Authorization"] == "Bearer new-id-token"
    assert store.tokens == MerchantTokens("new-id-token", "refresh-1", now[0] + 3600)


def test_the_client_needs_linked_tokens(service) -> None:
    cobro = CobroClient(integration_url=service.url, auth_url=service.url, client_id="c", client_secret="s", token_store=InMemoryTokenStore())
    with pytest.raises(LookupError):
        cobro.id_token()

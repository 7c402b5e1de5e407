"""Linking a merchant account to an integration with OAuth 2.0 (authorization code, PKCE S256), and the
token calls of the Auth API in the JSON form Cobro documents (camelCase bodies, the client secret in the
body). These run on the integrator's backend: the client secret never goes to a browser.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
import time
from dataclasses import dataclass
from typing import Callable, Optional, Protocol
from urllib.parse import urlencode

from cobro_sdk.clients import auth_api_client
from cobro_sdk.generated import auth


def random_token() -> str:
    """32 random bytes, base64url without padding: a ``state`` or a PKCE verifier (43 characters, as RFC 7636 asks)."""
    return secrets.token_urlsafe(32)


def pkce_challenge(code_verifier: str) -> str:
    """The S256 PKCE challenge of a verifier: base64url(SHA-256(verifier)), without padding."""
    digest = hashlib.sha256(code_verifier.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


@dataclass(frozen=True)
class AuthorizationStart:
    """Where to send the merchant's browser, and what to keep (e.g. in the session) until it comes back."""

    url: str
    state: str
    code_verifier: str


@dataclass(frozen=True)
class MerchantTokens:
    """The tokens of one merchant account: the ``id_token`` is the Bearer of the Integration API."""

    id_token: str
    refresh_token: str
    expires_at: float
    """When the ``id_token`` expires, in seconds since the epoch."""


class TokenStore(Protocol):
    """Where a merchant account's tokens are kept (a database row, a cache): yours to implement.

    :class:`cobro_sdk.CobroClient` loads the tokens from it and saves them after each refresh.
    """

    def load(self) -> Optional[MerchantTokens]:
        """The stored tokens, or ``None`` when the merchant account is not linked."""
        ...

    def save(self, tokens: MerchantTokens) -> None:
        """Stores the tokens (the ``refresh_token`` lasts 180 days and does not rotate)."""
        ...


class InMemoryTokenStore:
    """A :class:`TokenStore` in memory: for tests and scripts; a backend keeps tokens in its database."""

    def __init__(self, tokens: Optional[MerchantTokens] = None) -> None:
        self.tokens = tokens

    def load(self) -> Optional[MerchantTokens]:
        return self.tokens

    def save(self, tokens: MerchantTokens) -> None:
        self.tokens = tokens


class CobroOAuth:
    """The OAuth side of an integration; one instance per integration (client id and secret)::

        oauth = CobroOAuth(auth_url=auth_url, client_id=client_id, client_secret=client_secret)
        start = oauth.authorization_url(redirect_uri)  # keep start.state and start.code_verifier
        # ... the merchant signs in and comes back to redirect_uri?code=...&state=...
        tokens = oauth.exchange_code(code, redirect_uri, start.code_verifier)  # store tokens
    """

    def __init__(self, auth_url: str, client_id: str, client_secret: str, *, clock: Callable[[], float] = time.time) -> None:
        self.auth_url = auth_url.rstrip("/")
        self.client_id = client_id
        self._client_secret = client_secret
        self._clock = clock
        self._api = auth.OAuthApi(auth_api_client(self.auth_url))

    def authorization_url(
        self, redirect_uri: str, *, scope: Optional[str] = None, state: Optional[str] = None, code_verifier: Optional[str] = None
    ) -> AuthorizationStart:
        """The authorization URL with ``state`` and a PKCE S256 challenge (random ones when not given).

        ``redirect_uri`` must be identical to a registered redirect URI.
        """
        state = state if state is not None else random_token()
        code_verifier = code_verifier if code_verifier is not None else random_token()
        query = {"response_type": "code", "client_id": self.client_id, "redirect_uri": redirect_uri, "state": state}
        if scope is not None:
            query["scope"] = scope
        query["code_challenge"] = pkce_challenge(code_verifier)
        query["code_challenge_method"] = "S256"
        url = f"{self.auth_url}/integration/oauth2/authorize?{urlencode(query)}"
        return AuthorizationStart(url=url, state=state, code_verifier=code_verifier)

    def exchange_code(self, code: str, redirect_uri: str, code_verifier: Optional[str] = None) -> MerchantTokens:
        """Exchanges the authorization code (10 minutes, single use) for the merchant account's tokens."""
        answer = self._api.exchange_token(
            auth.CodeExchange(
                grantType="authorization_code",
                code=code,
                clientId=self.client_id,
                clientSecret=self._client_secret,
                redirectUri=redirect_uri,
                codeVerifier=code_verifier,
            )
        )
        tokens = answer.actual_instance
        # The endpoint answers the JSON form (TokenSet) to a JSON request.
        if not isinstance(tokens, auth.TokenSet):
            raise ValueError("the token endpoint did not answer a TokenSet")
        return MerchantTokens(id_token=tokens.id_token, refresh_token=tokens.refresh_token, expires_at=self._clock() + tokens.expires_in)

    def refresh(self, refresh_token: str) -> MerchantTokens:
        """A new ``id_token`` for a stored ``refresh_token`` (which stays the same)."""
        answer = self._api.refresh_token(
            auth.RefreshRequest(grantType="refresh_token", refreshToken=refresh_token, clientId=self.client_id, clientSecret=self._client_secret)
        )
        return MerchantTokens(id_token=answer.id_token, refresh_token=refresh_token, expires_at=self._clock() + answer.expires_in)

    def revoke(self, token: str, token_type_hint: str = "refresh_token") -> None:
        """Revokes a refresh token (and the id tokens issued from it); succeeds for unknown tokens too."""
        self._api.revoke_token(
            auth.RevokeRequest(token=token, tokenTypeHint=token_type_hint, clientId=self.client_id, clientSecret=self._client_secret)
        )


__all__ = ["AuthorizationStart", "CobroOAuth", "InMemoryTokenStore", "MerchantTokens", "TokenStore", "pkce_challenge", "random_token"]

"""The Integration API for one linked merchant account, with its ``id_token`` refreshed before it expires."""

from __future__ import annotations

import threading
import time
from typing import Callable, Optional

from cobro_sdk.clients import integration_api_client
from cobro_sdk.generated import integration
from cobro_sdk.oauth import CobroOAuth, MerchantTokens, TokenStore


class CobroClient:
    """The generated Integration API clients for one merchant account::

        cobro = CobroClient(integration_url=..., auth_url=..., client_id=..., client_secret=..., token_store=store)
        charge = cobro.payment_requests.create_payment_request(integration.PaymentRequestCreate(...))

    Every request asks :meth:`id_token` for the token, which refreshes it (once, however many threads
    wait) within ``refresh_margin_seconds`` of its expiry and saves the new tokens in the store.
    """

    def __init__(
        self,
        *,
        integration_url: str,
        auth_url: str,
        client_id: str,
        client_secret: str,
        token_store: TokenStore,
        refresh_margin_seconds: float = 60,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.oauth = CobroOAuth(auth_url, client_id, client_secret, clock=clock)
        self._store = token_store
        self._margin = refresh_margin_seconds
        self._clock = clock
        self._lock = threading.Lock()
        self.api_client = integration_api_client(integration_url, token_provider=self.id_token)
        self.payment_requests = integration.PaymentRequestsApi(self.api_client)
        self.payer_lookup = integration.PayerLookupApi(self.api_client)
        self.merchant = integration.MerchantApi(self.api_client)
        self.tenant = integration.TenantApi(self.api_client)
        self.service = integration.HealthApi(self.api_client)

    def id_token(self) -> str:
        """The merchant account's ``id_token``, refreshed first when it is about to expire."""
        with self._lock:
            tokens: Optional[MerchantTokens] = self._store.load()
            if tokens is None:
                raise LookupError("the token store holds no tokens: link the merchant account first (CobroOAuth.exchange_code)")
            if tokens.expires_at - self._margin <= self._clock():
                tokens = self.oauth.refresh(tokens.refresh_token)
                self._store.save(tokens)
            return tokens.id_token


__all__ = ["CobroClient"]

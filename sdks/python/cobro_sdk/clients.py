"""The generated clients, configured: base URL, Bearer token, and this SDK's typed exceptions.

The generated packages (``cobro_sdk.generated.integration``, ``.auth``, ``.admin``) raise their own
``ApiException``; the ``ApiClient`` made here raises :class:`cobro_sdk.errors.ApiError` subclasses
(with the error body's code, message, id and validation details) and
:class:`cobro_sdk.errors.NoAnswerError` instead.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, Callable, Dict, Optional, Type

import urllib3

from cobro_sdk.errors import NoAnswerError, error_from_response
from cobro_sdk.generated import admin, auth, integration

TokenProvider = Callable[[], str]
"""Called before every request for the Bearer token (e.g. :meth:`cobro_sdk.CobroClient.id_token`)."""

_TYPED_API_CLIENTS: Dict[str, Type[Any]] = {}


def _typed_api_client_class(package: ModuleType) -> Type[Any]:
    name = package.__name__
    if name not in _TYPED_API_CLIENTS:
        base = package.ApiClient
        generated_exception = package.ApiException

        class TypedApiClient(base):  # type: ignore[misc, valid-type]
            token_provider: Optional[TokenProvider] = None

            def param_serialize(self, *args: Any, **kwargs: Any) -> Any:
                if self.token_provider is not None:
                    self.configuration.access_token = self.token_provider()
                return super().param_serialize(*args, **kwargs)

            def call_api(self, *args: Any, **kwargs: Any) -> Any:
                try:
                    return super().call_api(*args, **kwargs)
                except urllib3.exceptions.HTTPError as error:
                    raise NoAnswerError(f"no answer from the service: {error}") from error
                except generated_exception as error:
                    if getattr(error, "status", None) == 0:
                        raise NoAnswerError(f"no answer from the service: {error}") from error
                    raise

            def response_deserialize(self, response_data: Any, response_types_map: Any = None) -> Any:
                if not 200 <= response_data.status <= 299:
                    raise error_from_response(response_data.status, response_data.data, dict(response_data.headers.items()))
                return super().response_deserialize(response_data, response_types_map)

        TypedApiClient.__name__ = TypedApiClient.__qualname__ = "ApiClient"
        TypedApiClient.__module__ = __name__
        _TYPED_API_CLIENTS[name] = TypedApiClient
    return _TYPED_API_CLIENTS[name]


def _api_client(
    package: ModuleType,
    base_url: str,
    access_token: Optional[str],
    token_provider: Optional[TokenProvider],
    retries: Optional[int],
) -> Any:
    configuration = package.Configuration(host=base_url.rstrip("/"), access_token=access_token)
    # No transparent retries by default: a create must be retried by the referenceId rules
    # (cobro_sdk.retry), not resent blindly by the HTTP layer.
    configuration.retries = retries if retries is not None else False
    client = _typed_api_client_class(package)(configuration)
    client.token_provider = token_provider
    return client


def integration_api_client(
    base_url: str, access_token: Optional[str] = None, *, token_provider: Optional[TokenProvider] = None, retries: Optional[int] = None
) -> "integration.ApiClient":
    """An ``ApiClient`` of the Integration API; pass it to ``integration.PaymentRequestsApi(...)`` and the others.

    ``access_token`` is a merchant account's ``idToken``; or give ``token_provider``, asked before every
    request (:class:`cobro_sdk.CobroClient` does that and refreshes the token).
    """
    return _api_client(integration, base_url, access_token, token_provider, retries)


def auth_api_client(base_url: str, access_token: Optional[str] = None, *, retries: Optional[int] = None) -> "auth.ApiClient":
    """An ``ApiClient`` of the Auth API (OAuth, the admins' sign-in)."""
    return _api_client(auth, base_url, access_token, None, retries)


def admin_api_client(
    base_url: str, access_token: Optional[str] = None, *, token_provider: Optional[TokenProvider] = None, retries: Optional[int] = None
) -> "admin.ApiClient":
    """An ``ApiClient`` of the Admin API; ``access_token`` is an admin session's ``idToken``."""
    return _api_client(admin, base_url, access_token, token_provider, retries)


__all__ = ["TokenProvider", "admin_api_client", "auth_api_client", "integration_api_client"]

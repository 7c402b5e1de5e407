"""Cobro's Python SDK: the generated clients of the three APIs and the helpers every integrator needs.

- :mod:`cobro_sdk.generated` ``.integration``, ``.auth``, ``.admin``: the clients generated from the contract.
- :mod:`cobro_sdk.clients`: those clients configured (base URL, token, typed exceptions).
- :class:`CobroOAuth`, :class:`TokenStore`: linking a merchant account (authorization code with PKCE).
- :class:`CobroClient`: the Integration API for one merchant account, its token refreshed.
- :class:`WebhookVerifier`: both webhook signatures, from the raw body and the headers.
- :func:`create_or_get`, :func:`create_bulk_or_confirm`: the retry guidance for creates.
- :mod:`cobro_sdk.errors`: the typed exceptions.
"""

from cobro_sdk.client import CobroClient
from cobro_sdk.clients import admin_api_client, auth_api_client, integration_api_client
from cobro_sdk.errors import (
    ApiError,
    BadRequestError,
    CobroError,
    ConflictError,
    ForbiddenError,
    NoAnswerError,
    NotFoundError,
    ServerError,
    TooManyRequestsError,
    UnauthorizedError,
    UnprocessableEntityError,
    ValidationDetail,
    ValidationError,
    as_cobro_error,
)
from cobro_sdk.generated import __version__
from cobro_sdk.oauth import AuthorizationStart, CobroOAuth, InMemoryTokenStore, MerchantTokens, TokenStore, pkce_challenge, random_token
from cobro_sdk.retry import CreateBulkResult, CreateOrGetResult, create_bulk_or_confirm, create_or_get, interpret_bulk_retry
from cobro_sdk.webhooks import (
    SIGNATURE_HEADER,
    WEBHOOK_ID_HEADER,
    WebhookVerificationError,
    WebhookVerifier,
    service_signature,
    standard_webhook_signature,
    verify_service_signature,
    verify_standard_webhook,
)

__all__ = [
    "SIGNATURE_HEADER",
    "WEBHOOK_ID_HEADER",
    "ApiError",
    "AuthorizationStart",
    "BadRequestError",
    "CobroClient",
    "CobroError",
    "CobroOAuth",
    "ConflictError",
    "CreateBulkResult",
    "CreateOrGetResult",
    "ForbiddenError",
    "InMemoryTokenStore",
    "MerchantTokens",
    "NoAnswerError",
    "NotFoundError",
    "ServerError",
    "TokenStore",
    "TooManyRequestsError",
    "UnauthorizedError",
    "UnprocessableEntityError",
    "ValidationDetail",
    "ValidationError",
    "WebhookVerificationError",
    "WebhookVerifier",
    "__version__",
    "admin_api_client",
    "as_cobro_error",
    "auth_api_client",
    "create_bulk_or_confirm",
    "create_or_get",
    "integration_api_client",
    "interpret_bulk_retry",
    "pkce_challenge",
    "random_token",
    "service_signature",
    "standard_webhook_signature",
    "verify_service_signature",
    "verify_standard_webhook",
]

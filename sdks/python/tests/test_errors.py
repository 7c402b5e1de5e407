"""The typed exceptions: each error body shape of the contract read into code, message, id and
validation details, raised by the configured clients in place of the generated ApiException."""

from __future__ import annotations

import pytest

from cobro_sdk import (
    ApiError,
    BadRequestError,
    ConflictError,
    NoAnswerError,
    NotFoundError,
    ServerError,
    TooManyRequestsError,
    UnauthorizedError,
    UnprocessableEntityError,
    ValidationDetail,
    ValidationError,
    as_cobro_error,
    integration_api_client,
)
from cobro_sdk.errors import error_from_response
from cobro_sdk.generated import integration

VALIDATION_BODY = {
    "code": "ValidationError",
    "message": "customer.email: must be an email address",
    "id": "0f3c2b1a-aaaa-4bbb-8ccc-123456789abc",
    "validationDetails": [
        {"field": "customer.email", "message": "must be an email address", "rule": "format", "format": "email"},
        {"field": "dueDates", "message": "at most 10 items", "rule": "maxItems", "limit": 10},
        {"field": "customer", "message": "exactly one of", "rule": "exactlyOneOf", "fields": ["taxDocument", "cvu"]},
        {"message": "no field: left out"},
    ],
}


def test_a_validation_error_carries_its_details() -> None:
    error = error_from_response(400, b'{"code":"ValidationError","message":"x","id":"i1","validationDetails":[]}')
    assert type(error) is ValidationError
    error = error_from_response(400, __import__("json").dumps(VALIDATION_BODY))
    assert isinstance(error, ValidationError) and isinstance(error, BadRequestError) and isinstance(error, ApiError)
    assert (error.status, error.code, error.message, error.id) == (
        400,
        "ValidationError",
        "customer.email: must be an email address",
        "0f3c2b1a-aaaa-4bbb-8ccc-123456789abc",
    )
    assert error.validation_details == [
        ValidationDetail(field="customer.email", message="must be an email address", rule="format", format="email"),
        ValidationDetail(field="dueDates", message="at most 10 items", rule="maxItems", limit=10),
        ValidationDetail(field="customer", message="exactly one of", rule="exactlyOneOf", fields=("taxDocument", "cvu")),
    ]


def test_each_body_shape() -> None:
    conflict = error_from_response(409, '{"error":"ReferenceIdAlreadyExists","message":"exists","referenceId":"INV-1"}')
    assert type(conflict) is ConflictError and conflict.code == "ReferenceIdAlreadyExists" and conflict.id is None
    assert conflict.has_code("ReferenceIdAlreadyExistsError") and conflict.has_code("ReferenceIdAlreadyExists")
    assert not conflict.has_code("CustomerAlreadyAssociated")

    business = error_from_response(400, '{"code":"InsufficientActiveAccountsError","message":"no CVU","id":"e2"}')
    assert type(business) is BadRequestError and business.code == "InsufficientActiveAccountsError" and business.id == "e2"

    missing = error_from_response(404, '{"message":"Payment request not found"}', {"X-Request-Id": "req-9"})
    assert type(missing) is NotFoundError and missing.code is None and missing.message == "Payment request not found"
    assert missing.id == "req-9"  # no id in the body: the X-Request-Id header says which request it was

    bulk = error_from_response(422, '{"message":"bad batch","errors":[{"index":0,"referenceId":"A-000001","reason":"Duplicate payer within the batch"}]}')
    assert type(bulk) is UnprocessableEntityError and bulk.errors == [{"index": 0, "referenceId": "A-000001", "reason": "Duplicate payer within the batch"}]

    plain = error_from_response(401, "Unauthorized")
    assert type(plain) is UnauthorizedError and plain.body is None and plain.message == "Unauthorized" and plain.code is None

    assert type(error_from_response(429, '{"code":"IntegrationDailyRequestLimitExceededError","message":"cap"}')) is TooManyRequestsError
    server = error_from_response(500, '{"code":"InternalServerError","message":"boom","id":"e5"}')
    assert type(server) is ServerError and server.id == "e5"
    assert type(error_from_response(503, '{"code":"PayerLookupProviderUnavailableError","message":"down"}')) is ServerError
    assert type(error_from_response(418, "")) is ApiError


def test_the_configured_client_raises_them(service) -> None:
    api = integration.PaymentRequestsApi(integration_api_client(service.url, "token-1"))
    service.answer(404, {"message": "Payment request not found"}, {"X-Request-Id": "req-404"})
    with pytest.raises(NotFoundError) as raised:
        api.get_payment_request("INV-2026-000001")
    assert raised.value.message == "Payment request not found" and raised.value.id == "req-404"
    assert service.requests[0]["path"] == "/payment-request/INV-2026-000001"
    assert service.requests[0]["headers"]["Authorization"] == "Bearer token-1"

    service.answer(400, VALIDATION_BODY)
    with pytest.raises(ValidationError) as invalid:
        api.get_payment_request("INV-2026-000002")
    assert [detail.field for detail in invalid.value.validation_details] == ["customer.email", "dueDates", "customer"]


def test_no_answer_is_its_own_error() -> None:
    api = integration.PaymentRequestsApi(integration_api_client("http://127.0.0.1:9", "token"))  # discard port: refused
    with pytest.raises(NoAnswerError):
        api.get_payment_request("INV-2026-000003", _request_timeout=2)


def test_reads_a_generated_clients_own_exception(service) -> None:
    api = integration.PaymentRequestsApi(integration.ApiClient(integration.Configuration(host=service.url, access_token="t")))
    service.answer(409, {"error": "ReferenceIdAlreadyExists", "message": "exists", "referenceId": "INV-1"})
    with pytest.raises(integration.ApiException) as raised:
        api.get_payment_request("INV-1")
    typed = as_cobro_error(raised.value)
    assert isinstance(typed, ConflictError) and typed.code == "ReferenceIdAlreadyExists"
    assert as_cobro_error(ValueError("unrelated")) is None

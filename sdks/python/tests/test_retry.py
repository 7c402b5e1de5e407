"""The retry guidance for creates and bulks, against a scripted PaymentRequestsApi."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, List

import pytest

from cobro_sdk import ConflictError, NoAnswerError, ServerError, TooManyRequestsError, create_bulk_or_confirm, create_or_get, interpret_bulk_retry
from cobro_sdk.errors import error_from_response
from cobro_sdk.generated import integration

BODY = SimpleNamespace(reference_id="INV-2026-000124")
CHARGE = SimpleNamespace(reference_id="INV-2026-000124", state="pending")
EXISTS = '{"error":"ReferenceIdAlreadyExists","message":"The referenceId already exists","referenceId":"INV-2026-000124"}'
NOT_FOUND = '{"message":"Payment request not found"}'


class ScriptedApi:
    """Each call takes the next outcome of its operation's script: a value to return or an exception to raise."""

    def __init__(self, creates: List[Any], gets: List[Any] = (), bulks: List[Any] = ()) -> None:
        self.scripts = {"create": list(creates), "get": list(gets), "bulk": list(bulks)}
        self.calls: List[str] = []

    def _next(self, name: str) -> Any:
        self.calls.append(name)
        outcome = self.scripts[name].pop(0)
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome

    def create_payment_request(self, payment_request_create: Any, _request_timeout: Any = None) -> Any:
        return self._next("create")

    def get_payment_request(self, reference_id: str, _request_timeout: Any = None) -> Any:
        assert reference_id == "INV-2026-000124"
        return self._next("get")

    def create_payment_requests_bulk(self, bulk_payment_request_create: Any, _request_timeout: Any = None) -> Any:
        return self._next("bulk")


def no_sleep(seconds: float) -> None:
    pass


def test_created_at_once() -> None:
    api = ScriptedApi([CHARGE])
    result = create_or_get(api, BODY, sleep=no_sleep)
    assert (result.outcome, result.payment_request, api.calls) == ("created", CHARGE, ["create"])


def test_no_answer_then_found_by_reference_id() -> None:
    api = ScriptedApi([NoAnswerError("timed out")], gets=[CHARGE])
    result = create_or_get(api, BODY, sleep=no_sleep)
    assert (result.outcome, api.calls) == ("existing", ["create", "get"])


def test_a_5xx_then_404_creates_again_with_the_same_reference_id() -> None:
    waits: List[float] = []
    api = ScriptedApi([error_from_response(500, '{"code":"InternalError","message":"x","id":"e"}'), CHARGE], gets=[error_from_response(404, NOT_FOUND)])
    result = create_or_get(api, BODY, sleep=waits.append)
    assert (result.outcome, api.calls, waits) == ("created", ["create", "get", "create"], [0.5])


def test_409_reference_id_exists_reads_the_charge() -> None:
    api = ScriptedApi([error_from_response(409, EXISTS)], gets=[CHARGE])
    assert create_or_get(api, BODY, sleep=no_sleep).outcome == "existing"
    api = ScriptedApi([error_from_response(409, EXISTS.replace("Exists", "ExistsError"))], gets=[CHARGE])
    assert create_or_get(api, BODY, sleep=no_sleep).outcome == "existing"


def test_409_customer_already_associated_is_retried() -> None:
    busy = error_from_response(409, '{"code":"CustomerAlreadyAssociatedError","message":"busy","id":"e"}')
    api = ScriptedApi([busy, CHARGE])
    assert (create_or_get(api, BODY, sleep=no_sleep).outcome, api.calls) == ("created", ["create", "create"])


def test_429_is_checked_then_raised() -> None:
    capped = error_from_response(429, '{"code":"IntegrationGlobalDailyMessageLimitExceededError","message":"cap","id":"e"}')
    api = ScriptedApi([capped], gets=[error_from_response(404, NOT_FOUND)])
    with pytest.raises(TooManyRequestsError):
        create_or_get(api, BODY, sleep=no_sleep)
    assert api.calls == ["create", "get"]


def test_other_errors_are_raised_without_retry() -> None:
    api = ScriptedApi([error_from_response(400, '{"code":"ValidationError","message":"x","id":"e","validationDetails":[]}')])
    with pytest.raises(Exception) as raised:
        create_or_get(api, BODY, sleep=no_sleep)
    assert raised.value.status == 400 and api.calls == ["create"]


def test_gives_up_after_the_attempts_with_the_last_error() -> None:
    api = ScriptedApi([NoAnswerError("a"), NoAnswerError("b"), NoAnswerError("c")], gets=[NoAnswerError("g1"), NoAnswerError("g2"), NoAnswerError("g3")])
    with pytest.raises(NoAnswerError, match="c"):
        create_or_get(api, BODY, attempts=3, sleep=no_sleep)
    assert api.calls == ["create", "get"] * 3


def test_reads_the_generated_clients_own_exceptions() -> None:
    conflict = integration.ApiException(status=409, reason="Conflict", body=EXISTS)
    api = ScriptedApi([conflict], gets=[CHARGE])
    assert create_or_get(api, BODY, sleep=no_sleep).outcome == "existing"


BATCH = SimpleNamespace(payment_requests=[SimpleNamespace(reference_id="INV-2026-000124"), SimpleNamespace(reference_id="INV-2026-000125")])


def bulk_422(reasons: List[str]) -> Any:
    errors = ",".join(f'{{"index":{i},"referenceId":"INV-2026-00012{4 + i}","reason":"{reason}"}}' for i, reason in enumerate(reasons))
    return error_from_response(422, f'{{"message":"refused","errors":[{errors}]}}')


def test_interpret_bulk_retry() -> None:
    exists = "The referenceId already exists for this integration"
    assert interpret_bulk_retry(bulk_422([exists, exists]), BATCH).outcome == "created_earlier"
    partial = interpret_bulk_retry(bulk_422([exists]), BATCH)
    assert partial.outcome == "rejected" and len(partial.errors) == 1
    assert interpret_bulk_retry(bulk_422([exists, "Duplicate payer within the batch"]), BATCH).outcome == "rejected"


def test_bulk_no_answer_then_found() -> None:
    api = ScriptedApi([], gets=[CHARGE], bulks=[NoAnswerError("timed out")])
    assert (create_bulk_or_confirm(api, BATCH, sleep=no_sleep).outcome, api.calls) == ("created_earlier", ["bulk", "get"])


def test_bulk_no_answer_404_then_a_422_that_says_it_exists() -> None:
    exists = "The referenceId already exists for this integration"
    api = ScriptedApi([], gets=[error_from_response(404, NOT_FOUND)], bulks=[ServerError(502), bulk_422([exists, exists])])
    assert create_bulk_or_confirm(api, BATCH, sleep=no_sleep).outcome == "created_earlier"
    assert api.calls == ["bulk", "get", "bulk"]


def test_bulk_first_422_is_raised_and_created_is_returned() -> None:
    api = ScriptedApi([], bulks=[bulk_422(["Duplicate payer within the batch", "Duplicate payer within the batch"])])
    with pytest.raises(Exception) as raised:
        create_bulk_or_confirm(api, BATCH, sleep=no_sleep)
    assert raised.value.status == 422
    api = ScriptedApi([], bulks=["bulk-result"])
    result = create_bulk_or_confirm(api, BATCH, sleep=no_sleep)
    assert (result.outcome, result.result) == ("created", "bulk-result")


def test_conflict_of_another_kind_is_raised() -> None:
    api = ScriptedApi([error_from_response(409, '{"code":"SomethingElse","message":"x","id":"e"}')])
    with pytest.raises(ConflictError):
        create_or_get(api, BODY, sleep=no_sleep)

"""The service's retry guidance for creating charges, as two helpers.

Creating a charge has no idempotency key: the ``referenceId`` is the key. On no answer or a 5xx of a
create, GET the referenceId; on 404 create again with the same referenceId; a 409
``ReferenceIdAlreadyExists`` means the charge exists. A bulk is all or nothing: on no answer GET one
referenceId of the batch; a 422 of a retried bulk whose items all fail because their referenceId already
exists means the earlier attempt created the batch.

Both take the generated ``PaymentRequestsApi`` (``CobroClient.payment_requests``) and raise this SDK's
typed exceptions (:mod:`cobro_sdk.errors`).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, List, Mapping, Optional, Protocol, Sequence

from cobro_sdk.errors import ApiError, CobroError, NoAnswerError, as_cobro_error


class ChargeOperations(Protocol):
    """What :func:`create_or_get` calls: ``integration.PaymentRequestsApi`` has both."""

    def create_payment_request(self, payment_request_create: Any, _request_timeout: Any = None) -> Any: ...

    def get_payment_request(self, reference_id: str, _request_timeout: Any = None) -> Any: ...


class BulkOperations(Protocol):
    """What :func:`create_bulk_or_confirm` calls: ``integration.PaymentRequestsApi`` has both."""

    def create_payment_requests_bulk(self, bulk_payment_request_create: Any, _request_timeout: Any = None) -> Any: ...

    def get_payment_request(self, reference_id: str, _request_timeout: Any = None) -> Any: ...


def default_backoff(retry: int) -> float:
    """Seconds before the n-th retry (1-based): 0.5, 1, 2, ..."""
    return 0.5 * 2 ** (retry - 1)


@dataclass(frozen=True)
class CreateOrGetResult:
    outcome: str
    """``created`` (this call created it) or ``existing`` (an earlier attempt, this call's or another's, did)."""
    payment_request: Any


@dataclass(frozen=True)
class BulkRetryInterpretation:
    outcome: str
    """``created_earlier`` (every item failed only because its referenceId exists: an earlier attempt created
    the batch) or ``rejected`` (the batch was refused for its content; nothing was created)."""
    errors: List[Mapping[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class CreateBulkResult:
    outcome: str
    """``created`` (``result`` is the ``BulkResult``) or ``created_earlier`` (read the charges by referenceId)."""
    result: Any = None


def _attempts(attempts: int, backoff: Callable[[int], float], sleep: Callable[[float], None]) -> Iterator[int]:
    """1 to ``attempts``, waiting ``backoff(n)`` before the n-th retry."""
    for attempt in range(1, attempts + 1):
        if attempt > 1:
            sleep(backoff(attempt - 1))
        yield attempt


def _typed(error: Exception) -> CobroError:
    """This SDK's exception for a failed call, caused by ``error``; anything else is raised again as it is."""
    typed = as_cobro_error(error)
    if typed is None:
        raise error
    if typed is not error:
        typed.__cause__ = error
    return typed


def _outcome_unknown(error: Optional[CobroError]) -> bool:
    """Whether the service may have done the write although the call failed: no answer, or a 5xx."""
    return isinstance(error, NoAnswerError) or (isinstance(error, ApiError) and error.status >= 500)


def _reference_id(body: Any) -> str:
    reference_id = body.get("referenceId") if isinstance(body, Mapping) else getattr(body, "reference_id", None)
    if not isinstance(reference_id, str):
        raise TypeError("the charge needs a referenceId: it is the idempotency key")
    return reference_id


def create_or_get(
    api: ChargeOperations,
    body: Any,
    *,
    attempts: int = 3,
    timeout: float = 30.0,
    backoff: Callable[[int], float] = default_backoff,
    sleep: Callable[[float], None] = time.sleep,
) -> CreateOrGetResult:
    """Creates a charge (``body``: an ``integration.PaymentRequestCreate``), or finds the one an earlier
    attempt created. Safe to call again with the same body.

    - 201: ``created``.
    - No answer or 5xx: GET the referenceId; found: ``existing``; 404: create again with the same
      referenceId, up to ``attempts`` creates.
    - 409 ``ReferenceIdAlreadyExists``: GET it: ``existing`` (check that it is the charge you meant: the
      referenceId is yours to keep unique).
    - 409 ``CustomerAlreadyAssociatedError`` (two simultaneous creates for one payer): retried.
    - 429: GET the referenceId (near the cap a charge may exist though 429 was returned); otherwise the
      429 is raised: wait for the reset, do not loop.
    - Any other answer is raised.
    """
    reference_id = _reference_id(body)

    def find() -> Any:
        try:
            return api.get_payment_request(reference_id, _request_timeout=timeout)
        except Exception as error:
            typed = as_cobro_error(error)
            if isinstance(typed, ApiError) and typed.status == 404:
                return None
            if typed is not None and typed is not error:
                raise typed from error
            raise

    last: Optional[BaseException] = None
    for _ in _attempts(attempts, backoff, sleep):
        try:
            return CreateOrGetResult("created", api.create_payment_request(body, _request_timeout=timeout))
        except Exception as error:
            last = typed = _typed(error)
            if isinstance(typed, ApiError) and typed.status == 409:
                if typed.has_code("ReferenceIdAlreadyExists"):
                    existing = find()
                    if existing is not None:
                        return CreateOrGetResult("existing", existing)
                    raise typed
                if typed.has_code("CustomerAlreadyAssociated"):
                    continue
                raise typed
            if isinstance(typed, ApiError) and typed.status == 429:
                existing = find()
                if existing is not None:
                    return CreateOrGetResult("existing", existing)
                raise typed
            if not _outcome_unknown(typed):
                raise typed
            try:
                existing = find()
                if existing is not None:
                    return CreateOrGetResult("existing", existing)
            except Exception as find_error:
                # The check failed too (no answer or 5xx): the next create settles it (201, or 409 if it exists).
                if not _outcome_unknown(as_cobro_error(find_error)):
                    raise
    assert last is not None
    raise last


_REFERENCE_ID_EXISTS = re.compile(r"referenceId already exists", re.IGNORECASE)


def _items(batch: Any) -> Sequence[Any]:
    items = batch.get("paymentRequests") if isinstance(batch, Mapping) else getattr(batch, "payment_requests", None)
    return list(items or [])


def interpret_bulk_retry(error: ApiError, batch: Any) -> BulkRetryInterpretation:
    """Reads the 422 of a bulk that was a retry of a batch whose first attempt got no answer.

    A bulk is all or nothing, so when every item says "The referenceId already exists for this
    integration", that first attempt created the whole batch. Any other reason means this batch was refused.
    """
    reference_ids = {_reference_id(item) for item in _items(batch)}
    body = error.body if isinstance(error.body, Mapping) else {}
    errors = [item for item in body.get("errors") or [] if isinstance(item, Mapping)]
    all_exist = (
        len(errors) > 0
        and len(errors) == len(reference_ids)
        and all(_REFERENCE_ID_EXISTS.search(str(item.get("reason", ""))) and item.get("referenceId") in reference_ids for item in errors)
    )
    return BulkRetryInterpretation("created_earlier") if all_exist else BulkRetryInterpretation("rejected", errors)


def create_bulk_or_confirm(
    api: BulkOperations,
    body: Any,
    *,
    attempts: int = 3,
    timeout: float = 60.0,
    backoff: Callable[[int], float] = default_backoff,
    sleep: Callable[[float], None] = time.sleep,
) -> CreateBulkResult:
    """Creates a batch (``body``: an ``integration.BulkPaymentRequestCreate``), following the guidance for a
    bulk that got no answer: GET one referenceId of the batch (all or nothing); found: it was created; 404:
    send it again. A 422 on a retry is read with :func:`interpret_bulk_retry`. Other answers are raised.
    """
    items = _items(body)
    if not items:
        raise TypeError("a bulk needs at least one payment request")
    probe = _reference_id(items[0])
    last: Optional[BaseException] = None
    for attempt in _attempts(attempts, backoff, sleep):
        try:
            return CreateBulkResult("created", api.create_payment_requests_bulk(body, _request_timeout=timeout))
        except Exception as error:
            last = typed = _typed(error)
            if isinstance(typed, ApiError) and typed.status == 422 and attempt > 1:
                if interpret_bulk_retry(typed, body).outcome == "created_earlier":
                    return CreateBulkResult("created_earlier")
                raise typed
            if not _outcome_unknown(typed):
                raise typed
            try:
                api.get_payment_request(probe, _request_timeout=timeout)
                return CreateBulkResult("created_earlier")
            except Exception as find_error:
                typed_find = as_cobro_error(find_error)
                if not (isinstance(typed_find, ApiError) and typed_find.status == 404) and not _outcome_unknown(typed_find):
                    raise
    assert last is not None
    raise last


__all__ = [
    "BulkOperations",
    "BulkRetryInterpretation",
    "ChargeOperations",
    "CreateBulkResult",
    "CreateOrGetResult",
    "create_bulk_or_confirm",
    "create_or_get",
    "default_backoff",
    "interpret_bulk_retry",
]

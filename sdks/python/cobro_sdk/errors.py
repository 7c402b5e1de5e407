"""Typed exceptions for the service's error answers.

Every error body of the contract is one of a few shapes (``{code, message, id}``, the same with
``validationDetails``, ``{error, message, referenceId}``, ``{message, errors}``, ``{message}``, or plain
text). :class:`ApiError` reads any of them into the same attributes; decide by :attr:`ApiError.status`,
then by :attr:`ApiError.code`, never by the message.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, List, Mapping, Optional, Sequence, Type, Union


class CobroError(Exception):
    """Base of every exception this SDK raises on purpose."""


class NoAnswerError(CobroError):
    """No answer came back (connection error, timeout): the request may or may not have reached the service."""


@dataclass(frozen=True)
class ValidationDetail:
    """One field that failed validation, as a 400 ``ValidationError`` lists it in ``validationDetails``."""

    field: str
    """The field's JSON path, dot-separated (``customer.email``, ``dueDates[1]``); ``body`` for the whole body."""
    message: str
    """What is wrong with it (English, for a developer's log: decide by :attr:`rule`)."""
    rule: Optional[str] = None
    limit: Optional[float] = None
    format: Optional[str] = None
    fields: Optional[Sequence[str]] = None


class ApiError(CobroError):
    """A non-2xx answer. The subclass says the status; the attributes come from the error body."""

    status: int
    code: Optional[str]
    """The body's ``code``, or else its ``error`` (``ReferenceIdAlreadyExists``); as the body has it: the
    service writes some codes bare and some with an ``Error`` suffix, which a caller should treat as equal."""
    message: Optional[str]
    id: Optional[str]
    """The error's ``id`` (general bodies), or else the ``X-Request-Id`` header: quote it to support."""
    validation_details: List[ValidationDetail]
    body: Any
    """The body parsed as JSON, or ``None`` when it is empty or not JSON (see :attr:`text`)."""
    text: str
    headers: Mapping[str, str]

    def __init__(self, status: int, text: str = "", headers: Optional[Mapping[str, str]] = None) -> None:
        self.status = status
        self.text = text
        self.headers = dict(headers or {})
        self.body = _parse_json(text)
        body = self.body if isinstance(self.body, dict) else {}
        code = body.get("code") if isinstance(body.get("code"), str) else body.get("error")
        self.code = code if isinstance(code, str) else None
        message = body.get("message")
        self.message = message if isinstance(message, str) else ((text.strip() or None) if self.body is None else None)
        error_id = body.get("id")
        self.id = error_id if isinstance(error_id, str) else _header(self.headers, "x-request-id")
        self.validation_details = _validation_details(body.get("validationDetails"))
        super().__init__(f"{status} {self.code or ''} {self.message or ''}".strip())

    def has_code(self, code: str) -> bool:
        """Whether the body's code is ``code``, with or without the ``Error`` suffix."""
        return self.code is not None and _bare(self.code) == _bare(code)


class BadRequestError(ApiError):
    """400."""


class ValidationError(BadRequestError):
    """400 ``ValidationError``: :attr:`validation_details` lists the fields."""


class UnauthorizedError(ApiError):
    """401: the token is missing, invalid or expired."""


class ForbiddenError(ApiError):
    """403."""


class NotFoundError(ApiError):
    """404."""


class ConflictError(ApiError):
    """409: ``ReferenceIdAlreadyExists`` (the charge exists), ``CustomerAlreadyAssociatedError``, …"""


class UnprocessableEntityError(ApiError):
    """422: a bulk refused for its items (:attr:`errors`: ``{index, referenceId, reason}``)."""

    @property
    def errors(self) -> List[Mapping[str, Any]]:
        items = self.body.get("errors") if isinstance(self.body, dict) else None
        return [item for item in items if isinstance(item, dict)] if isinstance(items, list) else []


class TooManyRequestsError(ApiError):
    """429: a daily cap; wait for its reset (``Retry-After`` when the answer has it), do not loop."""


class ServerError(ApiError):
    """5xx: after a create or a bulk, check with GET before retrying (see :mod:`cobro_sdk.retry`)."""


_BY_STATUS: Mapping[int, Type[ApiError]] = {
    400: BadRequestError,
    401: UnauthorizedError,
    403: ForbiddenError,
    404: NotFoundError,
    409: ConflictError,
    422: UnprocessableEntityError,
    429: TooManyRequestsError,
}


def error_from_response(status: int, body: Union[bytes, str, None], headers: Optional[Mapping[str, str]] = None) -> ApiError:
    """The typed exception of a non-2xx answer."""
    text = body.decode("utf-8", errors="replace") if isinstance(body, (bytes, bytearray)) else (body or "")
    error = ApiError(status, text, headers)
    if status >= 500:
        kind: Type[ApiError] = ServerError
    elif status == 400 and error.has_code("ValidationError"):
        kind = ValidationError
    else:
        kind = _BY_STATUS.get(status, ApiError)
    if kind is not ApiError:
        error.__class__ = kind
    return error


def as_cobro_error(error: BaseException) -> Optional[CobroError]:
    """A generated client's exception (or urllib3's) as this SDK's; ``None`` for anything else.

    The clients made by :mod:`cobro_sdk.clients` raise these already; this reads the errors of a generated
    client built by hand.
    """
    if isinstance(error, CobroError):
        return error
    status = getattr(error, "status", None)
    if type(error).__name__.endswith("Exception") and hasattr(error, "body") and isinstance(status, int):
        if status == 0:  # the generated REST layer's wrapping of an SSL error: no answer
            return NoAnswerError(str(error))
        headers = getattr(error, "headers", None) or {}
        return error_from_response(status, getattr(error, "body", None), dict(headers.items()) if hasattr(headers, "items") else {})
    try:
        import urllib3.exceptions

        if isinstance(error, urllib3.exceptions.HTTPError):
            return NoAnswerError(str(error))
    except ImportError:  # pragma: no cover - urllib3 is a dependency
        pass
    if isinstance(error, (TimeoutError, ConnectionError)):
        return NoAnswerError(str(error))
    return None


def _bare(code: str) -> str:
    return code[: -len("Error")] if code.endswith("Error") else code


def _parse_json(text: str) -> Any:
    if not text:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


def _header(headers: Mapping[str, str], name: str) -> Optional[str]:
    for key, value in headers.items():
        if key.lower() == name:
            return value
    return None


def _validation_details(value: Any) -> List[ValidationDetail]:
    if not isinstance(value, list):
        return []
    details: List[ValidationDetail] = []
    for item in value:
        if not isinstance(item, dict) or not isinstance(item.get("field"), str) or not isinstance(item.get("message"), str):
            continue
        limit = item.get("limit")
        fields = item.get("fields")
        details.append(
            ValidationDetail(
                field=item["field"],
                message=item["message"],
                rule=item.get("rule") if isinstance(item.get("rule"), str) else None,
                limit=limit if isinstance(limit, (int, float)) and not isinstance(limit, bool) else None,
                format=item.get("format") if isinstance(item.get("format"), str) else None,
                fields=tuple(fields) if isinstance(fields, list) and all(isinstance(name, str) for name in fields) else None,
            )
        )
    return details


__all__ = [
    "ApiError",
    "BadRequestError",
    "CobroError",
    "ConflictError",
    "ForbiddenError",
    "NoAnswerError",
    "NotFoundError",
    "ServerError",
    "TooManyRequestsError",
    "UnauthorizedError",
    "UnprocessableEntityError",
    "ValidationDetail",
    "ValidationError",
    "as_cobro_error",
    "error_from_response",
]

"""Webhook verification: both signatures every delivery carries.

- ``X-Service-Signature: t=<unix seconds>,v1=<hex>``: the lowercase hex HMAC-SHA256 of ``f"{t}.{raw_body}"``
  keyed with the signing secret's UTF-8 bytes, exactly as the Admin API returns it (``whsec_...``). While a
  secret is being rotated a header may carry several ``v1`` entries; one matching is enough.
- Standard Webhooks (https://www.standardwebhooks.com): ``webhook-id``, ``webhook-timestamp`` and
  ``webhook-signature: v1,<base64>``, the HMAC-SHA256 of ``f"{id}.{timestamp}.{raw_body}"`` keyed with the
  base64-decoded part of the secret after ``whsec_``. A ``legacy`` secret (the Admin API says its
  ``scheme``) keys it with the secret's UTF-8 bytes instead, until it is rotated.

Both take the raw body (the exact bytes received, before any JSON parsing) and the request's headers as a
mapping (``request.headers`` of Flask, Django or FastAPI; a plain ``dict`` works too, whatever its case)::

    verifier = WebhookVerifier(os.environ["COBRO_WEBHOOK_SECRET"])

    @app.post("/webhooks/cobro")  # Flask
    def cobro_webhook():
        try:
            event = verifier.verify(request.get_data(), request.headers)
        except WebhookVerificationError:
            return "", 400
        ...  # deduplicate by request.headers["webhook-id"], then route on event["event"]
        return "", 200
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import re
import time
from typing import Any, Iterable, List, Mapping, Optional, Tuple, Union

from cobro_sdk.errors import CobroError

SIGNATURE_HEADER = "X-Service-Signature"
"""The service's own signature header (the name is case-insensitive in HTTP)."""
WEBHOOK_ID_HEADER = "X-Service-Webhook-Id"
"""Identifies a delivery, identical across its retries (the same value as ``webhook-id``): deduplicate by it."""
STANDARD_ID_HEADER = "webhook-id"
STANDARD_TIMESTAMP_HEADER = "webhook-timestamp"
STANDARD_SIGNATURE_HEADER = "webhook-signature"
DEFAULT_TOLERANCE_SECONDS = 300

SECRET_PREFIX = "whsec_"

RawBody = Union[bytes, bytearray, memoryview, str]
Headers = Union[Mapping[str, str], Iterable[Tuple[str, str]]]

_HEX_SHA256 = re.compile(r"^[0-9a-fA-F]{64}$")
_TIMESTAMP = re.compile(r"^\d{1,15}$")


class WebhookVerificationError(CobroError):
    """The webhook is refused; :attr:`reason` says why.

    ``missing_header``, ``malformed_header``, ``stale_timestamp`` (outside the tolerance, either way),
    ``signature_mismatch`` (forged, altered, or another secret).
    """

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason


def header_value(headers: Headers, name: str) -> Optional[str]:
    """A header's value from a mapping (or pairs), whatever the case of its keys; ``None`` when absent."""
    getter = getattr(headers, "get", None)
    if getter is not None:
        # Flask's, Django's and Starlette's headers are case-insensitive already.
        value = getter(name)
        if value is None:
            value = getter(name.lower())
        if value is not None:
            return value if isinstance(value, str) else str(value)
    items = headers.items() if isinstance(headers, Mapping) else headers
    wanted = name.lower()
    for key, value in items:
        if key.lower() == wanted:
            return value
    return None


def _bytes(raw_body: RawBody) -> bytes:
    if isinstance(raw_body, str):
        return raw_body.encode("utf-8")
    return bytes(raw_body)


def _now(now: Optional[float]) -> int:
    return int(now if now is not None else time.time())


def _check_timestamp(timestamp_text: str, tolerance_seconds: float, now: Optional[float]) -> None:
    if abs(_now(now) - int(timestamp_text)) > tolerance_seconds:
        raise WebhookVerificationError("stale_timestamp", f"the timestamp {timestamp_text} is more than {tolerance_seconds} s from now")


def _any_matches(expected: bytes, candidates: List[bytes]) -> bool:
    matched = False
    for candidate in candidates:
        # Every entry is compared (no early exit), each in constant time.
        if hmac.compare_digest(expected, candidate):
            matched = True
    return matched


# X-Service-Signature


def service_signature(raw_body: RawBody, secret: str, timestamp: Optional[int] = None) -> str:
    """The ``X-Service-Signature`` value the service sends for ``raw_body``: for your receiver's own tests."""
    t = str(_now(timestamp))
    digest = hmac.new(secret.encode("utf-8"), f"{t}.".encode("utf-8") + _bytes(raw_body), hashlib.sha256).hexdigest()
    return f"t={t},v1={digest}"


def verify_service_signature(
    raw_body: RawBody, header: Optional[str], secret: str, *, tolerance_seconds: float = DEFAULT_TOLERANCE_SECONDS, now: Optional[float] = None
) -> None:
    """Checks an ``X-Service-Signature`` value; raises :class:`WebhookVerificationError` when it is not valid."""
    if not secret:
        raise ValueError("the webhook signing secret is needed")
    if not header:
        raise WebhookVerificationError("missing_header", f"no {SIGNATURE_HEADER} header")
    timestamp_text: Optional[str] = None
    signatures: List[bytes] = []
    for part in header.split(","):
        key, separator, value = part.partition("=")
        key, value = key.strip(), value.strip()
        if not separator or not key:
            raise WebhookVerificationError("malformed_header", f"{SIGNATURE_HEADER} is not t=<seconds>,v1=<hex>")
        if key == "t":
            if timestamp_text is not None or not _TIMESTAMP.match(value):
                raise WebhookVerificationError("malformed_header", f"{SIGNATURE_HEADER} has no single numeric t")
            timestamp_text = value
        elif key == "v1" and _HEX_SHA256.match(value):
            signatures.append(value.lower().encode("ascii"))
        # Other schemes (v0, a future v2) are ignored, so that the service can add one without breaking receivers.
    if timestamp_text is None or not signatures:
        raise WebhookVerificationError("malformed_header", f"{SIGNATURE_HEADER} lacks t or a v1 signature")
    _check_timestamp(timestamp_text, tolerance_seconds, now)
    expected = hmac.new(secret.encode("utf-8"), f"{timestamp_text}.".encode("utf-8") + _bytes(raw_body), hashlib.sha256).hexdigest()
    if not _any_matches(expected.encode("ascii"), signatures):
        raise WebhookVerificationError("signature_mismatch", f"no {SIGNATURE_HEADER} v1 signature matches the body")


# Standard Webhooks


def standard_webhook_key(secret: str, scheme: str = "standard") -> bytes:
    """The HMAC key of ``webhook-signature``: the base64 after ``whsec_``, or a ``legacy`` secret's UTF-8 bytes."""
    if scheme == "legacy":
        return secret.encode("utf-8")
    if scheme != "standard":
        raise ValueError(f"unknown signing secret scheme {scheme!r}: 'standard' or 'legacy'")
    encoded = secret[len(SECRET_PREFIX) :] if secret.startswith(SECRET_PREFIX) else secret
    try:
        return base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError) as error:
        raise ValueError("the signing secret is not whsec_ and base64: a legacy secret? pass scheme='legacy'") from error


def standard_webhook_signature(webhook_id: str, timestamp: int, raw_body: RawBody, secret: str, scheme: str = "standard") -> str:
    """The ``webhook-signature`` value the service sends: for your receiver's own tests."""
    signed = f"{webhook_id}.{timestamp}.".encode("utf-8") + _bytes(raw_body)
    digest = hmac.new(standard_webhook_key(secret, scheme), signed, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode("ascii")


def verify_standard_webhook(
    raw_body: RawBody,
    headers: Headers,
    secret: str,
    *,
    scheme: str = "standard",
    tolerance_seconds: float = DEFAULT_TOLERANCE_SECONDS,
    now: Optional[float] = None,
) -> None:
    """Checks the Standard Webhooks headers; raises :class:`WebhookVerificationError` when they are not valid."""
    key = standard_webhook_key(secret, scheme)
    webhook_id = header_value(headers, STANDARD_ID_HEADER)
    timestamp_text = header_value(headers, STANDARD_TIMESTAMP_HEADER)
    signature_header = header_value(headers, STANDARD_SIGNATURE_HEADER)
    if not webhook_id or not timestamp_text or not signature_header:
        raise WebhookVerificationError("missing_header", "webhook-id, webhook-timestamp and webhook-signature are all needed")
    if not _TIMESTAMP.match(timestamp_text.strip()):
        raise WebhookVerificationError("malformed_header", "webhook-timestamp is not unix seconds")
    timestamp_text = timestamp_text.strip()
    signatures: List[bytes] = []
    # Space-delimited `<version>,<base64>` entries; only v1 (HMAC-SHA256) is this scheme's.
    for entry in signature_header.split():
        version, separator, value = entry.partition(",")
        if separator and version == "v1":
            try:
                signatures.append(base64.b64decode(value, validate=True))
            except (binascii.Error, ValueError):
                continue
    if not signatures:
        raise WebhookVerificationError("malformed_header", "webhook-signature has no v1 signature")
    _check_timestamp(timestamp_text, tolerance_seconds, now)
    expected = hmac.new(key, f"{webhook_id}.{timestamp_text}.".encode("utf-8") + _bytes(raw_body), hashlib.sha256).digest()
    if not _any_matches(expected, signatures):
        raise WebhookVerificationError("signature_mismatch", "no webhook-signature v1 signature matches the body")


class WebhookVerifier:
    """Verifies a delivery by whichever signatures it carries, and answers the event (the parsed body).

    Every signature present must be valid, and at least one must be present: a request whose
    ``X-Service-Signature`` is valid but whose Standard Webhooks headers are not is refused, and so is the
    reverse. ``scheme`` is the secret's as the Admin API reports it (``standard`` or ``legacy``).
    """

    def __init__(self, secret: str, *, scheme: str = "standard", tolerance_seconds: float = DEFAULT_TOLERANCE_SECONDS) -> None:
        if not secret:
            raise ValueError("the webhook signing secret is needed")
        standard_webhook_key(secret, scheme)  # a secret of another scheme fails here, not on the first webhook
        self._secret = secret
        self._scheme = scheme
        self._tolerance = tolerance_seconds

    def verify(self, raw_body: RawBody, headers: Headers, *, now: Optional[float] = None) -> Any:
        """The event (the JSON body, parsed) once the signatures are checked; raises :class:`WebhookVerificationError`."""
        checked = False
        service_header = header_value(headers, SIGNATURE_HEADER)
        if service_header is not None:
            verify_service_signature(raw_body, service_header, self._secret, tolerance_seconds=self._tolerance, now=now)
            checked = True
        if header_value(headers, STANDARD_SIGNATURE_HEADER) is not None:
            verify_standard_webhook(raw_body, headers, self._secret, scheme=self._scheme, tolerance_seconds=self._tolerance, now=now)
            checked = True
        if not checked:
            raise WebhookVerificationError("missing_header", f"neither {SIGNATURE_HEADER} nor webhook-signature is present")
        try:
            return json.loads(_bytes(raw_body))
        except ValueError as error:
            raise WebhookVerificationError("malformed_body", "the signed body is not JSON") from error


__all__ = [
    "DEFAULT_TOLERANCE_SECONDS",
    "SIGNATURE_HEADER",
    "STANDARD_ID_HEADER",
    "STANDARD_SIGNATURE_HEADER",
    "STANDARD_TIMESTAMP_HEADER",
    "WEBHOOK_ID_HEADER",
    "WebhookVerificationError",
    "WebhookVerifier",
    "header_value",
    "service_signature",
    "standard_webhook_key",
    "standard_webhook_signature",
    "verify_service_signature",
    "verify_standard_webhook",
]

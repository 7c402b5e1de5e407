"""Both webhook signatures: valid, forged (another secret), altered (body, timestamp or id) and stale are
told apart; the expected values are computed here from the scheme's definition, not with the SDK."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json

import pytest

from cobro_sdk import WebhookVerificationError, WebhookVerifier, service_signature, standard_webhook_signature
from cobro_sdk.webhooks import header_value, verify_service_signature, verify_standard_webhook

KEY = bytes(range(32))
SECRET = "whsec_" + base64.b64encode(KEY).decode()  # a `standard` secret, as the Admin API issues them
LEGACY_SECRET = "whsec_AbC-dEf_0123456789abcdefghijklmnopqrstuvw"  # whsec_ + base64url: keyed by its UTF-8 bytes
OTHER_SECRET = "whsec_" + base64.b64encode(bytes(range(1, 33))).decode()
BODY = b'{"event":"payment_request.payment_received","referenceId":"INV-2026-000123","paidAmount":15000.5}'
NOW = 1_795_870_800  # 2026-11-27 10:00 UTC
WEBHOOK_ID = "8b0c6f2e-5d1a-4c3b-9e7f-0a1b2c3d4e5f"


def v1_hex(secret: str, t: int, body: bytes) -> str:
    return hmac.new(secret.encode(), f"{t}.".encode() + body, hashlib.sha256).hexdigest()


def standard_v1(key: bytes, webhook_id: str, t: int, body: bytes) -> str:
    return "v1," + base64.b64encode(hmac.new(key, f"{webhook_id}.{t}.".encode() + body, hashlib.sha256).digest()).decode()


def standard_headers(key: bytes = KEY, t: int = NOW, body: bytes = BODY, webhook_id: str = WEBHOOK_ID) -> dict:
    return {"webhook-id": webhook_id, "webhook-timestamp": str(t), "webhook-signature": standard_v1(key, webhook_id, t, body)}


def reason(call) -> str:
    with pytest.raises(WebhookVerificationError) as raised:
        call()
    return raised.value.reason


class TestServiceSignature:
    def test_valid_for_bytes_and_str(self) -> None:
        header = f"t={NOW},v1={v1_hex(SECRET, NOW, BODY)}"
        verify_service_signature(BODY, header, SECRET, now=NOW)
        verify_service_signature(BODY.decode(), header, SECRET, now=NOW)
        verify_service_signature(bytearray(BODY), header, SECRET, now=NOW)
        assert service_signature(BODY, SECRET, NOW) == header

    def test_forged_with_another_secret(self) -> None:
        header = f"t={NOW},v1={v1_hex(OTHER_SECRET, NOW, BODY)}"
        assert reason(lambda: verify_service_signature(BODY, header, SECRET, now=NOW)) == "signature_mismatch"

    def test_altered_body_or_timestamp(self) -> None:
        header = f"t={NOW},v1={v1_hex(SECRET, NOW, BODY)}"
        altered = BODY.replace(b"15000.5", b"15000.6")
        assert reason(lambda: verify_service_signature(altered, header, SECRET, now=NOW)) == "signature_mismatch"
        assert reason(lambda: verify_service_signature(BODY + b"\n", header, SECRET, now=NOW)) == "signature_mismatch"
        reserialised = json.dumps(json.loads(BODY), indent=1).encode()
        assert reason(lambda: verify_service_signature(reserialised, header, SECRET, now=NOW)) == "signature_mismatch"
        moved = f"t={NOW + 1},v1={v1_hex(SECRET, NOW, BODY)}"
        assert reason(lambda: verify_service_signature(BODY, moved, SECRET, now=NOW)) == "signature_mismatch"

    def test_stale_either_way_and_the_tolerance(self) -> None:
        header = f"t={NOW},v1={v1_hex(SECRET, NOW, BODY)}"
        assert reason(lambda: verify_service_signature(BODY, header, SECRET, now=NOW + 301)) == "stale_timestamp"
        assert reason(lambda: verify_service_signature(BODY, header, SECRET, now=NOW - 301)) == "stale_timestamp"
        verify_service_signature(BODY, header, SECRET, now=NOW + 300)
        verify_service_signature(BODY, header, SECRET, now=NOW + 3000, tolerance_seconds=3600)
        # A stale timestamp is refused even when the signature over it is right.
        old = f"t={NOW - 3600},v1={v1_hex(SECRET, NOW - 3600, BODY)}"
        assert reason(lambda: verify_service_signature(BODY, old, SECRET, now=NOW)) == "stale_timestamp"

    def test_several_v1_entries_one_matching_and_unknown_schemes_ignored(self) -> None:
        header = f"t={NOW},v0=abc,v1={v1_hex(OTHER_SECRET, NOW, BODY)},v1={v1_hex(SECRET, NOW, BODY).upper()}"
        verify_service_signature(BODY, header, SECRET, now=NOW)

    @pytest.mark.parametrize(
        "header, expected",
        [
            (None, "missing_header"),
            ("", "missing_header"),
            ("v1=" + "0" * 64, "malformed_header"),
            (f"t={NOW}", "malformed_header"),
            (f"t=soon,v1={'0' * 64}", "malformed_header"),
            (f"t={NOW},t={NOW},v1={'0' * 64}", "malformed_header"),
            (f"t={NOW},v1=not-hex", "malformed_header"),
            ("garbage", "malformed_header"),
        ],
    )
    def test_malformed_headers(self, header, expected) -> None:
        assert reason(lambda: verify_service_signature(BODY, header, SECRET, now=NOW)) == expected

    def test_the_legacy_secret_keys_it_the_same_way(self) -> None:
        header = f"t={NOW},v1={v1_hex(LEGACY_SECRET, NOW, BODY)}"
        verify_service_signature(BODY, header, LEGACY_SECRET, now=NOW)


class TestStandardWebhooks:
    def test_valid(self) -> None:
        verify_standard_webhook(BODY, standard_headers(), SECRET, now=NOW)
        verify_standard_webhook(BODY.decode(), standard_headers(), SECRET, now=NOW)
        assert standard_webhook_signature(WEBHOOK_ID, NOW, BODY, SECRET) == standard_headers()["webhook-signature"]

    def test_header_names_in_any_case_and_as_pairs(self) -> None:
        headers = {key.upper(): value for key, value in standard_headers().items()}
        verify_standard_webhook(BODY, headers, SECRET, now=NOW)
        verify_standard_webhook(BODY, list(standard_headers().items()), SECRET, now=NOW)

    def test_forged_with_another_key(self) -> None:
        headers = standard_headers(key=bytes(range(1, 33)))
        assert reason(lambda: verify_standard_webhook(BODY, headers, SECRET, now=NOW)) == "signature_mismatch"
        # Keyed with the secret's text instead of its decoded key (the legacy way) is not a standard signature.
        headers = standard_headers(key=SECRET.encode())
        assert reason(lambda: verify_standard_webhook(BODY, headers, SECRET, now=NOW)) == "signature_mismatch"

    def test_altered_body_id_or_timestamp(self) -> None:
        headers = standard_headers()
        assert reason(lambda: verify_standard_webhook(BODY.replace(b"15000.5", b"1.5"), headers, SECRET, now=NOW)) == "signature_mismatch"
        assert reason(lambda: verify_standard_webhook(BODY, {**headers, "webhook-id": "another-id"}, SECRET, now=NOW)) == "signature_mismatch"
        assert reason(lambda: verify_standard_webhook(BODY, {**headers, "webhook-timestamp": str(NOW + 1)}, SECRET, now=NOW)) == "signature_mismatch"

    def test_stale(self) -> None:
        headers = standard_headers()
        assert reason(lambda: verify_standard_webhook(BODY, headers, SECRET, now=NOW + 301)) == "stale_timestamp"
        assert reason(lambda: verify_standard_webhook(BODY, headers, SECRET, now=NOW - 301)) == "stale_timestamp"
        verify_standard_webhook(BODY, headers, SECRET, now=NOW - 300)

    def test_several_signatures_one_matching(self) -> None:
        headers = standard_headers()
        other = standard_v1(bytes(range(1, 33)), WEBHOOK_ID, NOW, BODY)
        headers["webhook-signature"] = f"v1a,abcd {other} {headers['webhook-signature']}"
        verify_standard_webhook(BODY, headers, SECRET, now=NOW)

    def test_missing_and_malformed(self) -> None:
        headers = standard_headers()
        for name in ("webhook-id", "webhook-timestamp", "webhook-signature"):
            partial = {key: value for key, value in headers.items() if key != name}
            assert reason(lambda: verify_standard_webhook(BODY, partial, SECRET, now=NOW)) == "missing_header"
        assert reason(lambda: verify_standard_webhook(BODY, {**headers, "webhook-timestamp": "later"}, SECRET, now=NOW)) == "malformed_header"
        assert reason(lambda: verify_standard_webhook(BODY, {**headers, "webhook-signature": "v2,abc"}, SECRET, now=NOW)) == "malformed_header"

    def test_a_legacy_secret_keys_it_with_its_text(self) -> None:
        headers = standard_headers(key=LEGACY_SECRET.encode())
        verify_standard_webhook(BODY, headers, LEGACY_SECRET, scheme="legacy", now=NOW)
        with pytest.raises(ValueError):
            verify_standard_webhook(BODY, headers, "whsec_not base64!", now=NOW)


class TestWebhookVerifier:
    def both(self, t: int = NOW, body: bytes = BODY) -> dict:
        return {
            "X-Service-Signature": f"t={t},v1={v1_hex(SECRET, t, body)}",
            "X-Service-Webhook-Id": WEBHOOK_ID,
            **standard_headers(t=t, body=body),
        }

    def test_answers_the_event_when_both_signatures_hold(self) -> None:
        event = WebhookVerifier(SECRET).verify(BODY, self.both(), now=NOW)
        assert event == {"event": "payment_request.payment_received", "referenceId": "INV-2026-000123", "paidAmount": 15000.5}

    def test_either_scheme_alone_is_enough(self) -> None:
        both = self.both()
        only_service = {"x-service-signature": both["X-Service-Signature"]}
        only_standard = standard_headers()
        assert WebhookVerifier(SECRET).verify(BODY, only_service, now=NOW)["referenceId"] == "INV-2026-000123"
        assert WebhookVerifier(SECRET).verify(BODY, only_standard, now=NOW)["referenceId"] == "INV-2026-000123"

    def test_every_signature_present_must_hold(self) -> None:
        forged_standard = {**self.both(), **standard_headers(key=bytes(range(1, 33)))}
        assert reason(lambda: WebhookVerifier(SECRET).verify(BODY, forged_standard, now=NOW)) == "signature_mismatch"
        forged_service = {**self.both(), "X-Service-Signature": f"t={NOW},v1={v1_hex(OTHER_SECRET, NOW, BODY)}"}
        assert reason(lambda: WebhookVerifier(SECRET).verify(BODY, forged_service, now=NOW)) == "signature_mismatch"

    def test_forged_altered_stale_and_unsigned(self) -> None:
        verifier = WebhookVerifier(SECRET)
        assert reason(lambda: WebhookVerifier(OTHER_SECRET).verify(BODY, self.both(), now=NOW)) == "signature_mismatch"
        assert reason(lambda: verifier.verify(BODY.replace(b"INV", b"XNV"), self.both(), now=NOW)) == "signature_mismatch"
        assert reason(lambda: verifier.verify(BODY, self.both(), now=NOW + 600)) == "stale_timestamp"
        assert reason(lambda: verifier.verify(BODY, {"content-type": "application/json"}, now=NOW)) == "missing_header"

    def test_a_signed_body_that_is_not_json(self) -> None:
        body = b"not json"
        assert reason(lambda: WebhookVerifier(SECRET).verify(body, self.both(body=body), now=NOW)) == "malformed_body"

    def test_refuses_a_secret_of_another_scheme_up_front(self) -> None:
        with pytest.raises(ValueError):
            WebhookVerifier("")
        with pytest.raises(ValueError):
            WebhookVerifier("whsec_not base64!")
        WebhookVerifier(LEGACY_SECRET, scheme="legacy")


def test_header_value_reads_framework_header_objects() -> None:
    class CaseInsensitive(dict):
        def get(self, key, default=None):
            for name, value in self.items():
                if name.lower() == key.lower():
                    return value
            return default

    assert header_value(CaseInsensitive({"Webhook-Id": "a"}), "webhook-id") == "a"
    assert header_value({"WEBHOOK-ID": "b"}, "webhook-id") == "b"
    assert header_value([("Webhook-Id", "c")], "webhook-id") == "c"
    assert header_value({}, "webhook-id") is None

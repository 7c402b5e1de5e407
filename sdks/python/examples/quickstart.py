"""An integrator's backend against a local Cobro Sandbox, end to end, with the Python SDK:

1. link the merchant account through OAuth (authorization URL with state and PKCE, code exchange);
2. start a webhook receiver (http.server) and register it with the Admin API (the integration admin's side);
3. create a charge (create_or_get: the retry guidance), due 5 days after the Sandbox's today;
4. simulate the payer's transfer (Admin API, simulate_payment);
5. receive the payment_received webhook and verify both its signatures (WebhookVerifier);
6. read the charge back;
7. delete the webhook URL it registered (in a ``finally``): left behind, it would keep receiving the
   integration's events after the receiver is gone.

Run it (README.md, "Run the quick start"), from the repository's root::

    cd sdks/python
    python3 -m venv .venv
    .venv/bin/pip install .
    .venv/bin/python examples/quickstart.py ../../.data/sandbox.json   # or COBRO_SANDBOX_FILE=..., or COBRO_SANDBOX_JSON='{...}'

The Sandbox file is what ``npm start`` writes on its first start (``npm run sandbox:bootstrap -- --json``
prints one). The Sandbox must accept a webhook URL on loopback: start it with COBRO_ALLOW_LOOPBACK_URLS=true.
The last line printed is a JSON summary: ``{"referenceId", "state", "webhook"}``.
"""

from __future__ import annotations

import datetime
import json
import os
import re
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, List
from urllib.parse import parse_qs, urlencode, urljoin, urlsplit

import urllib3

from cobro_sdk import (
    WEBHOOK_ID_HEADER,
    ApiError,
    CobroClient,
    CobroOAuth,
    InMemoryTokenStore,
    WebhookVerifier,
    admin_api_client,
    auth_api_client,
    create_or_get,
    integration_api_client,
)
from cobro_sdk.generated import admin, auth, integration


def say(message: str) -> None:
    print(f"[quickstart] {message}", flush=True)


def read_sandbox() -> Dict[str, Any]:
    path = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("COBRO_SANDBOX_FILE")
    if path:
        with open(path, encoding="utf-8") as file:
            return json.load(file)
    text = os.environ.get("COBRO_SANDBOX_JSON")
    if not text:
        raise SystemExit("pass the Sandbox file (python quickstart.py sandbox.json), or set COBRO_SANDBOX_FILE or COBRO_SANDBOX_JSON")
    return json.loads(text)


def browser_signs_in(authorization_url: str, merchant: Dict[str, str]) -> Dict[str, str]:
    """WHAT THE MERCHANT'S BROWSER DOES, not the integrator's code: open the authorization URL, sign in on
    Cobro's screen, follow the redirect back to the redirect URI. Done over plain HTTP so that the example
    runs unattended: read the form's hidden fields and its CSRF cookie, post the merchant's email and
    password, and take the Location of the 303 instead of following it. Answers the callback's query."""
    http = urllib3.PoolManager()
    screen = http.request("GET", authorization_url)
    page = screen.data.decode("utf-8")
    if screen.status != 200:
        raise RuntimeError(f"the authorization screen answered {screen.status}: {page[:200]}")

    def field(name: str) -> str:
        match = re.search(f'name="{name}" value="([^"]*)"', page)
        return match.group(1) if match else ""

    action = re.search(r'<form[^>]*action="([^"]+)"', page)
    action_url = urljoin(authorization_url, action.group(1) if action else "/integration/oauth2/complete-login")
    cookie = (screen.headers.get("set-cookie") or "").split(";")[0]
    form = {"transaction": field("transaction"), "csrf": field("csrf"), "email": merchant["email"], "password": merchant["password"]}
    sign_in = http.request(
        "POST",
        action_url,
        body=urlencode(form),
        headers={"content-type": "application/x-www-form-urlencoded", "cookie": cookie},
        redirect=False,
    )
    location = sign_in.headers.get("location")
    if sign_in.status != 303 or not location:
        raise RuntimeError(f"the sign-in answered {sign_in.status}: {sign_in.data[:200]!r}")
    return {key: values[0] for key, values in parse_qs(urlsplit(location).query).items()}


class WebhookReceiver:
    """The integrator's webhook endpoint: keeps the raw body and the headers (the signatures are over the exact bytes)."""

    def __init__(self) -> None:
        self.deliveries: List[Dict[str, Any]] = []
        self.arrived = threading.Condition()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                raw_body = self.rfile.read(int(self.headers.get("content-length") or 0))
                with receiver.arrived:
                    receiver.deliveries.append({"raw_body": raw_body, "headers": self.headers})
                    receiver.arrived.notify_all()
                self.send_response(200)  # answer fast; do the work after (here: in main)
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/webhooks/cobro"

    def wait_for(self, reference_id: str, timeout: float) -> Dict[str, Any]:
        """The first delivery whose body names ``reference_id`` (only read to pick it: verified before use)."""
        deadline = time.monotonic() + timeout
        with self.arrived:
            while True:
                for delivery in self.deliveries:
                    if reference_id.encode() in delivery["raw_body"]:
                        return delivery
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"no webhook for {reference_id} within {timeout} s")
                self.arrived.wait(left)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def main() -> None:
    sandbox = read_sandbox()
    client_id = sandbox["integration"]["clientId"]
    client_secret = sandbox["integration"]["clientSecret"]
    redirect_uri = sandbox["integration"]["redirectUri"]

    # 1. Link the merchant account (OAuth 2.0 authorization code with PKCE).
    oauth = CobroOAuth(sandbox["authApiUrl"], client_id, client_secret)
    start = oauth.authorization_url(redirect_uri)  # keep start.state and start.code_verifier (the session)
    say(f"send the merchant's browser to {start.url}")
    callback = browser_signs_in(start.url, sandbox["merchant"])
    if callback.get("state") != start.state:
        raise RuntimeError("the state that came back is not ours: refuse the callback")
    tokens = oauth.exchange_code(callback["code"], redirect_uri, start.code_verifier)
    store = InMemoryTokenStore(tokens)  # a backend keeps them in its database: implement TokenStore
    say(f"merchant linked: idToken until {datetime.datetime.fromtimestamp(tokens.expires_at, datetime.timezone.utc):%H:%M:%S} UTC; keep the refreshToken")
    cobro = CobroClient(
        integration_url=sandbox["integrationApiUrl"],
        auth_url=sandbox["authApiUrl"],
        client_id=client_id,
        client_secret=client_secret,
        token_store=store,
    )
    me = cobro.merchant.get_me()
    say(f"acting for merchant account {me.merchant_user_id} ({me.fantasy_name})")

    # The integration admin's side (usually done once, in the Admin API's console): an admin session.
    session = auth.AdminSessionApi(auth_api_client(sandbox["authApiUrl"])).admin_login(auth.AdminLogin.from_dict(sandbox["integrationAdmin"]))
    admin_client = admin_api_client(sandbox["adminApiUrl"], session.id_token)
    sandbox_tools = admin.SandboxApi(admin_client)
    client_urls = admin.ClientURLsApi(admin_client)

    # Sandbox test tokens: the integration's test merchant account, without the OAuth flow (to try the
    # Integration API in the Sandbox; a real merchant account is linked as above).
    test_tokens = sandbox_tools.create_test_tokens()
    test_merchant = integration.MerchantApi(integration_api_client(sandbox["integrationApiUrl"], test_tokens.id_token))
    say(f"test tokens: the Sandbox's test merchant account is {test_merchant.get_me().merchant_user_id}")

    # 2. The webhook endpoint, registered as the integration's webhook URL (Cobro pings it on registration).
    receiver = WebhookReceiver()
    registered_url_id = None
    try:
        registered = client_urls.create_client_url(admin.ClientUrlCreate(url=receiver.url, url_type=admin.ClientUrlType.WEBHOOK))
        registered_url_id = registered.client_url_id
        signing = admin.WebhooksApi(admin_client).get_webhook_signing_secret()
        verifier = WebhookVerifier(signing.webhook_signing_secret, scheme=signing.scheme.value)
        say(f"webhook URL {receiver.url} registered (receives the events: {registered.receives_events})")

        # 3. A charge, due 5 days after the Sandbox's today. create_or_get is safe to call again after a
        #    timeout or a 5xx: the referenceId is the idempotency key.
        today = datetime.date.fromisoformat(sandbox_tools.get_sandbox_clock().today)
        reference_id = f"QUICKSTART-{int(time.time() * 1000):x}"
        created = create_or_get(
            cobro.payment_requests,
            integration.PaymentRequestCreate(
                reference_id=reference_id,
                description="Cuota de diciembre",
                due_dates=[(today + datetime.timedelta(days=5)).isoformat()],
                amount=1500.5,
                # Reconciled by the payer's CUIL: the transfer below comes from this CUIL.
                conciliation_type="cuil",
                customer=integration.CustomerInput(name="Juan Pérez", tax_document="20301234563"),
                send_whatsapp_notification=False,
                send_email_notification=False,
            ),
        )
        charge = created.payment_request
        say(f"charge {reference_id} {created.outcome}: {charge.state.value}, pay {charge.amount} to CVU {charge.cvu}")

        # 4. The payer transfers (simulated: the Sandbox's stand-in for the bank).
        transfer = sandbox_tools.simulate_payment(
            admin.SimulatePaymentRequest(
                cvu=charge.cvu,
                amount=1500.5,
                external_account_cvu="0000003100000000000017",
                external_account_cuil="20301234563",
                external_account_name="Juan Pérez",
            )
        )
        say(f"transfer {transfer.id_transaccion}: conciliated {transfer.conciliated}")

        # 5. The webhook: both signatures verified over the raw body before anything in it is trusted.
        delivery = receiver.wait_for(reference_id, float(os.environ.get("COBRO_WEBHOOK_TIMEOUT_SECONDS", "15")))
        event = verifier.verify(delivery["raw_body"], delivery["headers"])
        say(
            f"webhook {delivery['headers'].get(WEBHOOK_ID_HEADER)} verified: {event['event']}, stateType {event['stateType']}"
            f" (deduplicate by {WEBHOOK_ID_HEADER})"
        )

        # 6. Read the charge back.
        paid = cobro.payment_requests.get_payment_request(reference_id)
        say(f"charge {reference_id} is {paid.state.value}")

        # 7. Unmatched money: a transfer to a canceled charge's CVU matches no charge; the integration admin
        #    assigns it to the charge it was meant for (the Integration API's UnmatchedPaymentsApi does the
        #    same for its token's merchant account).
        def simple_charge(suffix: str) -> integration.PaymentRequestCreate:
            return integration.PaymentRequestCreate(
                reference_id=f"{reference_id}-{suffix}",
                description="Cuota de diciembre",
                due_dates=[(today + datetime.timedelta(days=5)).isoformat()],
                amount=800,
                customer=integration.CustomerInput(name="Juan Pérez"),
                send_whatsapp_notification=False,
                send_email_notification=False,
            )

        # (The charge it was meant for first: it takes the CVU the paid charge gave back, the canceled one a CVU of its own.)
        meant_for = create_or_get(cobro.payment_requests, simple_charge("M")).payment_request.reference_id
        canceled = cobro.payment_requests.create_payment_request(simple_charge("C"))
        cobro.payment_requests.cancel_payment_request(canceled.reference_id)
        late = sandbox_tools.simulate_payment(
            admin.SimulatePaymentRequest(
                cvu=canceled.cvu,
                amount=800,
                external_account_cvu="0000003100000000000017",
                external_account_cuil="20301234563",
                external_account_name="Juan Pérez",
            )
        )
        unmatched = admin.UnmatchedPaymentsApi(admin_client)
        page = unmatched.list_unmatched_payments(
            state=admin.UnmatchedPaymentState.UNRESOLVED, reason=admin.UnmatchedPaymentReason.CANCELED, merchant_user_id=me.merchant_user_id
        )
        money = next(item for item in page.items if item.transaction_id == late.id_transaccion)
        assignment = unmatched.assign_unmatched_payment(money.unmatched_payment_id, admin.UnmatchedPaymentAssignmentRequest(reference_id=meant_for))
        say(
            f"unmatched transfer {money.transaction_id} ({money.reason.value}) assigned to {assignment.reference_id}:"
            f" {assignment.assigned_amount} applied, the charge is {assignment.payment_request_state.value}"
        )
        #    Another transfer to the canceled charge's CVU is sent back to the account it came from.
        again = sandbox_tools.simulate_payment(
            admin.SimulatePaymentRequest(
                cvu=canceled.cvu,
                amount=800,
                external_account_cvu="0000003100000000000017",
                external_account_cuil="20301234563",
                external_account_name="Juan Pérez",
            )
        )
        unresolved = unmatched.list_unmatched_payments(
            state=admin.UnmatchedPaymentState.UNRESOLVED, reason=admin.UnmatchedPaymentReason.CANCELED, merchant_user_id=me.merchant_user_id
        )
        to_return = next(item for item in unresolved.items if item.transaction_id == again.id_transaccion)
        idempotency_key = str(uuid.uuid4())  # keep it: asked again with it (a lost answer), the same return is answered, not a second one
        returned = unmatched.return_unmatched_payment(to_return.unmatched_payment_id, idempotency_key, admin.UnmatchedPaymentReturnRequest())
        say(f"unmatched transfer {to_return.transaction_id} returned: {returned.amount} to {returned.to_cvu}, {returned.state.value}")
        summary = {
            "referenceId": reference_id,
            "state": paid.state.value,
            "webhook": "verified",
            "event": event["event"],
            "assignedTo": assignment.reference_id,
            "assignedChargeState": assignment.payment_request_state.value,
            "returnState": returned.state.value,
        }
    finally:
        receiver.close()
        # 8. The receiver is gone: delete its URL, or it would keep the integration's events.
        if registered_url_id is not None:
            client_urls.delete_client_url(registered_url_id)
            say(f"webhook URL {receiver.url} deleted")
    print(json.dumps(summary))


if __name__ == "__main__":
    try:
        main()
    except ApiError as error:
        say(f"failed: {error.status} {error.code} {error.message} (id {error.id})")
        sys.exit(1)

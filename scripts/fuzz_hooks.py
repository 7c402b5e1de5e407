# schemathesis hooks for `npm run fuzz` (loaded through SCHEMATHESIS_HOOKS; scripts/fuzz.ts sets it).
#
# The stateful phase follows the contract's links from a charge's create to its read, completion, payer
# change and cancel. Random bodies almost never pass the create's business rules (due dates after today
# and at most 35 days ahead, real dates, flags required with an amount), so most sequences would stop at a
# 400. In the stateful phase only, and for schema-valid bodies only, this hook makes the create's body
# meet those rules; every other phase keeps its bodies as drawn, so the rules' 400s stay fuzzed there.
from datetime import datetime, timedelta, timezone

import schemathesis

ARGENTINA = timezone(timedelta(hours=-3))


def _argentina_date_in(days: int) -> str:
    return (datetime.now(ARGENTINA).date() + timedelta(days=days)).isoformat()


def _is_stateful_positive(case) -> bool:
    meta = case.meta
    return meta is not None and str(meta.phase.name) == "stateful" and str(meta.generation.mode) == "positive"


def _creates_a_charge(case) -> bool:
    return case.operation.method.upper() == "POST" and case.operation.path == "/payment-request"


@schemathesis.hook
def map_case(ctx, case):
    if not (_creates_a_charge(case) and _is_stateful_positive(case) and isinstance(case.body, dict)):
        return case
    body = dict(case.body)
    priced = body.get("amount") is not None
    two_dates = priced and body.get("surcharge") is not None and len(body.get("dueDates") or []) == 2
    body["dueDates"] = [_argentina_date_in(10), _argentina_date_in(20)] if two_dates else [_argentina_date_in(10)]
    if not two_dates:
        body.pop("surcharge", None)
    body["sendWhatsappNotification"] = False
    body["sendEmailNotification"] = False
    # Dates and settings whose rules depend on the ones above, or on a mode, a type or an address: left out.
    for field in ("reminderNotificationDate", "deferredInitialNotificationDate", "webhookUrl", "expiresInMinutes", "type", "conciliationType"):
        body.pop(field, None)
    case.body = body
    return case

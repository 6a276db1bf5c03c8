"""The client libraries' end-to-end scenario, with the Python library (clients/python).

The same steps as e2e/test/support/client-scenario.ts, with the same inputs (the environment) and
the same report, printed as one JSON line on standard output; e2e/test/client-libraries.test.ts
runs it against the real gateway and asserts on the report.
"""
import json
import os
import sys
import time
from datetime import datetime, timedelta, timezone

import smsgw
from smsgw import webhooks

ENV = os.environ
LANG = ENV["SMSGW_LANG"]


def seen(err):
    kinds = [
        (smsgw.InvalidRequestError, "invalid_request"),
        (smsgw.AuthenticationError, "authentication"),
        (smsgw.NotFoundError, "not_found"),
        (smsgw.ConflictError, "conflict"),
        (smsgw.RateLimitError, "rate_limit"),
        (smsgw.ServiceUnavailableError, "unavailable"),
        (smsgw.ServerError, "server"),
    ]
    kind = next((name for cls, name in kinds if isinstance(err, cls)), "other")
    return {"kind": kind, "status": err.status, "code": err.code, "request_id": err.request_id or "", "fields": [d.get("field", "") for d in err.details]}


def refused(call):
    try:
        call()
    except smsgw.APIError as err:
        return seen(err)
    raise AssertionError("the call was expected to fail")


def wait_for(probe, what, timeout=30.0):
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value is not None:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out waiting for {what}")
        time.sleep(0.3)


def deliveries(directory):
    names = sorted(n for n in os.listdir(directory) if n.endswith(".json"))
    out = []
    for n in names:
        with open(os.path.join(directory, n), encoding="utf-8") as f:
            out.append(json.load(f))
    return out


def main():
    common = {"client_id": ENV["SMSGW_CLIENT_ID"], "ca_file": ENV["SMSGW_CA_FILE"], "device_id": ENV["SMSGW_DEVICE_ID"]}
    sms = smsgw.Client(ENV["SMSGW_API_KEY"], base_url=ENV["SMSGW_BASE_URL"], **common)

    auth = sms.auth.test()

    sent = sms.messages.send("+33612345678", f"Bonjour ({LANG})", metadata={"lang": LANG})

    def final():
        m = sms.messages.get(sent["message_id"])
        return m if m["status"] in ("delivered", "failed") else None

    delivered = wait_for(final, "the single message to be delivered")

    bulk = sms.messages.send_bulk(["+33612345001", "+33612345002", "+33612345003"], f"Promo ({LANG})")

    perso = sms.messages.send_personalized(
        [{"to": "+33612345011", "message": f"Bonjour Ana ({LANG})"}, {"to": "+33612345012", "message": f"Bonjour Bo ({LANG})"}]
    )
    texts = [sms.messages.get(m["message_id"])["message"] for m in perso["messages"]]

    later = sms.messages.send("+33612345021", f"Rappel ({LANG})", scheduled_at=datetime.now(timezone.utc) + timedelta(hours=1))
    cancelled = sms.messages.cancel(later["message_id"])
    after = sms.messages.get(later["message_id"])
    cancel_again = refused(lambda: sms.messages.cancel(later["message_id"]))

    via_proxy = smsgw.Client(ENV["SMSGW_API_KEY"], base_url=ENV["SMSGW_PROXY_URL"], **common)
    retried = via_proxy.messages.send("+33612345031", f"Relance ({LANG})")
    retry_history = sms.messages.history(search=f"Relance ({LANG})")

    ids = [m["message_id"] for m in sms.messages.list(limit=3)]
    page2 = sms.messages.history(page=2, limit=3)

    test = smsgw.Client(ENV["SMSGW_TEST_API_KEY"], base_url=ENV["SMSGW_BASE_URL"], **common)
    otp = test.otp.send("+33612345041")
    wrong = test.otp.verify(otp["otp_id"], "000000")
    right = test.otp.verify(otp["otp_id"], "123456")
    otp_again = refused(lambda: test.otp.verify(otp["otp_id"], "123456"))

    invalid_phone = refused(lambda: sms.messages.send("12345", "x"))
    not_found = refused(lambda: sms.messages.get("msg_00000000000000000000000000"))
    bad_key = refused(lambda: smsgw.Client("sgw_live_notakey", base_url=ENV["SMSGW_BASE_URL"], **common).auth.test())

    directory = ENV["SMSGW_WEBHOOK_DIR"]

    def mine(d):
        body = json.loads(d["raw"])
        if d["path"] == ENV["SMSGW_WEBHOOK_PATH"] and body["event"] == "sms.delivered" and body["data"].get("message_id") == sent["message_id"]:
            return body
        return None

    first = wait_for(lambda: next((d for d in deliveries(directory) if mine(d)), None), "the sms.delivered webhook")
    event_id = mine(first)["event_id"]
    open(os.path.join(directory, f"replay-{event_id}.req"), "w").close()

    def copies():
        found = [d for d in deliveries(directory) if (mine(d) or {}).get("event_id") == event_id]
        return found if len(found) >= 2 else None

    both = wait_for(copies, "the replayed webhook")
    secret = ENV["SMSGW_WEBHOOK_SECRET"]
    store = smsgw.MemorySeenEvents()
    event = webhooks.verify(both[0]["raw"].encode("utf-8"), both[0]["signature"], secret, seen=store)

    def reason(call):
        try:
            call()
            return "accepted"
        except smsgw.WebhookVerificationError as err:
            return err.reason

    signed = datetime.fromisoformat(event["timestamp"].replace("Z", "+00:00")).timestamp()
    duplicate = reason(lambda: webhooks.verify(both[1]["raw"].encode("utf-8"), both[1]["signature"], secret, seen=store))
    tampered = reason(lambda: webhooks.verify(both[0]["raw"].replace(sent["message_id"], later["message_id"]), both[0]["signature"], secret))
    stale = reason(lambda: webhooks.verify(both[0]["raw"], both[0]["signature"], secret, now=signed + 600))

    info = smsgw.last_response(retried)
    report = {
        "auth": {"mode": auth["mode"], "client_id": auth["client_id"], "device_id": auth["device_id"]},
        "single": {"message_id": sent["message_id"], "status": sent["status"], "to": sent["to"], "final_status": delivered["status"]},
        "bulk": {
            "batch_id": bulk["batch_id"],
            "total_recipients": bulk["total_recipients"],
            "message_ids": [m["message_id"] for m in bulk["messages"]],
            "statuses": [m["status"] for m in bulk["messages"]],
        },
        "personalized": {"batch_id": perso["batch_id"], "message_ids": [m["message_id"] for m in perso["messages"]], "texts": texts},
        "scheduled": {
            "message_id": later["message_id"],
            "status": later["status"],
            "scheduled": "scheduled_at" in later,
            "cancel_status": cancelled["status"],
            "status_after": after["status"],
            "cancel_again": cancel_again,
        },
        "retry": {
            "message_id": retried["message_id"],
            "idempotency_key": info.idempotency_key or "",
            "attempts": info.attempts,
            "replayed": info.replayed,
            "history_total": retry_history["pagination"]["total_items"],
        },
        "history": {
            "ids": ids,
            "total_items": page2["pagination"]["total_items"],
            "page2": {"current_page": page2["pagination"]["current_page"], "per_page": page2["pagination"]["per_page"], "count": len(page2["data"])},
        },
        "otp": {
            "otp_id": otp["otp_id"],
            "wrong": {"valid": wrong["valid"], "attempts_remaining": wrong.get("attempts_remaining", -1)},
            "right": {"valid": right["valid"]},
            "again": otp_again,
        },
        "errors": {"invalid_phone": invalid_phone, "not_found": not_found, "bad_key": bad_key},
        "webhook": {
            "event": event["event"],
            "event_id": event["event_id"],
            "message_id": event["data"]["message_id"],
            "duplicate": duplicate,
            "tampered": tampered,
            "stale": stale,
        },
    }
    print(json.dumps(report))


if __name__ == "__main__":
    sys.exit(main())

"""Billing fixtures: users with known balances, a signed webhook client."""

import hashlib
import hmac
import json
import time

import pytest
from rest_framework.test import APIClient

SECRET = "whsec-test-0123456789"


@pytest.fixture
def webhook(api, settings):
    settings.PAYMENT_WEBHOOK_SECRET = SECRET

    def deliver(
        body: dict | bytes,
        *,
        signature: str | None = None,
        event_id: str | None = None,
        client: APIClient | None = None,
    ):
        raw = body if isinstance(body, bytes) else json.dumps(body).encode()
        sign = hmac.new(SECRET.encode(), raw, hashlib.sha256).hexdigest()
        headers = {"HTTP_X_PAYMENT_SIGNATURE": sign if signature is None else signature}
        if event_id is not None:
            headers["HTTP_X_PAYMENT_EVENT_ID"] = event_id
        return (client or api).generic(
            "POST",
            "/api/webhooks/payment",
            raw,  # type: ignore[arg-type]  # bytes on purpose: the signature covers the raw body
            content_type="application/json",
            **headers,  # type: ignore[arg-type]
        )

    return deliver


def order_paid(*, notes: dict, order_id: str = "order_1", amount: int = 49900) -> dict:
    return {
        "entity": "event",
        "event": "order.paid",
        "contains": ["payment", "order"],
        "payload": {
            "payment": {"entity": {"id": f"pay_{order_id}", "order_id": order_id, "notes": []}},
            "order": {
                "entity": {"id": order_id, "amount": amount, "currency": "INR", "notes": notes}
            },
        },
        "created_at": int(time.time()),  # signed; older than 24 h is not applied
    }


def subscription_charged(*, notes: dict, payment_id: str = "pay_sub_1") -> dict:
    return {
        "entity": "event",
        "event": "subscription.charged",
        "payload": {
            "subscription": {"entity": {"id": "sub_1", "notes": notes}},
            "payment": {"entity": {"id": payment_id, "amount": 49900, "currency": "INR"}},
        },
        "created_at": int(time.time()),  # signed; older than 24 h is not applied
    }


def payment_failed(*, notes: dict, reason: str = "Card declined by the bank") -> dict:
    return {
        "entity": "event",
        "event": "payment.failed",
        "payload": {
            "payment": {
                "entity": {
                    "id": "pay_failed_1",
                    "notes": notes,
                    "error_code": "BAD_REQUEST_ERROR",
                    "error_description": reason,
                }
            }
        },
        "created_at": int(time.time()),  # signed; older than 24 h is not applied
    }

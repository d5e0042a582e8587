"""GET /api/credits/transactions: the user's own ledger, newest first, paginated."""

import pytest

from accounts.services.users import user_create
from billing.services.credits import credits_grant, credits_spend
from tests.factories import client_for

pytestmark = pytest.mark.django_db


def test_own_ledger_newest_first(ada):
    other = user_create(email="other@example.com")
    credits_spend(user=other, cost=1)
    credits_spend(user=ada, cost=2, reference="ai:gig")
    credits_grant(user=ada, amount=5, reference="promo")
    body = client_for(ada).get("/api/credits/transactions").json()
    rows = body["data"]
    assert [(r["delta"], r["balance_after"], r["reason"], r["reference"]) for r in rows] == [
        (5, 23, "grant", "promo"),
        (-2, 18, "spend", "ai:gig"),
        (20, 20, "signup", ""),
    ]
    assert set(rows[0]) == {"id", "delta", "balance_after", "reason", "reference", "created_at"}
    # Ids are opaque UUIDs, not the sequence that would tell the platform's volume.
    from billing.models import CreditTransaction

    ids = [row["id"] for row in rows]
    assert ids == [
        str(CreditTransaction.objects.get(user=ada, reason=r["reason"]).public_id) for r in rows
    ]
    assert all(len(value) == 36 and value.count("-") == 4 for value in ids)
    assert "meta" not in body


def test_paginated(ada):
    for _ in range(4):
        credits_spend(user=ada, cost=1)
    body = client_for(ada).get("/api/v1/credits/transactions?limit=2&page=3").json()
    assert body["meta"] == {"total": 5, "page": 3, "limit": 2, "totalPages": 3, "hasMore": False}
    assert [r["reason"] for r in body["data"]] == ["signup"]


def test_needs_a_token(api):
    assert api.get("/api/credits/transactions").status_code == 401

"""Operators: grant_credits command, ledger and payment-event admin, the grant action."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from billing.models import CreditTransaction, PaymentEvent
from tests.billing.conftest import order_paid

pytestmark = pytest.mark.django_db


def grant(*args: str) -> str:
    out = StringIO()
    call_command("grant_credits", *args, stdout=out)
    return out.getvalue()


def test_grant_credits_command(ada):
    assert "+10 credits, balance 30" in grant(
        "--email", "ADA@example.com", "--credits", "10", "--reason", "support"
    )
    entry = CreditTransaction.objects.filter(user=ada).first()
    assert entry is not None
    assert (entry.delta, entry.reason, entry.reference) == (10, "grant", "operator: support")


def test_negative_adjustment_never_goes_below_zero(ada):
    assert "-20 credits, balance 0" in grant(
        "--email", "ada@example.com", "--credits", "-99", "--reason", "fraud"
    )
    assert "nothing changed" in grant(
        "--email", "ada@example.com", "--credits", "-1", "--reason", "x"
    )
    ada.refresh_from_db()
    assert ada.credits_remaining == 0


def test_unknown_email_and_zero_are_errors(ada):
    with pytest.raises(CommandError, match="No user"):
        grant("--email", "nobody@example.com", "--credits", "5", "--reason", "x")
    with pytest.raises(CommandError, match="must not be 0"):
        grant("--email", "ada@example.com", "--credits", "0", "--reason", "x")


@pytest.mark.parametrize(
    "path",
    [
        "/admin/billing/credittransaction/",
        "/admin/billing/credittransaction/?reason__exact=signup&q=ada",
        "/admin/billing/paymentevent/",
        "/admin/billing/paymentevent/?status__exact=unmatched&event_type=order.paid",
    ],
)
def test_billing_admin_pages(admin_client, ada, path):
    assert admin_client.get(path).status_code == 200


def test_ledger_admin_is_read_only(admin_client, ada):
    entry = CreditTransaction.objects.get(user=ada)
    assert admin_client.get("/admin/billing/credittransaction/add/").status_code == 403
    response = admin_client.post(
        f"/admin/billing/credittransaction/{entry.pk}/delete/", {"post": "yes"}
    )
    assert response.status_code == 403
    assert CreditTransaction.objects.filter(pk=entry.pk).exists()


def test_payment_event_page_shows_the_raw_payload_and_reapplies(admin_client, webhook):
    webhook(order_paid(notes={"email": "late@example.com", "plan": "pro"}), event_id="evt_x")
    event = PaymentEvent.objects.get()
    page = admin_client.get(f"/admin/billing/paymentevent/{event.pk}/change/")
    assert page.status_code == 200
    assert "late@example.com" in page.content.decode()
    from accounts.services.users import user_create

    late = user_create(email="late@example.com")
    response = admin_client.post(
        "/admin/billing/paymentevent/", {"action": "reapply", "_selected_action": [event.pk]}
    )
    assert response.status_code == 302
    late.refresh_from_db()
    assert late.plan == "pro"


def test_grant_credits_admin_action(admin_client, ada):
    ask = admin_client.post(
        "/admin/accounts/user/", {"action": "grant_credits", "_selected_action": [ada.pk]}
    )
    assert ask.status_code == 200
    assert "ada@example.com" in ask.content.decode()
    done = admin_client.post(
        "/admin/accounts/user/",
        {
            "action": "grant_credits",
            "_selected_action": [ada.pk],
            "apply": "1",
            "credits": "7",
            "reason": "goodwill",
        },
    )
    assert done.status_code == 302
    ada.refresh_from_db()
    assert ada.credits_remaining == 27


def test_reapply_names_each_events_outcome(admin_client, webhook, ada):
    webhook(order_paid(notes={"email": "ghost@example.com", "plan": "pro"}), event_id="evt_ghost")
    webhook(order_paid(notes={"email": "ada@example.com", "plan": "gold"}), event_id="evt_gold")
    webhook(
        order_paid(notes={"email": "ada@example.com", "plan": "pro"}, order_id="order_ok"),
        event_id="evt_ok",
    )
    ids = list(PaymentEvent.objects.values_list("pk", flat=True))
    response = admin_client.post(
        "/admin/billing/paymentevent/",
        {"action": "reapply", "_selected_action": ids},
        follow=True,
    )
    texts = sorted(str(message) for message in response.context["messages"])
    assert texts == [
        "evt_ghost: still unmatched: No user matches notes.user_id or notes.email",
        "evt_gold: still invalid: Unknown plan 'gold'",
        "evt_ok: left alone (it is applied).",
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--credits", "10" * 20], "--credits must be between 1 and 1,000,000"),
        (["--credits", "1000001"], "--credits must be between 1 and 1,000,000"),
        (["--credits", "-1000001"], "--credits must be between 1 and 1,000,000"),
        (["--credits", "5", "--reason", "   "], "--reason must say why"),
    ],
)
def test_grant_credits_refuses_bad_input_with_a_clear_error(ada, args, message):
    options = ["--email", "ada@example.com", "--reason", "promo", *args]
    with pytest.raises(CommandError, match=message):
        call_command("grant_credits", *options, stdout=StringIO())
    ada.refresh_from_db()
    assert ada.credits_remaining == 20

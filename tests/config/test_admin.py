"""Admin smoke tests: an e-mail superuser signs in and every user page renders."""

import pytest
from django.core.management import call_command

from accounts.models import Role, User

pytestmark = pytest.mark.django_db


def test_createsuperuser_takes_an_email(monkeypatch):
    monkeypatch.setenv("DJANGO_SUPERUSER_PASSWORD", "s3cret-pass")
    call_command("createsuperuser", email="root@example.com", interactive=False, verbosity=0)
    user = User.objects.get(email="root@example.com")
    assert user.role == Role.ADMIN
    assert user.is_staff
    assert user.is_superuser
    assert user.check_password("s3cret-pass")


@pytest.mark.parametrize(
    ("password", "message"),
    [("123", "too short"), ("12345678", "entirely numeric"), ("password", "too common"),
     ("rootexample", "too similar to the email")],
)  # fmt: skip
def test_createsuperuser_without_a_terminal_runs_the_password_validators(
    monkeypatch, password, message
):
    from django.core.management import CommandError

    monkeypatch.setenv("DJANGO_SUPERUSER_PASSWORD", password)
    with pytest.raises(CommandError, match=message):
        call_command("createsuperuser", email="root@example.com", interactive=False, verbosity=0)
    assert not User.objects.exists()


@pytest.mark.server
def test_make_superuser_refuses_a_weak_password(tmp_path):
    import os
    import subprocess
    import sys

    from tests.servers import ROOT, migrate

    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.local",
           "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
           "DJANGO_SUPERUSER_EMAIL": "ops@example.com", "DJANGO_SUPERUSER_PASSWORD": "123",
           "VENV": str(os.path.dirname(os.path.dirname(sys.executable)))}  # fmt: skip
    migrate(env)
    command = [sys.executable, "manage.py", "createsuperuser", "--noinput"]
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode != 0
    assert "too short" in result.stderr


def test_admin_login_page_renders(client):
    response = client.get("/admin/login/")
    assert response.status_code == 200
    assert b"Freelancer Growth" in response.content


def test_login_with_email_in_any_case(client):
    User.objects.create_superuser(email="ops@example.com", password="s3cret-pass")
    assert client.login(username="OPS@example.com", password="s3cret-pass")


@pytest.mark.parametrize(
    "path",
    ["/admin/", "/admin/accounts/user/", "/admin/accounts/user/?q=ops&role__exact=admin"],
)
def test_admin_pages_render(admin_client, path):
    assert admin_client.get(path).status_code == 200


def test_user_change_page_renders(admin_client):
    user = User.objects.create_user(email="someone@example.com")
    assert admin_client.get(f"/admin/accounts/user/{user.pk}/change/").status_code == 200


def test_regular_users_cannot_enter_the_admin(client):
    user = User.objects.create_user(email="user@example.com", password="pw123456")
    client.force_login(user)
    response = client.get("/admin/")
    assert response.status_code == 302
    assert "/admin/login/" in response["Location"]


def _every_model_admin() -> list:
    from django.contrib import admin

    return sorted(admin.site._registry.items(), key=lambda item: item[0]._meta.label)


def test_every_changelist_renders_empty(admin_client):
    for model, _ in _every_model_admin():
        opts = model._meta
        response = admin_client.get(f"/admin/{opts.app_label}/{opts.model_name}/")
        assert response.status_code == 200, opts.label


def test_every_changelist_and_change_page_renders_with_rows(admin_client, settings):
    """One of each row an operator may meet, written through the API and the services."""
    import hashlib
    import hmac
    import json
    import time

    from rest_framework.test import APIClient

    from accounts.services.sessions import session_issue
    from accounts.services.users import user_create
    from notifications import events

    user = user_create(email="ada@example.com", password="Quiet-lake-42")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {session_issue(user=user).token}")
    for path, body in (
        ("/api/seo/audit", {"title": "Logo", "description": "Logo design."}),
        ("/api/gig/generate", {"service": "Logo design"}),
        ("/api/proposal/generate", {"jobDescription": "Design a logo for a small bakery, please."}),
    ):
        assert api.post(path, body).status_code == 200, path
    APIClient().post("/api/auth/magic-link", {"email": "ada@example.com"})
    events.emit(
        user=user, payload=events.credits_depleted(user_id=str(user.pk), remaining_credits=0)
    )
    settings.PAYMENT_WEBHOOK_SECRET = "whsec-admin-smoke"
    raw = json.dumps(
        {
            "event": "order.paid",
            "payload": {
                "order": {
                    "entity": {
                        "id": "order_smoke",
                        "amount": 49900,
                        "currency": "INR",
                        "notes": {"email": "ada@example.com", "plan": "pro"},
                    }
                }
            },
            "created_at": int(time.time()),
        }
    ).encode()
    signature = hmac.new(b"whsec-admin-smoke", raw, hashlib.sha256).hexdigest()
    APIClient().generic(
        "POST",
        "/api/webhooks/payment",
        raw,  # type: ignore[arg-type]  # bytes on purpose: the signature covers the raw body
        content_type="application/json",
        HTTP_X_PAYMENT_SIGNATURE=signature,
    )
    opened = []
    for model, _ in _every_model_admin():
        opts = model._meta
        base = f"/admin/{opts.app_label}/{opts.model_name}/"
        assert admin_client.get(base).status_code == 200, opts.label
        row = model._default_manager.first()
        if row is not None:
            response = admin_client.get(f"{base}{row.pk}/change/")
            assert response.status_code == 200, opts.label
            opened.append(opts.label)
    for label in (
        "accounts.User",
        "aitools.Generation",
        "aitools.Gig",
        "aitools.Proposal",
        "billing.CreditTransaction",
        "billing.PaymentEvent",
        "notifications.Notification",
    ):
        assert label in opened, label
    # The user's page answers "why was I charged?": ledger rows, AI calls, notifications.
    page = admin_client.get(f"/admin/accounts/user/{user.pk}/change/").content.decode()
    for heading in ("Latest credit changes", "Latest AI calls", "Latest notifications"):
        assert heading in page


# --- The admin's look: names, times, contrast, JSON ---------------------------------------------


@pytest.fixture
def delivery(ada):
    from datetime import UTC, datetime

    from notifications.models import WebhookDelivery, WebhookEndpoint

    personal = ada.personal_workspace
    endpoint = WebhookEndpoint.objects.create(
        user=ada, workspace=personal, url="https://hooks.example.com/in"
    )
    return WebhookDelivery.objects.create(
        endpoint=endpoint,
        workspace=personal,
        event_id="6f1c3f0e-7a52-4d0e-9a61-1b2c3d4e5f60",
        event="post.published",
        body='{"type":"post.published","data":{"postId":"p1","platforms":["devto"]}}',
        created_at=datetime(2026, 3, 4, 10, 20, 30, tzinfo=UTC),
    )


def test_every_model_is_named_in_good_english(admin_client):
    import re

    from django.apps import apps

    plurals = {str(model._meta.verbose_name_plural) for model in apps.get_models()}
    assert "webhook deliveries" in plurals
    # Django adds an "s": "deliverys", "statuss"; "API keys" is right.
    assert [plural for plural in plurals if re.search(r"([^aeiou]ys|ss)$", plural)] == []
    assert b"Webhook deliveries" in admin_client.get("/admin/").content


def test_admin_times_have_seconds(admin_client, delivery):
    listing = admin_client.get("/admin/notifications/webhookdelivery/").content.decode()
    assert "2026-03-04 10:20:30" in listing
    page = admin_client.get(f"/admin/notifications/webhookdelivery/{delivery.pk}/change/")
    assert "2026-03-04 10:20:30" in page.content.decode()


def test_a_delivery_s_body_is_shown_as_indented_json(admin_client, delivery):
    import html
    import re

    page = admin_client.get(f"/admin/notifications/webhookdelivery/{delivery.pk}/change/")
    shown = re.search(r'<pre class="json">(.*?)</pre>', page.content.decode(), re.S)
    assert shown is not None
    assert html.unescape(shown.group(1)) == (
        '{\n  "type": "post.published",\n  "data": {\n    "postId": "p1",\n'
        '    "platforms": [\n      "devto"\n    ]\n  }\n}'
    )


def luminance(color: str) -> float:
    channels = [int(color[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(one: str, other: str) -> float:
    high, low = sorted((luminance(one), luminance(other)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_the_status_page_s_colours_are_readable(admin_client):
    # WCAG AA: 4.5:1 for text, in the light theme (white) and the dark one (Django's #121212).
    import re

    page = admin_client.get("/admin/status/").content.decode()
    for theme, background in (("light", "#ffffff"), ("dark", "#121212")):
        block = re.search(rf"/\* {theme} \*/(.*?)}}", page, re.S)
        assert block is not None, theme
        colours = dict(re.findall(r"--fgp-(\w+)-fg: (#[0-9a-f]{6})", block.group(1)))
        assert set(colours) == {"ok", "bad"}
        for name, colour in colours.items():
            assert contrast(colour, background) >= 4.5, (theme, name, colour)
    assert re.search(r"\.good \{ color: var\(--fgp-ok-fg\)", page)
    assert re.search(r"\.bad \{ color: var\(--fgp-bad-fg\)", page)

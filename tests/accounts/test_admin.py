"""Admin: operators list, search and filter users, and change role and plan through services."""

import pytest

from accounts.models import MagicLinkToken, Role, User
from accounts.services.users import user_create

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "path",
    [
        "/admin/accounts/user/",
        "/admin/accounts/user/?q=ada",
        "/admin/accounts/user/?role__exact=admin&plan__exact=free",
        "/admin/accounts/user/add/",
        "/admin/accounts/magiclinktoken/",
        "/admin/token_blacklist/outstandingtoken/",
    ],
)
def test_admin_pages_render(admin_client, path):
    User.objects.create_user(email="ada@example.com", full_name="Ada")
    assert admin_client.get(path).status_code == 200


def test_user_list_shows_the_columns(admin_client):
    User.objects.create_user(email="ada@example.com", full_name="Ada Lovelace")
    html = admin_client.get("/admin/accounts/user/").content.decode()
    for heading in ("Email", "Full name", "Role", "Plan", "Credits remaining", "Monthly quota"):
        assert heading in html
    assert "ada@example.com" in html


def test_change_role_and_plan_through_the_form(admin_client, settings):
    user = user_create(email="ada@example.com")
    page = admin_client.get(f"/admin/accounts/user/{user.pk}/change/")
    assert page.status_code == 200
    response = admin_client.post(
        f"/admin/accounts/user/{user.pk}/change/",
        {
            "full_name": "Ada L.",
            "avatar_url": "",
            "role": "admin",
            "plan": "pro",
            "is_active": "on",
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    user.refresh_from_db()
    assert (user.full_name, user.role, user.plan) == ("Ada L.", Role.ADMIN, "pro")
    assert user.is_staff
    assert user.monthly_quota == settings.PLANS["pro"]["monthly_quota"]
    assert user.credits_remaining == settings.FREE_PLAN_CREDITS  # balances move only by ledger


def test_an_unknown_plan_is_refused_by_the_form(admin_client):
    user = User.objects.create_user(email="ada@example.com")
    response = admin_client.post(
        f"/admin/accounts/user/{user.pk}/change/",
        {"full_name": "", "avatar_url": "", "role": "user", "plan": "platinum", "is_active": "on"},
    )
    assert response.status_code == 200  # the form again, with its error
    user.refresh_from_db()
    assert user.plan == "free"


def test_add_user_through_the_service(admin_client, settings):
    response = admin_client.post(
        "/admin/accounts/user/add/",
        {"email": "new@example.com", "full_name": "New", "password": "Quiet-lake-42"},
    )
    assert response.status_code == 302
    user = User.objects.get(email="new@example.com")
    assert user.check_password("Quiet-lake-42")
    assert user.credits_remaining == settings.FREE_PLAN_CREDITS


def test_magic_links_are_read_only(admin_client):
    assert admin_client.get("/admin/accounts/magiclinktoken/add/").status_code == 403
    assert MagicLinkToken.objects.count() == 0


def test_the_admin_refuses_a_weak_password(admin_client):
    response = admin_client.post(
        "/admin/accounts/user/add/",
        {"email": "weak@example.com", "full_name": "Weak", "password": "password"},
    )
    assert response.status_code == 200  # the form again, with the validator's message
    assert "This password is too common." in response.content.decode()
    assert not User.objects.filter(email="weak@example.com").exists()


def test_admin_sign_in_is_throttled_per_operator_and_address(client, settings, caplog):
    import logging

    User.objects.create_superuser(email="root@example.com", password="Root-pass-2026")
    settings.LOGIN_FREE_FAILURES = 100
    settings.LOGIN_FAILURES_PER_CLIENT = 5
    with caplog.at_level(logging.WARNING):
        for _ in range(5):
            wrong = client.post(
                "/admin/login/", {"username": "root@example.com", "password": "guess-again"}
            )
            assert wrong.status_code == 200  # the form again
    assert sum("Failed admin-login" in r.getMessage() for r in caplog.records) == 5
    # The right password from this address is refused now...
    right = client.post(
        "/admin/login/", {"username": "root@example.com", "password": "Root-pass-2026"}
    )
    assert right.status_code == 200
    assert "Too many failed sign-in attempts" in right.content.decode()
    # ...but not from the operator's own address.
    elsewhere = client.post(
        "/admin/login/",
        {"username": "root@example.com", "password": "Root-pass-2026"},
        REMOTE_ADDR="203.0.113.9",
    )
    assert elsewhere.status_code == 302


def test_api_keys_are_listed_never_shown_and_revoked_by_operators(admin_client):
    from accounts.models import ApiKey
    from tests.factories import api_key_for, client_with_key

    ada = user_create(email="ada@example.com")
    secret = api_key_for(ada, "posts:read", name="Zapier")
    key = ApiKey.objects.get()
    pages = [
        admin_client.get(path).content.decode()
        for path in (
            "/admin/accounts/apikey/",
            "/admin/accounts/apikey/?q=ada",
            "/admin/accounts/apikey/?revoked_at__isempty=1",
            f"/admin/accounts/apikey/{key.pk}/change/",
            f"/admin/accounts/user/{ada.pk}/change/",  # the user's page: its "API keys" panel
        )
    ]
    for html in pages:
        assert "Zapier" in html
        assert key.prefix in html
        assert secret not in html
        assert key.key_hash not in html
    assert "posts:read" in pages[0]
    assert "live" in pages[0]
    response = admin_client.post(
        "/admin/accounts/apikey/", {"action": "revoke", "_selected_action": [str(key.pk)]}
    )
    assert response.status_code == 302
    key.refresh_from_db()
    assert key.revoked_at is not None
    assert client_with_key(secret).get("/api/social/posts").status_code == 401
    assert ApiKey.objects.count() == 1  # kept, marked, for the audit trail

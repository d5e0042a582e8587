"""POST /api/auth/login: validation, first login, passwords, profile sync, abuse limits."""

import pytest

from accounts.models import User
from accounts.services.login import login_delay

pytestmark = pytest.mark.django_db

PROFILE_FIELDS = {
    "id",
    "email",
    "full_name",
    "avatar_url",
    "role",
    "credits_remaining",
    "monthly_quota",
}


@pytest.mark.parametrize("prefix", ["/api", "/api/v1"])
def test_first_login_creates_the_user(api, prefix, settings):
    response = api.post(
        f"{prefix}/auth/login",
        {"email": "new@example.com", "fullName": "New Person", "password": "Quiet-lake-42"},
    )
    assert response.status_code == 200
    body = response.json()
    assert body["success"] is True
    assert body["message"] == "Account created"
    assert set(body["data"]) == {"token", "refreshToken", "user"}
    user = User.objects.get(email="new@example.com")
    assert body["data"]["user"] == {
        "id": str(user.id),
        "email": "new@example.com",
        "full_name": "New Person",
        "avatar_url": "",
        "role": "user",
        "credits_remaining": settings.FREE_PLAN_CREDITS,
        "monthly_quota": settings.FREE_PLAN_CREDITS,
    }
    assert user.plan == "free"
    assert user.check_password("Quiet-lake-42")


@pytest.mark.parametrize(
    ("body", "details"),
    [
        ({}, {"email": ["This field is required."]}),
        ({"email": "not-an-email"}, {"email": ["Enter a valid email address."]}),
        (
            {"email": "a@example.com", "password": "12345"},
            {"password": ["Ensure this field has at least 6 characters."]},
        ),
        (
            {"email": "a@example.com", "fullName": 42 * "x" * 10},
            {"fullName": ["Ensure this field has no more than 200 characters."]},
        ),
    ],
)
def test_invalid_bodies_are_400_and_create_nothing(api, body, details):
    response = api.post("/api/auth/login", body)
    assert response.status_code == 400
    assert response.json() == {
        "success": False,
        "message": "Validation Failed",
        "error": {"code": "validation_error", "details": details},
    }
    assert not User.objects.exists()


def test_existing_user_with_right_password(api, ada_with_password):
    response = api.post(
        "/api/auth/login", {"email": "ada@example.com", "password": "correct-horse"}
    )
    assert response.status_code == 200
    assert response.json()["message"] == "Login successful"
    assert response.json()["data"]["user"]["id"] == str(ada_with_password.id)


def test_wrong_password_is_401_and_changes_nothing(api, ada_with_password):
    before = User.objects.values().get(pk=ada_with_password.pk)
    response = api.post(
        "/api/auth/login",
        {"email": "ada@example.com", "password": "wrong-horse", "fullName": "Mallory"},
    )
    assert response.status_code == 401
    assert response.json() == {
        "success": False,
        "message": "Invalid e-mail or password.",
        "error": {"code": "invalid_credentials", "details": {}},
    }
    assert User.objects.values().get(pk=ada_with_password.pk) == before
    assert User.objects.count() == 1


def test_missing_password_for_an_account_with_one_is_401(api, ada_with_password):
    response = api.post("/api/auth/login", {"email": "ada@example.com"})
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "invalid_credentials"


def test_no_email_only_login_into_a_passwordless_account(api, passwordless_user):
    for body in (
        {"email": "grace@example.com"},
        {"email": "grace@example.com", "password": "guess123"},
    ):
        response = api.post("/api/auth/login", body)
        assert response.status_code == 401
        assert "magic link" in response.json()["message"]
    assert not User.objects.get(pk=passwordless_user.pk).has_usable_password()


def test_email_is_matched_case_insensitively(api, ada_with_password):
    response = api.post(
        "/api/auth/login", {"email": "ADA@Example.COM", "password": "correct-horse"}
    )
    assert response.status_code == 200
    assert response.json()["data"]["user"]["id"] == str(ada_with_password.id)
    assert User.objects.count() == 1


def test_email_uniqueness_is_a_database_constraint(ada_with_password):
    from django.db import IntegrityError, transaction

    with pytest.raises(IntegrityError), transaction.atomic():
        User.objects.create(email="ADA@EXAMPLE.COM")


def test_bearer_token_syncs_its_own_profile(ada_session_client, ada_with_password):
    response = ada_session_client.post(
        "/api/auth/login", {"email": "Ada@example.com", "fullName": "Ada L."}
    )
    assert response.status_code == 200
    ada_with_password.refresh_from_db()
    assert ada_with_password.full_name == "Ada L."
    assert ada_with_password.check_password("correct-horse")  # unchanged: the token proved identity


def test_bearer_token_with_another_users_email_is_409(
    ada_session_client, ada_with_password, passwordless_user
):
    response = ada_session_client.post(
        "/api/auth/login", {"email": "grace@example.com", "fullName": "Hijack"}
    )
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "conflict"
    passwordless_user.refresh_from_db()
    ada_with_password.refresh_from_db()
    assert (passwordless_user.full_name, ada_with_password.full_name) == ("", "Ada")


def test_invalid_bearer_token_on_login_is_401(api, ada_with_password):
    api.credentials(HTTP_AUTHORIZATION="Bearer not.a.token")
    response = api.post(
        "/api/auth/login", {"email": "ada@example.com", "password": "correct-horse"}
    )
    assert response.status_code == 401
    assert response.json()["message"] == "Unauthorized: Session expired or invalid"


def test_repeated_wrong_passwords_are_slowed_down_then_stopped(api, ada_with_password, settings):
    settings.LOGIN_FREE_FAILURES = 2
    settings.LOGIN_FAILURES_PER_CLIENT = 4
    for _ in range(2):  # the free ones
        response = api.post("/api/auth/login", {"email": "ada@example.com", "password": "no-no-no"})
        assert response.status_code == 401
    # Then each try must wait after the last failure, 1 s, 2 s, 4 s...
    assert login_delay(2) == 1
    assert login_delay(3) == 2
    assert login_delay(30) == settings.LOGIN_MAX_DELAY_SECONDS
    waiting = api.post("/api/auth/login", {"email": "ada@example.com", "password": "no-no-no"})
    assert waiting.status_code == 429
    assert waiting.json()["message"].startswith("Too many failed sign-in attempts. Wait")
    assert waiting["Retry-After"] == "1"
    # After the limit the address is stopped for this e-mail, even with the right password...
    for _ in range(2):
        _forget_last_failure(ada_with_password.email, "127.0.0.1")
        api.post("/api/auth/login", {"email": "ada@example.com", "password": "no-no-no"})
    _forget_last_failure(ada_with_password.email, "127.0.0.1")
    response = api.post(
        "/api/auth/login", {"email": "ada@example.com", "password": "correct-horse"}
    )
    assert response.status_code == 429
    assert response.json()["error"]["code"] == "rate_limited"
    assert 1 <= int(response["Retry-After"]) <= settings.LOGIN_FAILURE_WINDOW_SECONDS
    # ...but the owner still gets in from their own address.
    response = api.post(
        "/api/auth/login",
        {"email": "ada@example.com", "password": "correct-horse"},
        REMOTE_ADDR="203.0.113.50",
    )
    assert response.status_code == 200


def _forget_last_failure(email: str, address: str) -> None:
    """Stand in for the passing of time: the delay since the last failure is over."""
    from django.core.cache import cache

    from accounts.services.login import failure_keys
    from core.ratelimit import _key

    cache.delete(f"{_key(failure_keys(email, address)[0])}:last")


def test_strangers_failures_from_many_addresses_never_lock_the_owner_out(
    api, ada_with_password, settings
):
    settings.LOGIN_FAILURES_PER_CLIENT = 10
    for n in range(50):  # 50 failures from 5 addresses, as in the attack review
        api.post(
            "/api/auth/login",
            {"email": "ada@example.com", "password": "x" * 8},
            REMOTE_ADDR=f"198.51.100.{n % 5}",
        )
    response = api.post(
        "/api/auth/login",
        {"email": "ada@example.com", "password": "correct-horse"},
        REMOTE_ADDR="192.0.2.9",
    )
    assert response.status_code == 200


def test_one_address_failing_across_many_e_mails_is_stopped(api, settings):
    from accounts.services.users import user_create

    settings.LOGIN_FAILURES_PER_ADDRESS = 5
    settings.LOGIN_FREE_FAILURES = 100
    for n in range(6):
        user_create(email=f"user{n}@example.com", password="Right-pass-42")
    for n in range(5):
        response = api.post(
            "/api/auth/login", {"email": f"user{n}@example.com", "password": "Wr0ng-pass!"}
        )
        assert response.status_code == 401
    response = api.post(
        "/api/auth/login", {"email": "user5@example.com", "password": "Right-pass-42"}
    )
    assert response.status_code == 429


def test_a_success_clears_the_failure_count(api, ada_with_password, settings):
    settings.LOGIN_FAILURES_PER_CLIENT = 3
    for _ in range(2):
        api.post("/api/auth/login", {"email": "ada@example.com", "password": "nope-nope"})
    assert (
        api.post(
            "/api/auth/login", {"email": "ada@example.com", "password": "correct-horse"}
        ).status_code
        == 200
    )
    for _ in range(2):
        api.post("/api/auth/login", {"email": "ada@example.com", "password": "nope-nope"})
    assert (
        api.post(
            "/api/auth/login", {"email": "ada@example.com", "password": "correct-horse"}
        ).status_code
        == 200
    )


def test_wrong_content_type_is_415(api):
    response = api.generic(
        "POST", "/api/auth/login", "email=a@example.com", content_type="text/plain"
    )
    assert response.status_code == 415


@pytest.mark.parametrize(
    ("password", "messages"),
    [
        ("password", ["This password is too common."]),
        ("qwertyuiop", ["This password is too common."]),
        (
            "12345678",
            ["This password is too common.", "This password is entirely numeric."],
        ),
        ("48205713", ["This password is entirely numeric."]),
        ("newcomer@example", ["The password is too similar to the email."]),
    ],
)
def test_weak_passwords_are_refused_with_the_validators_messages(api, password, messages):
    response = api.post("/api/auth/login", {"email": "newcomer@example.com", "password": password})
    assert response.status_code == 400
    assert response.json()["error"] == {
        "code": "validation_error",
        "details": {"password": messages},
    }
    assert not User.objects.filter(email="newcomer@example.com").exists()


@pytest.mark.parametrize("name", ["<script>alert(1)</script>", "Ada <b>L</b>", "Ada\x07L"])
def test_markup_in_a_name_is_refused(api, name):
    response = api.post(
        "/api/auth/login",
        {"email": "named@example.com", "password": "Quiet-lake-42", "fullName": name},
    )
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {
        "fullName": ["Use plain text: no < or > and no control characters."]
    }
    assert not User.objects.filter(email="named@example.com").exists()


def test_unicode_and_punycode_forms_of_a_domain_are_one_account(api):
    first = api.post(
        "/api/auth/login", {"email": "ana@bücher.example", "password": "Quiet-lake-42"}
    )
    assert first.status_code == 200, first.json()
    assert first.json()["data"]["user"]["email"] == "ana@xn--bcher-kva.example"
    again = api.post(
        "/api/auth/login", {"email": "ANA@XN--BCHER-KVA.example", "password": "Quiet-lake-42"}
    )
    assert again.status_code == 200
    assert again.json()["message"] != "Account created"
    assert User.objects.count() == 1


@pytest.mark.parametrize("password", ["qz7!kp", "Tulip-9"])
def test_passwords_of_six_characters_or_more_are_accepted(api, password):
    # The specification's rule: at least 6 characters (PASSWORD_MIN_LENGTH).
    response = api.post("/api/auth/login", {"email": "new@example.com", "password": password})
    assert response.status_code == 200, response.content
    assert User.objects.get().check_password(password)


@pytest.mark.parametrize(
    ("password", "message"),
    [
        ("123456", "This password is entirely numeric."),
        ("qwerty", "This password is too common."),
        ("newexample", "The password is too similar to the email."),
    ],
)
def test_common_numeric_and_similar_passwords_are_still_refused(api, password, message):
    response = api.post("/api/auth/login", {"email": "new@example.com", "password": password})
    assert response.status_code == 400
    assert message in response.json()["error"]["details"]["password"]
    assert not User.objects.exists()

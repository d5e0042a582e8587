"""Magic links: same answer for every address, hashed single-use tokens, takeover revocation."""

import hashlib
import threading
import time
from datetime import timedelta
from typing import cast
from urllib.parse import parse_qs, urlparse

import pytest
from django.core import mail
from django.core.mail import EmailMultiAlternatives
from django.db import connection
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import MagicLinkToken, User, email_mailbox
from accounts.services.sessions import session_issue
from billing.models import CreditTransaction
from notifications.models import Notification

pytestmark = pytest.mark.django_db


@pytest.fixture
def request_link(api, django_capture_on_commit_callbacks):
    def send(email: str, **extra):
        # The e-mail is queued on commit, and a test's transaction never commits: the
        # request runs its on-commit callbacks as a committed request would.
        with django_capture_on_commit_callbacks(execute=True):
            return api.post("/api/auth/magic-link", {"email": email}, **extra)

    return send


def token_of(url: str) -> str:
    return parse_qs(urlparse(url).query)["token"][0]


def test_link_is_built_from_app_url_and_mailed(api, settings, request_link):
    settings.APP_URL = "https://app.example.com"
    settings.MAGIC_LINK_EXPOSE_URL = True
    settings.ALLOWED_HOSTS = ["*"]  # a Host the server accepts, and still not used in the link
    response = request_link("New@Example.com", HTTP_HOST="evil.example.net")
    assert response.status_code == 200
    url = response.json()["data"]["magicUrl"]
    assert url.startswith("https://app.example.com/auth/magic-verify?token=")
    assert len(token_of(url)) >= 43  # 32 random bytes, base64url
    assert len(mail.outbox) == 1
    message = cast(EmailMultiAlternatives, mail.outbox[0])
    assert message.to == ["new@example.com"]
    assert url in message.body
    assert url in str(message.alternatives[0][0])
    assert message.alternatives[0][1] == "text/html"


def test_only_the_hash_is_stored(api, settings, request_link):
    settings.MAGIC_LINK_EXPOSE_URL = True
    token = token_of(request_link("a@example.com").json()["data"]["magicUrl"])
    stored = MagicLinkToken.objects.get()
    assert stored.token_hash == hashlib.sha256(token.encode()).hexdigest()
    assert token not in str(MagicLinkToken.objects.values().get())
    assert stored.expires_at - stored.created_at == timedelta(minutes=15)


def test_same_answer_for_known_and_unknown_addresses(
    api, ada_with_password, settings, request_link
):
    settings.MAGIC_LINK_EXPOSE_URL = False
    known = request_link("ada@example.com")
    unknown = request_link("nobody@example.com")
    assert known.status_code == unknown.status_code == 200
    assert (
        known.json()
        == unknown.json()
        == {
            "success": True,
            "message": "If this address can receive e-mail, a sign-in link is on its way.",
            "data": {},
        }
    )
    assert len(mail.outbox) == 2


def test_known_and_unknown_take_the_same_time(api, ada_with_password, settings, request_link):
    settings.MAGIC_LINK_REQUESTS_PER_WINDOW = 1000
    settings.MAGIC_LINK_REQUESTS_PER_ADDRESS = 1000

    def timed(email: str) -> float:
        started = time.perf_counter()
        request_link(email)
        return time.perf_counter() - started

    # Interleaved, so a busy moment of the machine falls on both alike.
    samples: dict[str, list[float]] = {"ada@example.com": [], "nobody@example.com": []}
    for _ in range(21):
        for email, taken in samples.items():
            taken.append(timed(email))
    known, unknown = (sorted(taken)[len(taken) // 2] for taken in samples.values())
    assert max(known, unknown) / min(known, unknown) < 2


def test_invalid_email_is_400(api, request_link):
    response = request_link("nope")
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {"email": ["Enter a valid email address."]}
    assert not MagicLinkToken.objects.exists()


def test_at_most_five_requests_per_address_per_window(api, request_link):
    for _ in range(5):
        assert request_link("a@example.com").status_code == 200
    response = request_link("A@example.com")
    assert response.status_code == 429
    assert response.json()["error"]["code"] == "rate_limited"
    assert "Retry-After" in response
    assert MagicLinkToken.objects.count() == 5
    assert request_link("b@example.com").status_code == 200


def test_requests_from_elsewhere_never_stop_the_owners_link(api, request_link):
    # Anyone may ask links for the victim's address, from as many places as they like...
    for n in range(5):
        for _ in range(5):
            request_link("victim@example.com", REMOTE_ADDR=f"198.51.100.{n}")
    # ...the owner's own request, from their address, still produces a link.
    response = request_link("victim@example.com", REMOTE_ADDR="203.0.113.7")
    assert response.status_code == 200
    assert MagicLinkToken.objects.filter(email="victim@example.com").count() == 26


def test_one_address_asking_for_many_e_mails_is_stopped(api, request_link, settings):
    settings.MAGIC_LINK_REQUESTS_PER_ADDRESS = 3
    for n in range(3):
        assert request_link(f"user{n}@example.com").status_code == 200
    assert request_link("user9@example.com").status_code == 429
    assert request_link("user9@example.com", REMOTE_ADDR="203.0.113.7").status_code == 200


@pytest.fixture
def link(api, settings, request_link):
    settings.MAGIC_LINK_EXPOSE_URL = True

    def make(email: str) -> str:
        return token_of(request_link(email).json()["data"]["magicUrl"])

    return make


def test_verify_creates_the_user_and_signs_in(api, link):
    response = api.post("/api/auth/magic-link/verify", {"token": link("New@Example.com")})
    assert response.status_code == 200
    data = response.json()["data"]
    user = User.objects.get()
    assert user.email == "new@example.com"
    assert user.email_verified
    assert not user.has_usable_password()
    assert data["user"]["id"] == str(user.id)
    me = APIClient()
    me.credentials(HTTP_AUTHORIZATION=f"Bearer {data['token']}")
    assert me.get("/api/auth/me").json()["data"]["email"] == "new@example.com"


def test_a_link_works_once(api, link):
    token = link("a@example.com")
    assert api.post("/api/auth/magic-link/verify", {"token": token}).status_code == 200
    again = api.post("/api/auth/magic-link/verify", {"token": token})
    assert again.status_code == 401
    assert again.json() == {
        "success": False,
        "message": "This sign-in link is invalid, expired or already used.",
        "error": {"code": "invalid_credentials", "details": {}},
    }


def test_an_expired_link_is_refused(api, link):
    token = link("a@example.com")
    MagicLinkToken.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    assert api.post("/api/auth/magic-link/verify", {"token": token}).status_code == 401
    assert not User.objects.exists()


def test_an_unknown_token_is_refused(api):
    assert api.post("/api/auth/magic-link/verify", {"token": "x" * 43}).status_code == 401
    assert api.post("/api/auth/magic-link/verify", {}).status_code == 400


def test_first_verification_revokes_a_pre_registered_takeover(api, link):
    # A stranger registers the victim's address first, with a password, and keeps a session.
    stranger = api.post("/api/auth/login", {"email": "victim@example.com", "password": "stranger1"})
    stolen = stranger.json()["data"]
    # The real owner proves the address by magic link.
    owner = api.post("/api/auth/magic-link/verify", {"token": link("victim@example.com")})
    assert owner.status_code == 200
    # Everything the stranger held is dead: session, refresh token and password.
    thief = APIClient()
    thief.credentials(HTTP_AUTHORIZATION=f"Bearer {stolen['token']}")
    assert thief.get("/api/auth/me").status_code == 401
    assert (
        api.post("/api/auth/refresh", {"refreshToken": stolen["refreshToken"]}).status_code == 401
    )
    relogin = api.post("/api/auth/login", {"email": "victim@example.com", "password": "stranger1"})
    assert relogin.status_code == 401
    # The owner's own session works.
    mine = APIClient()
    mine.credentials(HTTP_AUTHORIZATION=f"Bearer {owner.json()['data']['token']}")
    assert mine.get("/api/auth/me").status_code == 200


def test_later_verifications_keep_other_sessions(api, link):
    api.post("/api/auth/magic-link/verify", {"token": link("a@example.com")})
    user = User.objects.get()
    laptop = session_issue(user=user)
    assert (
        api.post("/api/auth/magic-link/verify", {"token": link("a@example.com")}).status_code == 200
    )
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {laptop.token}")
    assert client.get("/api/auth/me").status_code == 200


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_concurrent_verifications_give_one_session(link):
    token = link("race@example.com")
    barrier = threading.Barrier(2)
    statuses: list[int] = []

    def verify() -> None:
        client = APIClient()
        barrier.wait()
        statuses.append(client.post("/api/auth/magic-link/verify", {"token": token}).status_code)
        connection.close()

    threads = [threading.Thread(target=verify) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(statuses) == [200, 401]
    assert User.objects.filter(email="race@example.com").count() == 1


def test_verification_spends_the_link_in_one_conditional_update(api, link):
    """Sequential stand-in for the race above: a spent link cannot be spent again."""
    token = link("a@example.com")
    MagicLinkToken.objects.update(used_at=timezone.now())
    assert api.post("/api/auth/magic-link/verify", {"token": token}).status_code == 401
    assert not User.objects.exists()


def test_a_reclaimed_address_keeps_what_was_written_and_revokes_the_way_back_in(api, link):
    # Who registered it may be the owner (a password user's first magic link) or a squatter:
    # what was written stays, what lets someone else in goes, and the user is told what.
    from aitools.models import Generation
    from billing.models import CreditTransaction
    from notifications.models import Notification

    first = api.post(
        "/api/auth/login",
        {"email": "victim@example.com", "password": "Squatter-pass-9", "fullName": "Not Me"},
    )
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {first.json()['data']['token']}")
    spent = client.post(
        "/api/seo/audit", {"title": "Logo design", "description": "I design logos for you."}
    )
    assert spent.status_code == 200
    user = User.objects.get()
    assert user.credits_remaining < 20

    owner = api.post("/api/auth/magic-link/verify", {"token": link("victim@example.com")})
    assert owner.status_code == 200
    user.refresh_from_db()
    assert (user.full_name, user.credits_remaining) == ("Not Me", 20)
    assert Generation.objects.filter(user=user).count() == 1  # the AI history is kept
    # The earlier session and the password are gone: nobody gets back in with them.
    assert client.get("/api/auth/me").status_code == 401
    again = api.post("/api/auth/login", {"email": "victim@example.com",
                                         "password": "Squatter-pass-9"})  # fmt: skip
    assert again.status_code == 401
    told = Notification.objects.get(user=user, title="Your account is secured")
    assert "the password" in told.metadata["removed"]
    assert "the password" in told.message
    assert "AI history" in told.message
    # The ledger keeps every row (append-only): the spend, and the refill that undid it.
    reasons = list(
        CreditTransaction.objects.filter(user=user).order_by("id").values_list("reason", flat=True)
    )
    assert reasons == ["signup", "spend", "adjustment"]


def test_with_credits_on_verification_a_sign_up_gets_none_until_verified(api, link, settings):
    settings.SIGNUP_CREDITS_ON = "verified"
    signup = api.post(
        "/api/auth/login", {"email": "throwaway@example.com", "password": "Quiet-lake-42"}
    )
    assert signup.json()["data"]["user"]["credits_remaining"] == 0
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {signup.json()['data']['token']}")
    ai = client.post("/api/seo/audit", {"title": "Logo design", "description": "Logos for you."})
    assert ai.status_code == 402
    verified = api.post("/api/auth/magic-link/verify", {"token": link("throwaway@example.com")})
    assert verified.json()["data"]["user"]["credits_remaining"] == 20
    api.post("/api/auth/magic-link/verify", {"token": link("throwaway@example.com")})
    assert User.objects.get().credits_remaining == 20  # granted once


def test_with_credits_on_verification_a_magic_link_sign_up_gets_them_once(api, link, settings):
    settings.SIGNUP_CREDITS_ON = "verified"
    first = api.post("/api/auth/magic-link/verify", {"token": link("fresh@example.com")})
    assert first.json()["data"]["user"]["credits_remaining"] == 20


def test_staff_created_by_an_operator_are_verified_and_keep_their_password(api, link):
    admin = User.objects.create_superuser(email="ops@example.com", password="Operator-pass-7")
    assert admin.email_verified
    response = api.post("/api/auth/magic-link/verify", {"token": link("ops@example.com")})
    assert response.status_code == 200
    admin.refresh_from_db()
    assert admin.check_password("Operator-pass-7")


def test_one_mailbox_is_not_flooded_from_many_addresses(request_link, settings):
    settings.MAGIC_LINK_EMAILS_PER_RECIPIENT = 10
    answers = [request_link("target@example.com", REMOTE_ADDR=f"203.0.113.{n}") for n in range(50)]
    # Every request is answered the same; only the first 10 e-mails go out.
    assert {(a.status_code, a.json()["message"]) for a in answers} == {
        (200, answers[0].json()["message"])
    }
    assert len(mail.outbox) == 10
    # Another address's mail is not held back.
    request_link("someone-else@example.com", REMOTE_ADDR="203.0.113.200")
    assert len(mail.outbox) == 11


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("ada+x@example.com", "ada+y@example.com"),
        ("ada@example.com", "Ada+promo@Example.com"),
        ("a.b@gmail.com", "ab@gmail.com"),
        ("ab+1@googlemail.com", "A.B@gmail.com"),
    ],
)
def test_with_credits_on_verification_one_mailbox_gets_them_once(
    api, link, settings, first, second
):
    """A `+tag`, or Gmail's dots, make another address of the same mailbox: one grant."""
    settings.SIGNUP_CREDITS_ON = "verified"
    granted = api.post("/api/auth/magic-link/verify", {"token": link(first)})
    assert granted.json()["data"]["user"]["credits_remaining"] == 20
    again = api.post("/api/auth/magic-link/verify", {"token": link(second)})
    assert again.status_code == 200
    assert again.json()["data"]["user"]["credits_remaining"] == 0
    assert again.json()["data"]["user"]["email"] == second.lower()
    assert User.objects.count() == 2  # two accounts, each named as typed
    assert CreditTransaction.objects.filter(reason="signup").count() == 1


def test_with_credits_on_verification_other_mailboxes_each_get_them(api, link, settings):
    settings.SIGNUP_CREDITS_ON = "verified"
    for email in ("ada@example.com", "a.da@example.com", "ada@example.org", "ad@gmail.com"):
        verified = api.post("/api/auth/magic-link/verify", {"token": link(email)})
        assert verified.json()["data"]["user"]["credits_remaining"] == 20, email


def test_at_sign_up_a_tagged_address_of_a_mailbox_gets_no_second_grant(api):
    first = api.post(
        "/api/auth/login", {"email": "Ada+One@example.com", "password": "Quiet-lake-42"}
    )
    again = api.post(
        "/api/auth/login", {"email": "Ada+Two@example.com", "password": "Quiet-lake-42"}
    )
    assert first.json()["data"]["user"]["credits_remaining"] == 20
    assert again.json()["data"]["user"]["credits_remaining"] == 0
    assert again.json()["data"]["user"]["email"] == "Ada+Two@example.com"  # kept as typed


@pytest.mark.parametrize(
    ("email", "mailbox"),
    [
        ("Ada+News@Example.COM", "ada@example.com"),
        ("a.d.a+x+y@GoogleMail.com", "ada@gmail.com"),
        ("a.da@example.com", "a.da@example.com"),  # dots count outside Gmail
        ("+only-a-tag@example.com", "+only-a-tag@example.com"),
    ],
)
def test_the_mailbox_of_an_address(email, mailbox):
    assert email_mailbox(email) == mailbox


def _reclaim(api, link, **integrations: bool) -> Notification:
    """A squatter registers victim@example.com with a password (and, as asked, a webhook
    endpoint and an API key); the owner's first magic link reclaims it. The alert."""
    squatter = api.post("/api/auth/login",
                        {"email": "victim@example.com", "password": "Squatter-pass-9"})  # fmt: skip
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {squatter.json()['data']['token']}")
    if integrations.get("webhook"):
        hook = {"url": "https://127.0.0.1:9/hook", "events": ["post.published"]}
        assert client.post("/api/webhooks/endpoints", hook, format="json").status_code == 200
    if integrations.get("api_key"):
        key = {"name": "Zap", "scopes": ["posts:read"]}
        assert client.post("/api/auth/api-keys", key, format="json").status_code == 200
    owner = api.post("/api/auth/magic-link/verify", {"token": link("victim@example.com")})
    assert owner.status_code == 200
    return Notification.objects.get(title="Your account is secured")


def test_the_secured_alert_asks_to_reconnect_nothing_when_only_sign_ins_went(api, link):
    told = _reclaim(api, link)
    assert told.metadata["removed"] == ["the password", "every other signed-in session"]
    assert "the password, every other signed-in session." in told.message
    assert told.message.endswith("To sign in with a password, set a new one.")
    for asked in ("reconnect", "Reconnect", "webhook", "API key"):
        assert asked not in told.message


def test_the_secured_alert_asks_to_set_up_again_only_what_was_removed(api, link, settings):
    settings.OUTBOUND_ALLOW_PRIVATE = True
    told = _reclaim(api, link, webhook=True, api_key=True)
    assert "1 webhook endpoint(s) (127.0.0.1)" in told.message
    assert "1 API key(s)" in told.message
    assert "If they were yours, add your webhook endpoints again and create new API keys for " \
           "your automations." in told.message  # fmt: skip
    assert "social accounts" not in told.message
    assert told.message.endswith("To sign in with a password, set a new one.")


def test_the_secured_alert_names_the_social_accounts_when_they_went(ada):
    from notifications.services.center import account_reclaimed_notify

    account_reclaimed_notify(ada, {"social.SocialAccount": ["1 connected social account(s)"]})
    told = Notification.objects.get(user=ada, title="Your account is secured")
    assert told.message.endswith("If they were yours, reconnect your social accounts.")
    assert "password" not in told.message

"""How long a live-feed stream lives (docs/live-feed.md): no longer than the access token
that opened it (or asked for its ticket), and not past its user's deactivation or sign-out,
even when the message that ends it at once was lost."""

import asyncio
import time
from datetime import UTC, datetime

import pytest
from rest_framework_simplejwt.tokens import AccessToken

from accounts.models import User
from accounts.selectors import users_standing
from accounts.services.sessions import session_issue
from notifications.api.stream import Admission, Hub, Stream, _authenticate, events
from notifications.models import LiveEvent, LiveEventKind
from tests.factories import client_for

pytestmark = pytest.mark.django_db


def read_for(stream: Stream, seconds: float) -> tuple[list[bytes], bool]:
    """What the stream sends within `seconds`, and whether it ended by itself."""

    async def read() -> tuple[list[bytes], bool]:
        chunks: list[bytes] = []

        async def collect() -> None:
            async for chunk in events(stream, None):
                chunks.append(chunk)

        try:
            await asyncio.wait_for(collect(), timeout=seconds)
        except TimeoutError:
            return chunks, False
        return chunks, True

    return asyncio.run(read())


def test_a_stream_ends_when_its_access_token_expires(settings):
    settings.LIVEFEED_HEARTBEAT_SECONDS = 0.1
    started = time.monotonic()
    chunks, ended = read_for(Stream(Admission("u1", expires_at=time.time() + 0.5)), 5.0)
    assert ended
    assert 0.4 <= time.monotonic() - started < 2.0
    assert chunks[0] == b"retry: 3000\n\n"
    assert b": heartbeat\n\n" in chunks  # it was alive until then


def test_a_stream_with_time_left_stays_open(settings):
    settings.LIVEFEED_HEARTBEAT_SECONDS = 0.1
    _chunks, ended = read_for(Stream(Admission("u1", expires_at=time.time() + 60)), 0.6)
    assert not ended


def test_a_bearer_stream_holds_its_token_s_expiry_and_session(ada):
    token = session_issue(user=ada).token
    admission, code, _ = _authenticate(authorization=f"Bearer {token}", ticket="")
    claims = AccessToken(token)  # type: ignore[arg-type]
    assert code == ""
    assert admission == Admission(
        user_id=str(ada.pk),
        session=claims["sid"],
        token_version=ada.token_version,
        expires_at=float(claims["exp"]),
    )


def test_a_ticket_s_stream_holds_the_expiry_of_the_token_that_asked_for_it(ada):
    token = session_issue(user=ada).token
    client = client_for(ada)
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    ticket = client.post("/api/events/ticket").json()["data"]["ticket"]
    admission, _, _ = _authenticate(authorization="", ticket=ticket)
    exp = AccessToken(token)["exp"]  # type: ignore[arg-type]
    assert admission is not None
    assert admission.expires_at == datetime.fromtimestamp(exp, tz=UTC).timestamp()


def test_the_recheck_ends_the_streams_their_users_no_longer_hold(ada, bob):
    carol = User.objects.create_user(email="carol@example.com")
    hub = Hub()
    streams = {
        "deactivated": Stream(Admission(str(ada.pk), "s1", ada.token_version)),
        "signed out everywhere": Stream(Admission(str(bob.pk), "s2", bob.token_version)),
        "its session revoked": Stream(Admission(str(carol.pk), "s3", carol.token_version)),
        "another session": Stream(Admission(str(carol.pk), "s4", carol.token_version)),
    }
    for stream in streams.values():
        hub.streams.setdefault(stream.user_id, []).append(stream)
    # Changed as a shell or a lost message would leave them: no REVOKED message reaches the hub.
    User.objects.filter(pk=ada.pk).update(is_active=False)
    User.objects.filter(pk=bob.pk).update(token_version=bob.token_version + 1)
    User.objects.filter(pk=carol.pk).update(revoked_sessions={"s3": int(time.time())})
    assert hub.end_refused(users_standing(user_ids=list(hub.streams))) == 3
    closed = {name for name, stream in streams.items() if not stream.queue.empty()}
    assert closed == {"deactivated", "signed out everywhere", "its session revoked"}


def test_deactivating_a_user_in_the_admin_signs_them_out_and_ends_their_streams(admin_client, ada):
    token = session_issue(user=ada).token
    LiveEvent.objects.all().delete()
    response = admin_client.post(
        f"/admin/accounts/user/{ada.pk}/change/",
        {"full_name": ada.full_name, "avatar_url": "", "role": "user", "plan": "free"},
    )  # is_active unticked
    assert response.status_code == 302, response.content.decode()[:2000]
    ada.refresh_from_db()
    assert not ada.is_active
    # Every server process hears it on the feed's channel and ends all of Ada's streams.
    revoked = LiveEvent.objects.get(user=ada, kind=LiveEventKind.REVOKED)
    assert revoked.data == {"session": ""}
    # Reactivated, the old sign-in does not come back: a reconnect is refused.
    admin_client.post(
        f"/admin/accounts/user/{ada.pk}/change/",
        {"full_name": ada.full_name, "avatar_url": "", "role": "user", "plan": "free",
         "is_active": "on"},
    )  # fmt: skip
    ada.refresh_from_db()
    assert ada.is_active
    admission, code, _ = _authenticate(authorization=f"Bearer {token}", ticket="")
    assert (admission, code) == (None, "invalid_token")

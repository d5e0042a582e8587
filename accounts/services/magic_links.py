"""Passwordless sign-in: single-use links, stored only as hashes, 15 minutes."""

import hashlib
import logging
import secrets
from datetime import timedelta
from urllib.parse import urlencode

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from accounts import hooks
from accounts.errors import InvalidCredentials
from accounts.models import MagicLinkToken, email_key
from accounts.services.login import LoginResult, signed_in
from accounts.services.users import user_get_or_create
from core import ratelimit
from core.errors import RateLimitedError
from core.tasks import enqueue_on_commit

logger = logging.getLogger(__name__)

TOKEN_BYTES = 32
INVALID_LINK = "This sign-in link is invalid, expired or already used."


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


MAGIC_LINK_RECIPIENT_WINDOW_SECONDS = 3600


def magic_link_url(token: str) -> str:
    # Built from APP_URL only: the Host header is the client's to choose.
    return f"{settings.APP_URL}/auth/magic-verify?{urlencode({'token': token})}"


def magic_link_request(*, email: str, client_ip: str) -> str:
    """Create a link for `email` and queue the e-mail; returns the URL.

    Known and unknown addresses take the same path (verification creates the account), so
    neither the answer nor its timing tells them apart.
    """
    from accounts.tasks import send_magic_link_email_task

    email = email_key(email)
    period = settings.MAGIC_LINK_REQUEST_WINDOW_SECONDS
    for key, limit in (
        (f"magic-link:{client_ip}:{_hash(email)[:32]}", settings.MAGIC_LINK_REQUESTS_PER_WINDOW),
        (f"magic-link:{client_ip}:*", settings.MAGIC_LINK_REQUESTS_PER_ADDRESS),
    ):
        window = ratelimit.hit(key, limit=limit, period=period)
        if window.exceeded:
            raise RateLimitedError(
                "Too many sign-in links requested. Try again later.", retry_after=window.reset
            )
    token = secrets.token_urlsafe(TOKEN_BYTES)
    now = timezone.now()
    MagicLinkToken.objects.create(
        email=email,
        token_hash=_hash(token),
        created_at=now,
        expires_at=now + settings.MAGIC_LINK_LIFETIME,
    )
    url = magic_link_url(token)
    # One mailbox is not flooded from many addresses: past the per-recipient cap the request
    # is answered the same (nothing tells the sender), but no e-mail goes out.
    sent = ratelimit.hit(
        f"magic-link-to:{_hash(email)[:32]}",
        limit=settings.MAGIC_LINK_EMAILS_PER_RECIPIENT,
        period=MAGIC_LINK_RECIPIENT_WINDOW_SECONDS,
    )
    if sent.exceeded:
        logger.warning("Magic-link e-mail not sent: the recipient's hourly cap is reached")
    else:
        enqueue_on_commit(send_magic_link_email_task, email=email, url=url)
    return url


@transaction.atomic
def magic_link_verify(*, token: str) -> LoginResult:
    """Spend the link (one conditional UPDATE: of two concurrent calls, one wins).

    The first verification of an address proves its owner holds it. When the account existed
    before (someone registered the address with a password, perhaps not its owner), what could
    let that someone back in or act in the owner's name is revoked: sessions, the password,
    and every app's integrations (the registry's takeover cleanups: webhook endpoints,
    connected social accounts and their pending posts, open streams). What was written (the
    name, AI history, posts, notifications) stays: it may well be the owner's own. The user is
    told exactly what was removed and why (docs/accounts.md).
    """
    now = timezone.now()
    token_hash = _hash(token)
    spent = MagicLinkToken.objects.filter(
        token_hash=token_hash, used_at__isnull=True, expires_at__gt=now
    ).update(used_at=now)
    if spent != 1:
        raise InvalidCredentials(INVALID_LINK)
    email = MagicLinkToken.objects.values_list("email", flat=True).get(token_hash=token_hash)
    user, created = user_get_or_create(email=email)
    if not user.is_active:
        raise InvalidCredentials(INVALID_LINK)
    if not user.email_verified:
        took_over = not created
        removed: hooks.Removals = {}
        if took_over:
            if user.has_usable_password():
                user.set_unusable_password()
                removed[hooks.REMOVED_LOGIN] = ["the password"]
            removed.update(hooks.user_takeover_removals(user))
        user.email_verified = True
        user.save(update_fields=["email_verified", "password"])
        hooks.email_verified(user, took_over=took_over)
        if took_over:
            hooks.account_reclaimed(user, removed)
    return signed_in(user, created=created)


def magic_links_purge(*, older_than_days: int = 1) -> int:
    """Delete links that expired more than `older_than_days` ago."""
    cutoff = timezone.now() - timedelta(days=older_than_days)
    deleted, _ = MagicLinkToken.objects.filter(expires_at__lt=cutoff).delete()
    return deleted

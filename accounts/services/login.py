"""POST /api/auth/login: create on first login, password check, profile sync by Bearer token."""

import hashlib
import logging
import math
import time
from dataclasses import dataclass

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from accounts.errors import EmailBelongsToAnotherUser, InvalidCredentials
from accounts.models import User, email_key
from accounts.services.sessions import Session, session_issue
from accounts.services.users import user_get_or_create, user_set_password, user_update_profile
from core import ratelimit
from core.errors import RateLimitedError

MAGIC_LINK_ONLY = (
    "This account signs in with a magic link: request one at POST /api/auth/magic-link."
)

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class LoginResult:
    user: User
    session: Session
    created: bool


def failure_keys(email: str, client_ip: str, *, scope: str = "login") -> tuple[str, str]:
    """(this address and this e-mail), and (this address, any e-mail), per door (`scope`:
    the API's login, the admin's)."""
    digest = hashlib.sha256(email_key(email).encode()).hexdigest()[:32]
    return f"{scope}-fail:{client_ip}:{digest}", f"{scope}-fail:{client_ip}:*"


def login_delay(failures: int) -> int:
    """Seconds to wait after the last failure: none for the first few, then doubling."""
    extra = failures - settings.LOGIN_FREE_FAILURES
    return 0 if extra < 0 else min(2**extra, settings.LOGIN_MAX_DELAY_SECONDS)


def sign_in_throttle_check(email: str, client_ip: str, *, scope: str = "login") -> None:
    """Failures slow down and then stop this address for this e-mail, and this address for
    every e-mail (credential stuffing); never another address: a stranger's failures cannot
    lock the owner out."""
    period = settings.LOGIN_FAILURE_WINDOW_SECONDS
    client_key, address_key = failure_keys(email, client_ip, scope=scope)
    for key, limit in (
        (client_key, settings.LOGIN_FAILURES_PER_CLIENT),
        (address_key, settings.LOGIN_FAILURES_PER_ADDRESS),
    ):
        window = ratelimit.peek(key, limit=limit, period=period)
        if window.count >= limit:
            raise RateLimitedError(
                "Too many failed sign-in attempts. Try again later.", retry_after=window.reset
            )
    failures = ratelimit.peek(client_key, limit=settings.LOGIN_FAILURES_PER_CLIENT, period=period)
    delay = login_delay(failures.count)
    previous = ratelimit.last(client_key) if delay else None
    if previous is not None and (wait := previous + delay - time.time()) > 0:
        raise RateLimitedError(
            "Too many failed sign-in attempts. Wait a moment before trying again.",
            retry_after=max(1, math.ceil(wait)),
        )


def sign_in_failure_record(email: str, client_ip: str, *, scope: str = "login") -> None:
    period = settings.LOGIN_FAILURE_WINDOW_SECONDS
    client_key, address_key = failure_keys(email, client_ip, scope=scope)
    ratelimit.hit(client_key, limit=settings.LOGIN_FAILURES_PER_CLIENT, period=period)
    ratelimit.hit(address_key, limit=settings.LOGIN_FAILURES_PER_ADDRESS, period=period)
    ratelimit.stamp(client_key, period=period)
    digest = client_key.rsplit(":", 1)[1]
    logger.warning("Failed %s for e-mail hash %s from %s", scope, digest, client_ip)


def sign_in_success_record(email: str, client_ip: str, *, scope: str = "login") -> None:
    ratelimit.reset(failure_keys(email, client_ip, scope=scope)[0])


def login(
    *,
    email: str,
    password: str | None,
    full_name: str | None,
    bearer_user: User | None,
    client_ip: str,
) -> LoginResult:
    """The contract's login rules.

    - With a valid Bearer token: sync the profile of the token's own user; the body's e-mail
      must be that user's (409 otherwise). A password is set only if the account has none.
    - Without: a new e-mail creates the user (with the password when given); an existing
      user must give their password; an account without one signs in by magic link only.
    """
    if bearer_user is not None:
        if email_key(bearer_user.email) != email_key(email):
            raise EmailBelongsToAnotherUser()
        with transaction.atomic():
            user_update_profile(user=bearer_user, full_name=full_name)
            if password and not bearer_user.has_usable_password():
                user_set_password(user=bearer_user, password=password)
            return signed_in(bearer_user, created=False)

    sign_in_throttle_check(email, client_ip)
    with transaction.atomic():
        user, created = user_get_or_create(
            email=email, password=password, full_name=full_name or ""
        )
        if not created:
            if not user.is_active:
                raise InvalidCredentials()
            if not user.has_usable_password():
                raise InvalidCredentials(MAGIC_LINK_ONLY)
            if not password or not user.check_password(password):
                # Recorded outside the rolled-back transaction: counters live in the cache.
                sign_in_failure_record(email, client_ip)
                raise InvalidCredentials()
            user_update_profile(user=user, full_name=full_name)
        sign_in_success_record(email, client_ip)
        return signed_in(user, created=created)


def signed_in(user: User, *, created: bool) -> LoginResult:
    """Record the sign-in and issue a session (login and magic-link verification end here)."""
    user.last_login = timezone.now()
    user.save(update_fields=["last_login"])
    return LoginResult(user=user, session=session_issue(user=user), created=created)

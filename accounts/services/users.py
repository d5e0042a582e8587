"""Writes on users: creation, profile, role and erasure (plans are billing's: billing.services)."""

import time
from typing import Any

from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts import hooks
from accounts.errors import InvalidCredentials, ReauthenticationRequired
from accounts.models import Role, User
from accounts.selectors import user_get_by_email
from accounts.services.sessions import sessions_revoke_all
from accounts.services.workspaces import workspace_personal_create
from core.errors import ValidationFailed


def password_check(*, password: str, user: User) -> None:
    """Django's configured validators (length, common, numeric, similar to the e-mail or
    name), run on every password that is set; ValidationFailed with their messages."""
    try:
        validate_password(password, user=user)
    except DjangoValidationError as exc:
        raise ValidationFailed(details={"password": list(exc.messages)}) from None


def user_set_password(*, user: User, password: str) -> User:
    password_check(password=password, user=user)
    user.set_password(password)
    user.save(update_fields=["password"])
    return user


@transaction.atomic
def user_create(*, email: str, password: str | None = None, full_name: str = "") -> User:
    """A new user on the free plan, with their personal workspace; registered hooks (billing's
    starting credits) run in the same transaction, so a user never exists without them."""
    if password:
        password_check(password=password, user=User(email=email, full_name=full_name))
    user = User.objects.create_user(email=email, password=password, full_name=full_name)
    workspace_personal_create(user=user)
    hooks.user_created(user)
    return user


@transaction.atomic
def superuser_create(*, email: str, password: str | None = None, **fields: Any) -> User:
    """An operator (`createsuperuser`): an admin with their personal workspace. The password
    rules are the command's (accounts/management/commands/createsuperuser.py); no starting
    credits (the hooks of user_create are for sign-ups)."""
    fields["role"] = Role.ADMIN
    fields["is_superuser"] = True
    # An operator vouches for the address: its first magic link must not treat the account
    # as squatted (and wipe the password set here).
    fields["email_verified"] = True
    user = User.objects.create_user(email, password, **fields)
    workspace_personal_create(user=user)
    return user


@transaction.atomic
def user_set_active(*, user: User, active: bool) -> User:
    """Activate or deactivate an account. Deactivating also signs it out everywhere: its
    tokens and live-feed tickets stop working and its open streams end now (the sessions'
    hook), and activating it again does not bring them back: the user signs in anew. Its API
    keys stop working while it is inactive (authentication refuses an inactive owner)."""
    user.is_active = active
    user.save(update_fields=["is_active"])
    if not active:
        sessions_revoke_all(user=user)
    return user


def user_get_or_create(
    *, email: str, password: str | None = None, full_name: str = ""
) -> tuple[User, bool]:
    """Safe when two requests create the same e-mail at once: the loser reads the winner's row."""
    user = user_get_by_email(email=email)
    if user is not None:
        return user, False
    try:
        with transaction.atomic():
            return user_create(email=email, password=password, full_name=full_name), True
    except IntegrityError:
        user = user_get_by_email(email=email)
        if user is None:
            raise
        return user, False


def user_update_profile(
    *, user: User, full_name: str | None = None, avatar_url: str | None = None
) -> User:
    fields: dict[str, Any] = {}
    if full_name is not None and full_name != user.full_name:
        fields["full_name"] = full_name
    if avatar_url is not None and avatar_url != user.avatar_url:
        fields["avatar_url"] = avatar_url
    for name, value in fields.items():
        setattr(user, name, value)
    if fields:
        user.save(update_fields=list(fields))
    return user


def user_set_role(*, user: User, role: str) -> User:
    """Admins are staff (the Django admin's door); the role is the only switch for it."""
    if role not in Role.values:
        raise ValidationFailed(details={"role": [f"Choose one of: {', '.join(Role.values)}."]})
    if user.role != role:
        user.role = role
        user.save(update_fields=["role"])
    return user


ERASED_DOMAIN = "erased.invalid"  # a reserved top-level domain: never deliverable


@transaction.atomic
def user_erase(*, user: User) -> User:
    """Erase an account: what other apps keep of it goes (their hooks: AI history, gigs,
    proposals, notifications, events), and the row itself is anonymised, not deleted, so the
    credit ledger and the payment records keep valid, anonymous references. Signs out
    everywhere. Erasing an erased account changes nothing."""
    from accounts.models import MagicLinkToken

    locked = User.objects.select_for_update().get(pk=user.pk)
    if locked.erased_at is not None:
        return locked
    hooks.user_erased(locked)
    MagicLinkToken.objects.filter(email__iexact=locked.email).delete()
    locked.email = f"erased-{locked.pk.hex}@{ERASED_DOMAIN}"
    locked.full_name, locked.avatar_url = "", ""
    locked.set_unusable_password()
    locked.is_active = False
    locked.email_verified = False
    locked.role = Role.USER
    locked.is_superuser = False
    locked.revoked_sessions = {}
    locked.erased_at = timezone.now()
    locked.save()
    return locked


ERASE_FRESH_SESSION_SECONDS = 10 * 60


def account_erase(*, user: User, password: str | None, signed_in_at: int | None) -> User:
    """The user's own erasure: proven by the password, or, for an account that has none, by
    a sign-in (magic link) in the last ten minutes, so a forgotten open session cannot erase
    an account."""
    if user.has_usable_password():
        if not password or not user.check_password(password):
            raise InvalidCredentials("The password is not correct.")
    elif signed_in_at is None or time.time() - signed_in_at > ERASE_FRESH_SESSION_SECONDS:
        raise ReauthenticationRequired()
    return user_erase(user=user)

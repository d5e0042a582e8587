"""Writes on API keys: creation in a workspace (the key is returned once, only its hash is
kept), revocation, the last use (written at most once a minute), a removed member's keys and
the user registry's cleanups."""

import secrets
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from uuid import UUID

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from accounts import hooks
from accounts.errors import ApiKeyLimitReached, ApiKeyNotFound, WorkspaceNotFound
from accounts.models import (
    API_KEY_PREFIX,
    API_KEY_SHOWN_PREFIX,
    ApiKey,
    Membership,
    User,
    Workspace,
    api_key_hash,
)
from accounts.roles import Action, permission_check
from accounts.scopes import Scope
from accounts.selectors import api_keys_live
from core.errors import ValidationFailed

MAX_LIVE_KEYS = 20  # per user (contract.md, "API keys")
KEY_RANDOM_BYTES = 30  # 40 URL-safe base64 characters after the prefix
# last_used_at moves at most this often: reading a key costs no write on most requests.
LAST_USED_RESOLUTION = timedelta(minutes=1)


def api_key_new_secret() -> str:
    return API_KEY_PREFIX + secrets.token_urlsafe(KEY_RANDOM_BYTES)


def api_key_create(
    *,
    actor: Membership,
    name: str,
    scopes: Sequence[str],
    expires_at: datetime | None = None,
) -> tuple[ApiKey, str]:
    """A new key of the actor's user, bound to the actor's workspace (owners and admins:
    `manage`); returns it with its secret, which is never readable again.

    The user's row, then the workspace's, is locked while the live keys are counted and the
    actor's role read again: two creations at once cannot both take the last place, and a
    member removed meanwhile (the removal locks the workspace too) gets no key. The owner is
    told (the api_key_created hook: notifications writes a system alert) in the same
    transaction.
    """
    permission_check(role=actor.role, action=Action.MANAGE)
    now = timezone.now()
    errors: dict[str, list[str]] = {}
    if not scopes:
        errors["scopes"] = ["Give at least one scope."]
    elif unknown := sorted(set(scopes) - set(Scope.values)):
        errors["scopes"] = [f"Unknown scope(s): {', '.join(unknown)}."]
    if expires_at is not None and expires_at <= now:
        errors["expiresAt"] = ["Must be in the future."]
    if errors:
        raise ValidationFailed(details=errors)
    secret = api_key_new_secret()
    with transaction.atomic():
        user = User.objects.select_for_update().get(pk=actor.user_id)
        Workspace.objects.select_for_update().filter(pk=actor.workspace_id).exists()
        role = (
            Membership.objects.filter(workspace_id=actor.workspace_id, user_id=actor.user_id)
            .values_list("role", flat=True)
            .first()
        )
        if role is None:  # removed meanwhile: the workspace is no longer theirs
            raise WorkspaceNotFound()
        permission_check(role=role, action=Action.MANAGE)
        if api_keys_live(user=user, at=now).count() >= MAX_LIVE_KEYS:
            raise ApiKeyLimitReached(details={"limit": MAX_LIVE_KEYS})
        key = ApiKey.objects.create(
            user=user,
            workspace=actor.workspace,
            name=name,
            prefix=secret[:API_KEY_SHOWN_PREFIX],
            key_hash=api_key_hash(secret),
            scopes=[scope for scope in Scope.values if scope in scopes],  # one order, no repeats
            created_at=now,
            expires_at=expires_at,
        )
        hooks.api_key_created(key)
    return key, secret


def api_key_revoke(*, actor: Membership, key_id: UUID) -> None:
    """Revoke one of the actor's keys in the actor's workspace at once (the next request with
    it is 401): any member, their own keys (revoking only takes power away; a member demoted
    below `manage` still holds the keys made before). Another user's key, a key of another
    workspace, or one revoked already, is a 404 and changes nothing."""
    revoked = ApiKey.objects.filter(
        pk=key_id, user_id=actor.user_id, workspace_id=actor.workspace_id, revoked_at__isnull=True
    ).update(revoked_at=timezone.now())
    if not revoked:
        raise ApiKeyNotFound()


def api_keys_revoke_member(*, workspace_id: UUID, user_id: UUID) -> int:
    """A member removed from a workspace (accounts.services.members, in its transaction): their
    keys for that workspace stop working at once. How many were live."""
    return ApiKey.objects.filter(
        workspace_id=workspace_id, user_id=user_id, revoked_at__isnull=True
    ).update(revoked_at=timezone.now())


def api_keys_revoke(*, key_ids: Iterable[UUID]) -> int:
    """Operators' revocation (the admin), of any users' keys; how many were live."""
    return ApiKey.objects.filter(pk__in=list(key_ids), revoked_at__isnull=True).update(
        revoked_at=timezone.now()
    )


def api_key_touch(*, key: ApiKey, now: datetime | None = None) -> bool:
    """Record a use of `key`, unless one was recorded in the last minute (then nothing is
    written). The UPDATE is conditional, so processes racing on one key write it once.
    Returns whether this call wrote it."""
    now = now or timezone.now()
    stale = now - LAST_USED_RESOLUTION
    if key.last_used_at is not None and key.last_used_at > stale:
        return False
    written = (
        ApiKey.objects.filter(pk=key.pk)
        .filter(Q(last_used_at__isnull=True) | Q(last_used_at__lte=stale))
        .update(last_used_at=now)
    )
    key.last_used_at = now
    return bool(written)


def api_keys_revoke_all(user: User) -> list[str]:
    """The registry's takeover cleanup: no key made before the owner proved the address may
    keep acting in their name."""
    revoked = ApiKey.objects.filter(user=user, revoked_at__isnull=True).update(
        revoked_at=timezone.now()
    )
    return [f"{revoked} API key(s)"] if revoked else []


def api_keys_erase(user: User) -> list[str]:
    """The registry's erasure cleanup: every key of the user, revoked ones too (their names)."""
    ApiKey.objects.filter(user=user).delete()
    return []

"""A workspace's social hub settings (social.md section 6), and each user's notification
preferences, which the same endpoint shows and changes (docs/workspaces.md, "The social
hub": notifications are per user, across workspaces)."""

import zoneinfo
from dataclasses import dataclass
from uuid import UUID

from django.db import transaction

from accounts.models import Membership
from accounts.roles import Action, permission_check
from accounts.services.workspaces import workspace_personal
from core.errors import ValidationFailed
from core.inputs import UNSET, Unset
from social.models import NOTIFICATION_PREFERENCES, SocialSettings
from social.selectors import Preferences, preferences_of


@dataclass(frozen=True, slots=True, kw_only=True)
class SettingsInput:
    """The settings a request changes (the others stay as they are)."""

    default_platform: str | Unset | None = UNSET  # None: no default platform
    default_timezone: str | Unset = UNSET
    auto_retry: bool | Unset = UNSET
    require_alt_text: bool | Unset = UNSET
    # The caller's own, merged key by key into the stored ones.
    notification_preferences: dict[str, bool] | Unset = UNSET


WORKSPACE_FIELDS = ("default_platform", "default_timezone", "auto_retry", "require_alt_text")


def settings_update(
    *, actor: Membership, changes: SettingsInput
) -> tuple[SocialSettings, Preferences]:
    """Apply the settings given: the workspace's (owners and admins: `manage`) and the
    actor's own notification preferences (any member), merged key by key; an unknown zone
    or preference key changes nothing. The workspace's settings and the actor's preferences
    after."""
    problems: dict[str, list[str]] = {}
    zone = changes.default_timezone
    if zone is not UNSET:
        try:
            zoneinfo.ZoneInfo(zone)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            problems["defaultTimezone"] = [f'"{zone}" is not an IANA time zone.']
    preferences = changes.notification_preferences
    chosen = {} if isinstance(preferences, Unset) else dict(preferences)
    unknown = sorted(set(chosen) - set(NOTIFICATION_PREFERENCES))
    if unknown:
        problems["notificationPreferences"] = [f"Unknown preference: {key}." for key in unknown]
    if problems:
        raise ValidationFailed(details=problems)
    workspace_changes = {
        name: getattr(changes, name)
        for name in WORKSPACE_FIELDS
        if getattr(changes, name) is not UNSET
    }
    if workspace_changes:
        permission_check(role=actor.role, action=Action.MANAGE)
    with transaction.atomic():
        found, _ = SocialSettings.objects.select_for_update().get_or_create(
            workspace_id=actor.workspace_id
        )
        for name, value in workspace_changes.items():
            setattr(found, name, value)
        if workspace_changes:
            found.save()
        if not chosen and _personal_of(actor) != found.workspace_id:
            return found, preferences_of([actor.user_id])[actor.user_id]
        own = _preferences_save(actor, found, chosen) if chosen else found
    return found, Preferences(dict(own.notification_preferences))


def _preferences_save(
    actor: Membership, found: SocialSettings, changed: dict[str, bool]
) -> SocialSettings:
    """The actor's preferences merged into their personal workspace's settings (`found` when
    the request acts in it)."""
    personal = _personal_of(actor)
    own = found
    if found.workspace_id != personal:
        own, _ = SocialSettings.objects.select_for_update().get_or_create(workspace_id=personal)
    own.notification_preferences = {**own.notification_preferences, **changed}
    own.save(update_fields=["notification_preferences", "updated_at"])
    return own


def _personal_of(actor: Membership) -> UUID:
    """The actor's personal workspace's id (no query when the request acts in it)."""
    workspace = actor.workspace
    if workspace.personal_user_id == actor.user_id:
        return workspace.pk
    return workspace_personal(user=actor.user).workspace_id

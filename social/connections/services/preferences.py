"""A user's social hub settings (social.md section 6)."""

import zoneinfo
from dataclasses import dataclass

from django.db import transaction

from accounts.models import User
from core.errors import ValidationFailed
from core.inputs import UNSET, Unset
from social.models import NOTIFICATION_PREFERENCES, SocialSettings


@dataclass(frozen=True, slots=True, kw_only=True)
class SettingsInput:
    """The settings a request changes (the others stay as they are)."""

    default_platform: str | Unset | None = UNSET  # None: no default platform
    default_timezone: str | Unset = UNSET
    auto_retry: bool | Unset = UNSET
    require_alt_text: bool | Unset = UNSET
    # Merged key by key into the stored ones.
    notification_preferences: dict[str, bool] | Unset = UNSET


def settings_update(*, user: User, changes: SettingsInput) -> SocialSettings:
    """Apply the settings given, the notification preferences merged key by key; an unknown
    zone or preference key changes nothing."""
    problems: dict[str, list[str]] = {}
    zone = changes.default_timezone
    if zone is not UNSET:
        try:
            zoneinfo.ZoneInfo(zone)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            problems["defaultTimezone"] = [f'"{zone}" is not an IANA time zone.']
    preferences = changes.notification_preferences
    if preferences is UNSET:
        preferences = {}
    unknown = sorted(set(preferences) - set(NOTIFICATION_PREFERENCES))
    if unknown:
        problems["notificationPreferences"] = [f"Unknown preference: {key}." for key in unknown]
    if problems:
        raise ValidationFailed(details=problems)
    with transaction.atomic():
        found, _ = SocialSettings.objects.select_for_update().get_or_create(user=user)
        if changes.default_platform is not UNSET:
            found.default_platform = changes.default_platform
        if zone is not UNSET:
            found.default_timezone = zone
        if changes.auto_retry is not UNSET:
            found.auto_retry = changes.auto_retry
        if changes.require_alt_text is not UNSET:
            found.require_alt_text = changes.require_alt_text
        found.notification_preferences = {**found.notification_preferences, **preferences}
        found.save()
    return found

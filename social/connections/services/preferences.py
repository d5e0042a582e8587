"""A user's social hub settings (social.md section 6)."""

import zoneinfo
from typing import Any

from django.db import transaction

from accounts.models import User
from core.errors import ValidationFailed
from social.models import NOTIFICATION_PREFERENCES, SocialSettings


def settings_update(*, user: User, changes: dict[str, Any]) -> SocialSettings:
    """Apply any of defaultPlatform, defaultTimezone, autoRetry, requireAltText and
    notificationPreferences
    (merged key by key); an unknown zone or preference key changes nothing."""
    problems: dict[str, list[str]] = {}
    zone = changes.get("defaultTimezone")
    if zone is not None:
        try:
            zoneinfo.ZoneInfo(zone)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            problems["defaultTimezone"] = [f'"{zone}" is not an IANA time zone.']
    preferences = changes.get("notificationPreferences") or {}
    unknown = sorted(set(preferences) - set(NOTIFICATION_PREFERENCES))
    if unknown:
        problems["notificationPreferences"] = [f"Unknown preference: {key}." for key in unknown]
    if problems:
        raise ValidationFailed(details=problems)
    with transaction.atomic():
        found, _ = SocialSettings.objects.select_for_update().get_or_create(user=user)
        if "defaultPlatform" in changes:
            found.default_platform = changes["defaultPlatform"]
        if zone is not None:
            found.default_timezone = zone
        if "autoRetry" in changes:
            found.auto_retry = changes["autoRetry"]
        if "requireAltText" in changes:
            found.require_alt_text = changes["requireAltText"]
        found.notification_preferences = {**found.notification_preferences, **preferences}
        found.save()
    return found


def settings_data(found: SocialSettings) -> dict[str, Any]:
    return {
        "defaultPlatform": found.default_platform,
        "defaultTimezone": found.default_timezone,
        "autoRetry": found.auto_retry,
        "requireAltText": found.require_alt_text,
        "notificationPreferences": {key: found.wants(key) for key in NOTIFICATION_PREFERENCES},
    }

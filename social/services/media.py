"""The media library: hosted files registered by URL, uploads stored through Django's storage
API (local files by default; S3 and others by configuration), and what posts attach."""

import uuid
from collections.abc import Iterable
from typing import Any

from config.errors import ValidationFailed
from social.models import MediaItem
from social.providers.base import MediaFile


def media_files(*, user_id: Any, media_ids: Iterable[str]) -> tuple[MediaFile, ...]:
    """The user's media items as attachments, in the order given (missing ones skipped)."""
    wanted = [str(media_id) for media_id in media_ids]
    items = {
        str(item.pk): item for item in MediaItem.objects.filter(user_id=user_id, pk__in=wanted)
    }
    return tuple(
        MediaFile(
            url=item.url,
            mime=item.type,
            size=item.size,
            stored=item.file.name if item.file else "",
        )
        for item in (items.get(media_id) for media_id in wanted)
        if item is not None
    )


def media_ids_check(*, user_id: Any, media_ids: list[str]) -> list[str]:
    """The ids, each the user's media item; 400 naming the others."""
    try:
        wanted = list(dict.fromkeys(str(uuid.UUID(str(media_id))) for media_id in media_ids))
    except ValueError:
        raise ValidationFailed(details={"mediaIds": ["Media ids are UUIDs."]}) from None
    found = {
        str(pk)
        for pk in MediaItem.objects.filter(user_id=user_id, pk__in=wanted).values_list(
            "pk", flat=True
        )
    }
    unknown = [media_id for media_id in wanted if media_id not in found]
    if unknown:
        raise ValidationFailed(details={"mediaIds": [f"{m}: no such media item." for m in unknown]})
    return wanted

"""Moments as the API writes them: ISO 8601 in UTC with `Z`, as DRF's DateTimeField renders
them (the hand-written fast paths and the event payloads use this one function)."""

from datetime import UTC, datetime
from typing import overload


@overload
def iso(moment: datetime) -> str: ...
@overload
def iso(moment: datetime | None) -> str | None: ...
def iso(moment: datetime | None) -> str | None:
    if moment is None:
        return None
    text = moment.astimezone(UTC).isoformat()
    return text[:-6] + "Z" if text.endswith("+00:00") else text

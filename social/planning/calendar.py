"""A shared calendar (workspaces.md section 4): a workspace's posts of the last 30 and the next
60 days, as JSON and as an RFC 5545 iCalendar feed a calendar app subscribes to.

Only what a client may see of a post: its title, content (each network's own, where a variant
changes it), networks, times, status and the public URL of what went out; never an account
id, a token, an error's message or a member's name or e-mail. The feed has one `VEVENT` per
record that is waiting (`Scheduled`; `PendingApproval`, as `TENTATIVE`), going out or out;
its `UID` is the record's id, so an edit or a move updates the event, never adds one."""

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlsplit
from uuid import UUID

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from core.times import iso
from social.models import RecordStatus, ScheduledRecord
from social.networks import NETWORKS

PAST_DAYS, NEXT_DAYS = 30, 60
# What the JSON shows: every record but a cancelled one.
SHOWN = (
    RecordStatus.SCHEDULED,
    RecordStatus.PENDING_APPROVAL,
    RecordStatus.PUBLISHING,
    RecordStatus.PUBLISHED,
    RecordStatus.FAILED,
    RecordStatus.UNCONFIRMED,
)
# What the feed shows: what will go out or went out ("one VEVENT per scheduled or published
# record"); one that failed or was cancelled leaves the subscriber's calendar.
IN_FEED = (
    RecordStatus.SCHEDULED,
    RecordStatus.PENDING_APPROVAL,
    RecordStatus.PUBLISHING,
    RecordStatus.PUBLISHED,
)
EVENT_MINUTES = 15  # a post is an instant; a calendar shows a short event
REFRESH = "PT1H"  # how often a subscriber should read the feed again (RFC 7986)
SUMMARY_CHARS = 60


@dataclass(frozen=True, slots=True)
class Window:
    start: datetime
    end: datetime


def calendar_window(now: datetime | None = None) -> Window:
    moment = now or timezone.now()
    return Window(start=moment - timedelta(days=PAST_DAYS), end=moment + timedelta(days=NEXT_DAYS))


def calendar_records(
    *, workspace_id: UUID, window: Window, statuses: Iterable[str] = SHOWN
) -> list[ScheduledRecord]:
    """The workspace's records in the window (by their time: published, else scheduled),
    with their posts, in one query."""
    in_window = Q(scheduled_time__gte=window.start, scheduled_time__lt=window.end) | Q(
        published_at__gte=window.start, published_at__lt=window.end
    )
    return list(
        ScheduledRecord.objects.filter(in_window, workspace_id=workspace_id, status__in=statuses)
        .select_related("post")
        .only(
            "id",
            "provider",
            "status",
            "scheduled_time",
            "published_at",
            "url",
            "updated_at",
            "post__id",
            "post__title",
            "post__content",
            "post__variants",
            "post__updated_at",
        )
        .order_by("scheduled_time", "id")
    )


def network_content(record: ScheduledRecord) -> str:
    """The text that goes to the record's network: its variant's, where one changes it."""
    variant = (record.post.variants or {}).get(record.provider) or {}
    return str(variant.get("content") or record.post.content)


def _when(record: ScheduledRecord) -> datetime:
    return record.published_at or record.scheduled_time


def calendar_data(
    *, workspace_name: str, records: list[ScheduledRecord], window: Window
) -> dict[str, Any]:
    """The JSON: the posts by their first time, each with its records."""
    posts: dict[UUID, dict[str, Any]] = {}
    for record in sorted(records, key=lambda r: (_when(r), str(r.pk))):
        post = record.post
        shown = posts.setdefault(
            post.pk,
            {
                "id": str(post.pk),
                "title": post.title,
                "content": post.content,
                "networks": [],
                "records": [],
            },
        )
        if record.provider not in shown["networks"]:
            shown["networks"].append(record.provider)
        shown["records"].append(
            {
                "id": str(record.pk),
                "provider": record.provider,
                "status": record.status,
                "scheduled_time": iso(record.scheduled_time),
                "published_at": iso(record.published_at),
                "url": record.url if record.status == RecordStatus.PUBLISHED else "",
                "content": network_content(record),
            }
        )
    return {
        "workspace": {"name": workspace_name},
        "from": iso(window.start),
        "to": iso(window.end),
        "posts": list(posts.values()),
    }


# --- iCalendar (RFC 5545) ---------------------------------------------------------------------

CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")  # not allowed in TEXT (newlines escaped first)
LINE_OCTETS = 75


def ical_text(value: str) -> str:
    """A TEXT value escaped (section 3.3.11): backslash, semicolon, comma, newlines."""
    text = value.replace("\r\n", "\n").replace("\r", "\n")
    text = text.replace("\\", "\\\\").replace(";", "\\;").replace(",", "\\,")
    return CONTROL.sub("", text.replace("\n", "\\n"))


def ical_fold(line: str) -> str:
    """A content line folded at 75 octets (section 3.1): each continuation begins with a
    space, and no UTF-8 character is cut."""
    if len(line.encode()) <= LINE_OCTETS:
        return line
    lines, current, size = [], "", 0
    for char in line:
        octets = len(char.encode())
        if size + octets > LINE_OCTETS:
            lines.append(current)
            current, size = " ", 1
        current += char
        size += octets
    lines.append(current)
    return "\r\n".join(lines)


def ical_time(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")


def _summary(record: ScheduledRecord) -> str:
    network = NETWORKS[record.provider].name if record.provider in NETWORKS else record.provider
    text = record.post.title or network_content(record)
    first = " ".join(text.split())
    if len(first) > SUMMARY_CHARS:
        first = first[: SUMMARY_CHARS - 1].rstrip() + "…"
    return f"{network}: {first}" if first else network


def _event(record: ScheduledRecord, host: str) -> list[str]:
    start = _when(record)
    changed = max(record.updated_at, record.post.updated_at)
    lines = [
        "BEGIN:VEVENT",
        f"UID:record-{record.pk}@{host}",
        f"DTSTAMP:{ical_time(changed)}",
        f"LAST-MODIFIED:{ical_time(changed)}",
        f"DTSTART:{ical_time(start)}",
        f"DTEND:{ical_time(start + timedelta(minutes=EVENT_MINUTES))}",
        f"SUMMARY:{ical_text(_summary(record))}",
        f"DESCRIPTION:{ical_text(network_content(record))}",
        f"STATUS:{'TENTATIVE' if record.status == RecordStatus.PENDING_APPROVAL else 'CONFIRMED'}",
        "TRANSP:TRANSPARENT",  # a post takes none of the subscriber's time
    ]
    if record.status == RecordStatus.PUBLISHED and record.url:
        lines.append(f"URL:{CONTROL.sub('', record.url)}")
    lines.append("END:VEVENT")
    return lines


def calendar_ics(*, workspace_name: str, records: list[ScheduledRecord]) -> str:
    """The feed: a VCALENDAR of one VEVENT per record given that is in the feed, CRLF line
    ends, every line folded."""
    host = urlsplit(settings.PUBLIC_URL).hostname or "localhost"
    name = ical_text(f"{workspace_name}: posts")
    lines = [
        "BEGIN:VCALENDAR",
        "VERSION:2.0",
        "PRODID:-//Freelancer Growth Platform//Shared calendar//EN",
        "CALSCALE:GREGORIAN",
        "METHOD:PUBLISH",
        f"NAME:{name}",
        f"X-WR-CALNAME:{name}",
        f"REFRESH-INTERVAL;VALUE=DURATION:{REFRESH}",
        f"X-PUBLISHED-TTL:{REFRESH}",
    ]
    for record in records:
        if record.status in IN_FEED:
            lines.extend(_event(record, host))
    lines.append("END:VCALENDAR")
    return "".join(f"{ical_fold(line)}\r\n" for line in lines)

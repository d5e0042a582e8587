"""Wall-clock times in a zone: a queue's weekly slots and a recurring post's RRULE occurrences
(social.md section 11). No database: plain functions of their arguments.

A slot or an occurrence is a local time ("Monday 09:00 in Europe/Paris"): daylight saving time
moves it with the zone. A local time the clocks skip (a DST gap) does not happen that day: it
is skipped. A local time the clocks pass twice (an overlap) is its first occurrence.
"""

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from dateutil.rrule import rrule, rrulestr

from social.models import WEEKDAYS

SLOT_TIME = re.compile(r"^([01]\d|2[0-3]):[0-5]\d$")
SEARCH_DAYS = 8  # a week of slots always holds one that happens (a gap skips one day's at most)


def moment(local: datetime, zone: ZoneInfo) -> datetime | None:
    """The UTC moment of a naive local time in `zone`: None when the clocks skip it (a DST
    gap); its first occurrence when they pass it twice (an overlap)."""
    aware = local.replace(tzinfo=zone, fold=0)
    if aware.astimezone(UTC).astimezone(zone).replace(tzinfo=None) != local:
        return None
    return aware.astimezone(UTC)


def slot_key(day: str, at: str) -> tuple[int, str]:
    """Slots in week order: Monday first, then by time."""
    return WEEKDAYS.index(day), at


def slots_sorted(slots: Iterable[dict[str, str]]) -> list[dict[str, str]]:
    return sorted(
        ({"day": slot["day"], "time": slot["time"]} for slot in slots),
        key=lambda slot: slot_key(slot["day"], slot["time"]),
    )


@dataclass(frozen=True, slots=True)
class Week:
    """A queue's weekly slots in a zone."""

    slots: tuple[tuple[str, str], ...]  # (day, "HH:MM"), in week order
    zone: ZoneInfo

    @classmethod
    def of(cls, slots: Iterable[dict[str, str]], zone: ZoneInfo) -> "Week":
        return cls(tuple((slot["day"], slot["time"]) for slot in slots_sorted(slots)), zone)

    def times(self, after: datetime) -> Iterator[datetime]:
        """Every slot's moment (UTC) strictly after `after`, in order, without end (none when
        there are no slots)."""
        if not self.slots:
            return
        by_day: dict[int, list[time]] = {}
        for name, text in self.slots:
            by_day.setdefault(WEEKDAYS.index(name), []).append(time.fromisoformat(text))
        # A day early: the zone's offset may put `after` on the previous local day.
        day = after.astimezone(self.zone).date() - timedelta(days=1)
        while True:
            for at in by_day.get(day.weekday(), ()):
                found = moment(datetime.combine(day, at), self.zone)
                if found is not None and found > after:
                    yield found
            day += timedelta(days=1)

    def first_after(self, after: datetime) -> datetime | None:
        return next(self.times(after), None)

    def holds(self, at: datetime) -> bool:
        """Whether `at` is one of the slots' moments (a record still on its slot)."""
        local = at.astimezone(self.zone)
        key = (WEEKDAYS[local.weekday()], local.strftime("%H:%M"))
        if key not in self.slots or local.second or local.microsecond:
            return False
        return moment(local.replace(tzinfo=None), self.zone) == at

    def between(self, start: datetime, end: datetime) -> list[datetime]:
        """The slots' moments after `start`, up to `end` included."""
        found = []
        for at in self.times(start):
            if at > end:
                break
            found.append(at)
        return found


# --- Recurrence rules (RFC 5545 RRULE, read by python-dateutil) ------------------------------

RULE_PARTS = ("FREQ", "INTERVAL", "BYDAY", "BYMONTHDAY", "BYHOUR", "BYMINUTE")
FREQUENCIES = ("DAILY", "WEEKLY", "MONTHLY")
MAX_INTERVAL = 99
DAY_CODES = ("MO", "TU", "WE", "TH", "FR", "SA", "SU")
BYDAY = re.compile(r"^([+-]?[1-5])?(MO|TU|WE|TH|FR|SA|SU)$")


class RuleError(ValueError):
    """A rule this API does not take; the message says why."""


def rule_normalized(text: str) -> str:
    """The rule as stored (`FREQ=WEEKLY;BYDAY=MO`), or RuleError: RFC 5545 RRULE parts FREQ
    (DAILY, WEEKLY, MONTHLY), INTERVAL, BYDAY, BYMONTHDAY, BYHOUR, BYMINUTE, and never more often
    than daily (one BYHOUR and one BYMINUTE at most). UNTIL and COUNT are their own fields."""
    body = text.strip().upper().removeprefix("RRULE:")
    parts: dict[str, str] = {}
    for part in filter(None, body.split(";")):
        name, sep, value = part.partition("=")
        if not sep or not value:
            raise RuleError(f'"{part}" is not NAME=VALUE.')
        if name not in RULE_PARTS:
            raise RuleError(f"{name} is not taken here; the parts are {', '.join(RULE_PARTS)}.")
        if name in parts:
            raise RuleError(f"{name} is given twice.")
        parts[name] = value
    frequency = parts.get("FREQ")
    if frequency not in FREQUENCIES:
        raise RuleError(f"FREQ must be one of {', '.join(FREQUENCIES)}.")
    _numbers(parts, "INTERVAL", 1, MAX_INTERVAL, single=True)
    _numbers(parts, "BYHOUR", 0, 23, single=True, why="no more often than daily")
    _numbers(parts, "BYMINUTE", 0, 59, single=True, why="no more often than daily")
    days = _numbers(parts, "BYMONTHDAY", -31, 31)
    if 0 in days:
        raise RuleError("BYMONTHDAY takes 1 to 31 or -31 to -1.")
    if days and frequency == "WEEKLY":
        raise RuleError("BYMONTHDAY is not taken with FREQ=WEEKLY (RFC 5545).")
    for code in parts["BYDAY"].split(",") if "BYDAY" in parts else ():
        found = BYDAY.match(code)
        if found is None:
            raise RuleError(f'BYDAY "{code}" is not a day (MO to SU, with an ordinal for MONTHLY).')
        if found.group(1) and frequency != "MONTHLY":
            raise RuleError("An ordinal day (1MO, -1FR) is taken with FREQ=MONTHLY only.")
    normalized = ";".join(f"{name}={parts[name]}" for name in RULE_PARTS if name in parts)
    try:
        rule = _rule(normalized, datetime(2000, 1, 1))
    except ValueError as error:
        raise RuleError(f"Not a rule: {error}.") from None
    if rule.after(datetime(2000, 1, 1)) is None:
        raise RuleError("The rule has no occurrence.")
    return normalized


def _numbers(
    parts: dict[str, str], name: str, low: int, high: int, *, single: bool = False, why: str = ""
) -> list[int]:
    if name not in parts:
        return []
    try:
        values = [int(value) for value in parts[name].split(",")]
    except ValueError:
        raise RuleError(f"{name} takes whole numbers.") from None
    if single and len(values) > 1:
        raise RuleError(f"{name} takes one value ({why or 'one step'}).")
    if any(not low <= value <= high for value in values):
        raise RuleError(f"{name} takes {low} to {high}.")
    return values


def _rule(text: str, start: datetime) -> rrule:
    found = rrulestr(text, dtstart=start)
    if not isinstance(found, rrule):  # one RRULE, never a set
        raise RuleError("One RRULE only.")
    return found


def rule_times(text: str, zone: ZoneInfo, start: datetime, after: datetime) -> Iterator[datetime]:
    """The rule's occurrences (UTC), DTSTART being `start`'s wall-clock time in `zone`, strictly
    after `after`, in order (an occurrence in a DST gap is skipped, one in an overlap is its
    first occurrence)."""
    local_start = start.astimezone(zone).replace(tzinfo=None)
    rule = _rule(text, local_start)
    # A day early: the zone's offset may put `after` on the previous local day.
    local_after = after.astimezone(zone).replace(tzinfo=None) - timedelta(days=1)
    for local in rule.xafter(max(local_after, local_start), inc=True):
        found = moment(local, zone)
        if found is not None and found > after:
            yield found


def local_end_of(day: date, zone: ZoneInfo) -> datetime:
    """The last moment of a local day (an `until` given as a date)."""
    return datetime.combine(day, time(23, 59, 59), tzinfo=zone).astimezone(UTC)

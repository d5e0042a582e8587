"""Wall-clock times in a zone: a queue's weekly slots and a recurring post's RRULE occurrences
(social.md section 11). No database: plain functions of their arguments.

A slot or an occurrence is a local time ("Monday 09:00 in Europe/Paris"): daylight saving time
moves it with the zone. A local time the clocks skip (a DST gap) does not happen that day: it
is skipped. A local time the clocks pass twice (an overlap) is its first occurrence.
"""

import calendar
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from dateutil.rrule import rrulestr

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


# --- Recurrence rules (RFC 5545 RRULE) ---------------------------------------------------------

RULE_PARTS = ("FREQ", "INTERVAL", "BYDAY", "BYMONTHDAY", "BYHOUR", "BYMINUTE")
FREQUENCIES = ("DAILY", "WEEKLY", "MONTHLY")
MAX_INTERVAL = 99
DAY_CODES = ("MO", "TU", "WE", "TH", "FR", "SA", "SU")
BYDAY = re.compile(r"^([+-]?[1-5])?(MO|TU|WE|TH|FR|SA|SU)$")
# How far a walk over a rule's occurrences looks. A rule can match rarely or never (the 30th of
# every twelfth month from a February): without an end, a walk goes on to the year 9999. A rule
# whose next occurrence after its first is further than this is refused; every walk stops here.
HORIZON_YEARS = 5
HORIZON = timedelta(days=HORIZON_YEARS * 366)


class RuleError(ValueError):
    """A rule this API does not take; the message says why."""


@dataclass(frozen=True, slots=True)
class Rule:
    """A normalized rule's parts. Weekdays are 0 (Monday) to 6; an ordinal day is (weekday,
    n), n from 1 (the first in the month) or -1 (the last); a month day counts from the end
    when negative."""

    frequency: str
    interval: int = 1
    weekdays: frozenset[int] = frozenset()
    ordinal_days: frozenset[tuple[int, int]] = frozenset()
    month_days: frozenset[int] = frozenset()
    hour: int | None = None
    minute: int | None = None


def rule_normalized(text: str) -> str:
    """The rule as stored (`FREQ=WEEKLY;BYDAY=MO`), or RuleError: RFC 5545 RRULE parts FREQ
    (DAILY, WEEKLY, MONTHLY), INTERVAL, BYDAY, BYMONTHDAY, BYHOUR, BYMINUTE, and never more often
    than daily (one BYHOUR and one BYMINUTE at most). UNTIL and COUNT are their own fields.
    Whether it ever happens depends on its start: `rule_times` from there tells."""
    return _parsed(text)[0]


def _parsed(text: str) -> tuple[str, Rule]:
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
    interval = _numbers(parts, "INTERVAL", 1, MAX_INTERVAL, single=True)
    hour = _numbers(parts, "BYHOUR", 0, 23, single=True, why="no more often than daily")
    minute = _numbers(parts, "BYMINUTE", 0, 59, single=True, why="no more often than daily")
    days = _numbers(parts, "BYMONTHDAY", -31, 31)
    if 0 in days:
        raise RuleError("BYMONTHDAY takes 1 to 31 or -31 to -1.")
    if days and frequency == "WEEKLY":
        raise RuleError("BYMONTHDAY is not taken with FREQ=WEEKLY (RFC 5545).")
    weekdays: set[int] = set()
    ordinal_days: set[tuple[int, int]] = set()
    for code in parts["BYDAY"].split(",") if "BYDAY" in parts else ():
        found = BYDAY.match(code)
        if found is None:
            raise RuleError(f'BYDAY "{code}" is not a day (MO to SU, with an ordinal for MONTHLY).')
        if found.group(1) and frequency != "MONTHLY":
            raise RuleError("An ordinal day (1MO, -1FR) is taken with FREQ=MONTHLY only.")
        weekday = DAY_CODES.index(found.group(2))
        if found.group(1):
            ordinal_days.add((weekday, int(found.group(1))))
        else:
            weekdays.add(weekday)
    if weekdays and ordinal_days:
        # Read as "a Monday that is also the second Tuesday" by common RRULE libraries and as
        # either of them by others: ambiguous, so refused.
        raise RuleError("BYDAY takes days with ordinals (1MO, -1FR) or without, not both.")
    normalized = ";".join(f"{name}={parts[name]}" for name in RULE_PARTS if name in parts)
    try:  # what clients read back is a rule the reference RFC 5545 library takes
        rrulestr(normalized, dtstart=datetime(2000, 1, 1))
    except ValueError as error:
        raise RuleError(f"Not a rule: {error}.") from None
    rule = Rule(
        frequency=frequency,
        interval=interval[0] if interval else 1,
        weekdays=frozenset(weekdays),
        ordinal_days=frozenset(ordinal_days),
        month_days=frozenset(days),
        hour=hour[0] if hour else None,
        minute=minute[0] if minute else None,
    )
    return normalized, rule


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


def rule_times(
    text: str, zone: ZoneInfo, start: datetime, after: datetime, *, within: timedelta = HORIZON
) -> Iterator[datetime]:
    """The rule's occurrences (UTC), DTSTART being `start`'s wall-clock time in `zone`, strictly
    after `after` and at most `within` later, in order (an occurrence in a DST gap is skipped,
    one in an overlap is its first occurrence). The walk goes from `after`'s period, never
    from the start, and ends at `within` whether or not the rule matched."""
    rule = _parsed(text)[1]
    local_start = start.astimezone(zone).replace(tzinfo=None, microsecond=0)
    at = time(
        local_start.hour if rule.hour is None else rule.hour,
        local_start.minute if rule.minute is None else rule.minute,
        local_start.second,
    )
    last = after + within
    # A day early and late: the zone's offset may put a moment on the neighbouring local day.
    first_day = max((after.astimezone(zone) - timedelta(days=1)).date(), local_start.date())
    last_day = (last.astimezone(zone) + timedelta(days=1)).date()
    for day in _days(rule, local_start.date(), first_day, last_day):
        local = datetime.combine(day, at)
        if local < local_start:
            continue
        found = moment(local, zone)
        if found is not None and after < found <= last:
            yield found


def _days(rule: Rule, start: date, first: date, last: date) -> Iterator[date]:
    """The days the rule matches from the period holding `first` through `last`, in order:
    the periods are every `interval`th day, week (from Monday) or month from `start`'s."""
    if rule.frequency == "DAILY":
        day = start + timedelta(days=-(-(first - start).days // rule.interval) * rule.interval)
        while day <= last:
            if _day_matches(rule, day):
                yield day
            day += timedelta(days=rule.interval)
    elif rule.frequency == "WEEKLY":
        step = 7 * rule.interval
        week = start - timedelta(days=start.weekday())
        week += timedelta(days=(first - week).days // step * step)
        weekdays = sorted(rule.weekdays or {start.weekday()})
        while week <= last:
            yield from (week + timedelta(days=weekday) for weekday in weekdays)
            week += timedelta(days=step)
    else:
        origin = start.year * 12 + start.month - 1
        month = origin + (first.year * 12 + first.month - 1 - origin) // rule.interval * (
            rule.interval
        )
        while date(month // 12, month % 12 + 1, 1) <= last:
            yield from _month_days(rule, month // 12, month % 12 + 1, start.day)
            month += rule.interval


def _day_matches(rule: Rule, day: date) -> bool:
    """A daily rule's BYDAY and BYMONTHDAY limit its days."""
    if rule.weekdays and day.weekday() not in rule.weekdays:
        return False
    if rule.month_days:
        length = calendar.monthrange(day.year, day.month)[1]
        return day.day in rule.month_days or day.day - length - 1 in rule.month_days
    return True


def _month_days(rule: Rule, year: int, month: int, start_day: int) -> list[date]:
    """A monthly rule's days in one month: its BYMONTHDAY (DTSTART's day when it names no day
    at all), its BYDAY (every such weekday, or the nth), both: the days that are both."""
    length = calendar.monthrange(year, month)[1]
    wanted = rule.month_days
    if not (wanted or rule.weekdays or rule.ordinal_days):
        wanted = frozenset({start_day})
    nth = set()
    for weekday, n in rule.ordinal_days:
        same = [d for d in range(1, length + 1) if calendar.weekday(year, month, d) == weekday]
        if -len(same) <= n <= len(same):
            nth.add(same[n - 1] if n > 0 else same[n])
    return [
        date(year, month, day)
        for day in range(1, length + 1)
        if (not wanted or day in wanted or day - length - 1 in wanted)
        and (not rule.weekdays or calendar.weekday(year, month, day) in rule.weekdays)
        and (not rule.ordinal_days or day in nth)
    ]


def local_end_of(day: date, zone: ZoneInfo) -> datetime:
    """The last moment of a local day (an `until` given as a date)."""
    return datetime.combine(day, time(23, 59, 59), tzinfo=zone).astimezone(UTC)

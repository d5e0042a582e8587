"""Wall-clock slots and recurrence rules in a zone (social.wallclock): DST moves them with the
zone, a time in a gap is skipped that day, one in an overlap is its first occurrence."""

from datetime import UTC, datetime
from itertools import islice
from zoneinfo import ZoneInfo

import pytest

from social.wallclock import RuleError, Week, moment, rule_normalized, rule_times

PARIS = ZoneInfo("Europe/Paris")
NEW_YORK = ZoneInfo("America/New_York")


def utc(year: int, month: int, day: int, hour: int = 0, minute: int = 0) -> datetime:
    return datetime(year, month, day, hour, minute, tzinfo=UTC)


def test_a_local_time_in_a_gap_does_not_exist_and_one_in_an_overlap_is_its_first():
    # Paris, 2026-03-29: 02:00 -> 03:00. 2026-10-25: 03:00 -> 02:00.
    assert moment(datetime(2026, 3, 29, 2, 30), PARIS) is None
    assert moment(datetime(2026, 3, 29, 3, 30), PARIS) == utc(2026, 3, 29, 1, 30)
    assert moment(datetime(2026, 10, 25, 2, 30), PARIS) == utc(2026, 10, 25, 0, 30)  # CEST
    assert moment(datetime(2026, 10, 25, 3, 30), PARIS) == utc(2026, 10, 25, 2, 30)


def test_slots_keep_their_wall_clock_time_across_dst():
    week = Week.of([{"day": "sat", "time": "09:00"}, {"day": "sun", "time": "09:00"}], PARIS)
    times = list(islice(week.times(utc(2026, 3, 27)), 4))
    # Saturday in winter time (UTC+1), Sunday in summer time (UTC+2): 09:00 local each.
    assert times == [
        utc(2026, 3, 28, 8),
        utc(2026, 3, 29, 7),
        utc(2026, 4, 4, 7),
        utc(2026, 4, 5, 7),
    ]


def test_a_slot_in_a_gap_is_skipped_that_day_and_one_in_an_overlap_is_the_first():
    week = Week.of([{"day": "sun", "time": "02:30"}], PARIS)
    # 2026-03-29 02:30 does not exist in Paris: the next is a week later.
    assert list(islice(week.times(utc(2026, 3, 27)), 2)) == [
        utc(2026, 4, 5, 0, 30),
        utc(2026, 4, 12, 0, 30),
    ]
    # 2026-10-25 02:30 happens twice: its first occurrence (still summer time, UTC+2).
    assert week.first_after(utc(2026, 10, 24)) == utc(2026, 10, 25, 0, 30)
    assert week.holds(utc(2026, 10, 25, 0, 30))
    assert not week.holds(utc(2026, 10, 25, 1, 30))  # the second 02:30 is no slot


def test_slots_in_order_strictly_after_a_moment():
    week = Week.of([{"day": "mon", "time": "17:00"}, {"day": "mon", "time": "09:00"}], NEW_YORK)
    after = utc(2026, 6, 1, 13)  # Monday 09:00 in New York (UTC-4): not after itself
    assert list(islice(week.times(after), 3)) == [
        utc(2026, 6, 1, 21),
        utc(2026, 6, 8, 13),
        utc(2026, 6, 8, 21),
    ]
    assert week.between(after, utc(2026, 6, 8, 13)) == [utc(2026, 6, 1, 21), utc(2026, 6, 8, 13)]
    assert week.holds(utc(2026, 6, 8, 13))
    assert not week.holds(utc(2026, 6, 8, 14))
    assert Week.of([], NEW_YORK).first_after(after) is None


@pytest.mark.parametrize(
    ("rule", "normalized"),
    [
        ("FREQ=WEEKLY;BYDAY=MO,WE", "FREQ=WEEKLY;BYDAY=MO,WE"),
        ("rrule:freq=daily;interval=2", "FREQ=DAILY;INTERVAL=2"),
        (
            "BYHOUR=9;FREQ=MONTHLY;BYDAY=-1FR;BYMINUTE=30",
            "FREQ=MONTHLY;BYDAY=-1FR;BYHOUR=9;BYMINUTE=30",
        ),
        ("FREQ=MONTHLY;BYMONTHDAY=1,15", "FREQ=MONTHLY;BYMONTHDAY=1,15"),
    ],
)
def test_rules_taken(rule, normalized):
    assert rule_normalized(rule) == normalized


@pytest.mark.parametrize(
    "rule",
    [
        "",
        "FREQ=HOURLY",
        "FREQ=MINUTELY",
        "FREQ=YEARLY",
        "FREQ=DAILY;BYHOUR=9,17",  # twice a day
        "FREQ=WEEKLY;BYMINUTE=0,30",
        "FREQ=WEEKLY;COUNT=3",  # count and until are fields of their own
        "FREQ=WEEKLY;UNTIL=20270101T000000Z",
        "FREQ=WEEKLY;BYDAY=1MO",  # an ordinal day is monthly only
        "FREQ=WEEKLY;BYMONTHDAY=3",
        "FREQ=DAILY;INTERVAL=0",
        "FREQ=DAILY;BYHOUR=24",
        "FREQ=DAILY;FREQ=WEEKLY",
        "FREQ=WEEKLY;BYDAY=XX",
        "FREQ=MONTHLY;BYMONTHDAY=0",
        "FREQ",
    ],
)
def test_rules_refused(rule):
    with pytest.raises(RuleError):
        rule_normalized(rule)


def test_rule_occurrences_follow_the_wall_clock_and_skip_a_gap():
    start = utc(2026, 3, 22, 1, 30)  # Sunday 02:30 in Paris (winter time): DTSTART
    times = list(islice(rule_times("FREQ=WEEKLY", PARIS, start, start), 3))
    # 2026-03-29 02:30 does not exist: skipped; then 02:30 summer time.
    assert times == [utc(2026, 4, 5, 0, 30), utc(2026, 4, 12, 0, 30), utc(2026, 4, 19, 0, 30)]


def test_rule_occurrences_with_their_own_days_and_hour():
    start = utc(2026, 6, 3, 8, 15)  # a Wednesday, 10:15 in Paris
    rule = "FREQ=WEEKLY;BYDAY=MO,FR;BYHOUR=9;BYMINUTE=0"
    assert list(islice(rule_times(rule, PARIS, start, start), 3)) == [
        utc(2026, 6, 5, 7),
        utc(2026, 6, 8, 7),
        utc(2026, 6, 12, 7),
    ]
    # From a later moment: the first occurrence strictly after it.
    assert next(rule_times(rule, PARIS, start, utc(2026, 6, 8, 7))) == utc(2026, 6, 12, 7)

"""Wall-clock slots and recurrence rules in a zone (social.planning.wallclock): DST moves them with
the zone, a time in a gap is skipped that day, one in an overlap is its first occurrence."""

import cProfile
import pstats
from datetime import UTC, datetime, timedelta
from itertools import islice
from zoneinfo import ZoneInfo

import pytest
from dateutil.rrule import rrulestr

from social.planning.wallclock import RuleError, Week, moment, rule_normalized, rule_times

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


def test_a_mix_of_ordinal_and_plain_days_is_refused():
    with pytest.raises(RuleError, match="not both"):
        rule_normalized("FREQ=MONTHLY;BYDAY=MO,2TU")


def test_a_walk_over_a_rule_that_never_matches_again_ends_at_the_horizon():
    start = utc(2027, 2, 1, 9)  # a Monday
    for rule in ("FREQ=DAILY;INTERVAL=7;BYDAY=TU", "FREQ=MONTHLY;INTERVAL=12;BYMONTHDAY=30",
                 "FREQ=MONTHLY;BYDAY=5MO;BYMONTHDAY=1"):  # fmt: skip
        profile = cProfile.Profile()
        found = profile.runcall(list, rule_times(rule, PARIS, start, start))
        assert found == []
        assert pstats.Stats(profile).total_calls < 5_000  # type: ignore[attr-defined]
    # A rare rule is found within the horizon, and not past it.
    leap = "FREQ=MONTHLY;INTERVAL=12;BYMONTHDAY=29"  # February 29 only, from a February
    assert list(rule_times(leap, PARIS, start, start)) == [utc(2028, 2, 29, 9)]
    assert list(rule_times(leap, PARIS, start, start, within=timedelta(days=300))) == []


def reference_times(rule: str, zone: ZoneInfo, start: datetime, after: datetime, n: int) -> list:
    """The rule's occurrences as the reference RFC 5545 library (dateutil) walks them."""
    local_start = start.astimezone(zone).replace(tzinfo=None, microsecond=0)
    local_after = after.astimezone(zone).replace(tzinfo=None) - timedelta(days=1)
    found = []
    walk = rrulestr(rule, dtstart=local_start).xafter(max(local_after, local_start), inc=True)
    for local in walk:
        at = moment(local, zone)
        if at is not None and at > after:
            found.append(at)
        if len(found) == n:
            break
    return found


RULES = [
    "FREQ=DAILY", "FREQ=DAILY;INTERVAL=3", "FREQ=DAILY;BYDAY=MO,WE,FR",
    "FREQ=DAILY;INTERVAL=2;BYMONTHDAY=1,15,-1", "FREQ=DAILY;BYHOUR=9;BYMINUTE=30",
    "FREQ=DAILY;INTERVAL=7;BYDAY=SU", "FREQ=WEEKLY", "FREQ=WEEKLY;INTERVAL=2;BYDAY=TU,SU",
    "FREQ=WEEKLY;BYDAY=SA;BYHOUR=23", "FREQ=WEEKLY;INTERVAL=5;BYMINUTE=5", "FREQ=MONTHLY",
    "FREQ=MONTHLY;INTERVAL=2", "FREQ=MONTHLY;BYMONTHDAY=31", "FREQ=MONTHLY;BYMONTHDAY=-1,1",
    "FREQ=MONTHLY;BYDAY=-1FR", "FREQ=MONTHLY;BYDAY=2TU,-2TH;BYHOUR=2;BYMINUTE=30",
    "FREQ=MONTHLY;BYDAY=MO", "FREQ=MONTHLY;BYDAY=FR;BYMONTHDAY=13",
    "FREQ=MONTHLY;INTERVAL=3;BYDAY=5SU", "FREQ=MONTHLY;INTERVAL=7;BYMONTHDAY=-3,29",
]  # fmt: skip
STARTS = [
    datetime(2027, 1, 31, 8, 15, 42, tzinfo=UTC),
    datetime(2028, 2, 29, 23, 30, tzinfo=UTC),
    datetime(2027, 3, 28, 1, 30, tzinfo=UTC),  # the day Paris springs forward
    datetime(2026, 11, 1, 5, 30, tzinfo=UTC),  # the night New York falls back
]


@pytest.mark.parametrize("rule", RULES)
def test_occurrences_are_the_reference_librarys(rule):
    for zone in (ZoneInfo("UTC"), PARIS, NEW_YORK, ZoneInfo("Asia/Kolkata")):
        for start in STARTS:
            for after in (start, start + timedelta(days=400, hours=5)):
                expected = reference_times(rule, zone, start, after, 8)
                within = timedelta(days=366 * 30)
                assert list(islice(rule_times(rule, zone, start, after, within=within), 8)) == (
                    expected
                ), (zone, start, after)

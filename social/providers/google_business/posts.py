"""A Google Business Profile post from a composed draft (networks/google_business.md): its
`variants.google_business.options` checked across keys (what each topic type takes, the
event's dates, the button's link) and the LocalPost body they make: the summary, the button
(`callToAction`: the post's link), one photo, the event's title and schedule, the offer."""

import re
from datetime import date, datetime
from typing import Any

from social.providers.base import Content, Draft
from social.providers.text import Problem

OPTIONS = "variants.google_business.options"  # options come from the variant only
MAX_TITLE = 58  # an event's or offer's title (unverified)
MAX_COUPON = 58
MAX_TERMS = 5000
IMAGE_TYPES = ("image/jpeg", "image/png")
MAX_IMAGE_BYTES = 5 * 1024 * 1024
DATED = ("EVENT", "OFFER")  # the topic types with an event (a title and a schedule)
OFFER_ONLY = ("couponCode", "redeemUrl", "terms")
LOCAL = re.compile(r"\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2})?)?")  # no offset: the location's


def moment(value: Any) -> datetime | None:
    """An option's local date (`2025-06-01`) or date-time without an offset
    (`2025-06-01T18:00`); None when it is neither."""
    if not isinstance(value, str) or not LOCAL.fullmatch(value):
        return None
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        return None


def option_problems(draft: Draft, content: Content) -> list[Problem]:
    """What the options break together (each key's own values are the declaration's)."""
    options = draft.options
    topic = str(options.get("topicType") or "STANDARD")
    found: list[Problem] = []
    for key in OFFER_ONLY:
        if key in options and topic != "OFFER":
            found.append((f"{OPTIONS}.{key}", "Only an OFFER post (topicType) takes it."))
    action = options.get("actionType")
    if action and topic == "OFFER":
        found.append((f"{OPTIONS}.actionType", "An OFFER post has no button (its redeemUrl)."))
    elif action and action != "CALL" and not content.link:
        found.append(("link", f"The {action} button opens the post's link: add one."))
    if topic in DATED:
        if not content.title.strip():
            found.append(("title", f"An {topic} post needs a title (the event's)."))
        start, end = moment(options.get("eventStart")), moment(options.get("eventEnd"))
        for key, value in (("eventStart", start), ("eventEnd", end)):
            if value is None:
                found.append(
                    (f"{OPTIONS}.{key}", f"An {topic} post needs it: a local date or date-time.")
                )
        if start and end and "T" not in str(options.get("eventEnd")):
            end = end.replace(hour=23, minute=59, second=59)  # a date ends with its day
        if start and end and end < start:
            found.append((f"{OPTIONS}.eventEnd", "The end is before the start."))
    else:
        for key in ("eventStart", "eventEnd"):
            if key in options:
                found.append((f"{OPTIONS}.{key}", "Only an EVENT or OFFER post has dates."))
    if len(content.title.strip()) > MAX_TITLE:
        found.append(("title", f"Google Business Profile titles are at most {MAX_TITLE}."))
    if len(str(options.get("couponCode") or "")) > MAX_COUPON:
        found.append((f"{OPTIONS}.couponCode", f"A coupon code is at most {MAX_COUPON}."))
    if len(str(options.get("terms") or "")) > MAX_TERMS:
        found.append((f"{OPTIONS}.terms", f"Terms are at most {MAX_TERMS} characters."))
    for media in draft.media:
        if media.mime not in IMAGE_TYPES:
            found.append(("mediaIds", "Google Business Profile takes a JPEG or PNG photo."))
        elif (media.size or 0) > MAX_IMAGE_BYTES:
            found.append(("mediaIds", "Google Business Profile takes photos of at most 5 MB."))
    return found


def _date(day: date) -> dict[str, int]:
    return {"year": day.year, "month": day.month, "day": day.day}


def _time(at: datetime) -> dict[str, int]:
    return {"hours": at.hour, "minutes": at.minute, "seconds": at.second, "nanos": 0}


def schedule(start: str, end: str) -> dict[str, Any]:
    """`{startDate, startTime?, endDate, endTime?}`: a time only where the option has one."""
    first, last = moment(start), moment(end)
    if first is None or last is None:  # option_problems refused it before
        return {}
    found: dict[str, Any] = {"startDate": _date(first.date()), "endDate": _date(last.date())}
    if "T" in start:
        found["startTime"] = _time(first)
    if "T" in end:
        found["endTime"] = _time(last)
    return found


def local_post(content: Content) -> dict[str, Any]:
    """The LocalPost to create: the summary without the link, which is the button's (or an
    offer's redeem link when it names none); one photo by its public URL (no alt text)."""
    options = content.options
    topic = str(options.get("topicType") or "STANDARD")
    body: dict[str, Any] = {
        "languageCode": str(options.get("languageCode") or "en"),
        "summary": content.text,
        "topicType": topic,
    }
    action = str(options.get("actionType") or ("LEARN_MORE" if content.link else ""))
    if action and topic != "OFFER":
        body["callToAction"] = {"actionType": action}
        if action != "CALL":
            body["callToAction"]["url"] = content.link
    images = [media for media in content.media if not media.video]
    if images:
        body["media"] = [{"mediaFormat": "PHOTO", "sourceUrl": images[0].url}]
    if topic in DATED:
        body["event"] = {
            "title": content.title.strip(),
            "schedule": schedule(str(options["eventStart"]), str(options["eventEnd"])),
        }
    if topic == "OFFER":
        offer = {
            "couponCode": options.get("couponCode"),
            "redeemOnlineUrl": options.get("redeemUrl") or content.link or None,
            "termsConditions": options.get("terms"),
        }
        body["offer"] = {key: str(value) for key, value in offer.items() if value}
    return body

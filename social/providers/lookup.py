"""Finding what an earlier attempt may have made (social.md section 5): the account's posts
read page after page back to the attempt's window, matched by their text."""

from collections.abc import Callable
from datetime import datetime
from typing import Any

from core import outbound
from social.providers.base import Attempt


def same_text(a: str, b: str) -> bool:
    """Whether a platform's copy of a text is ours: whitespace differences and the
    platform's own trimming ignored."""
    return " ".join(a.split()) == " ".join(b.split())


LOOKUP_PAGES = 10  # pages one lookup reads at most: an account's busiest hours, not its years
LOOKUP_PAGE_SIZE = 40  # posts a page asks for (Mastodon's most; LinkedIn and Graph take it)

Page = tuple[list[dict[str, Any]], Any]  # a page's items, newest first, and the next cursor


def lookup_pages(
    provider: str,
    fetch: Callable[[Any], Page],
    *,
    attempt: Attempt,
    created: Callable[[dict[str, Any]], datetime | None],
    matches: Callable[[dict[str, Any]], bool],
) -> dict[str, Any] | None:
    """The account's item that `matches`, read page after page (`fetch(cursor)`: the first
    page for None) back to the attempt's window; None once the window is covered (an item
    older than it, or the list's end) without a match. A window still not covered after
    LOOKUP_PAGES pages is not "not found": the outcome stays unknown (TransientError, maybe
    delivered), so the record is never created again from a truncated page."""
    window = attempt.window
    cursor: Any = None
    for _ in range(LOOKUP_PAGES):
        items, cursor = fetch(cursor)
        for item in items:
            when = created(item)
            if when is not None and when < window:
                return None  # newest first: the rest is older still
            if matches(item):
                return item
        if not items or cursor is None:
            return None
    raise outbound.TransientError(
        f"{provider} lists more posts since the attempt than a lookup reads: its outcome "
        "could not be established.",
        maybe_delivered=True,
    )

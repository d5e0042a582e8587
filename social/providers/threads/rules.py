"""What a post must be on Threads (developers.facebook.com/docs/threads/posts): at most 500
characters, each code point counting 1 except emoji, which count as their UTF-8 bytes; at most
5 links (more fail at the container since December 2025); JPEG or PNG images of at most 8 MB
with alt text of at most 1,000 characters."""

import re
from typing import Any

import regex

from social.providers.base import Content, Draft
from social.providers.text import URL, Problem

MAX_LINKS = 5
MAX_ALT = 1000
MAX_IMAGE_BYTES = 8 * 1024 * 1024
IMAGE_TYPES = ("image/jpeg", "image/png")
# An emoji: a grapheme holding a pictographic code point or a regional indicator (a flag).
EMOJI = regex.compile(r"[\p{Extended_Pictographic}\p{Regional_Indicator}]")
GRAPHEME = regex.compile(r"\X")


def length(text: str) -> int:
    """Threads' count: 1 per code point, an emoji (with its modifiers and joiners) its UTF-8
    bytes ("👍" is 4)."""
    if text.isascii():
        return len(text)
    counted = 0
    for grapheme in GRAPHEME.findall(text):
        counted += len(grapheme.encode()) if EMOJI.search(grapheme) else len(grapheme)
    return counted


def links(text: str) -> int:
    """The distinct URLs of a text (what Threads counts against its 5)."""
    return len({re.sub(r"[.,;:!?)\]]+$", "", url) for url in URL.findall(text)})


def problems(draft: Draft, content: Content, limits: dict[str, Any]) -> list[Problem]:
    found: list[Problem] = []
    maximum, used = int(limits["maxCharacters"]), length(content.text)
    if used > maximum:
        found.append(
            (
                "content",
                f"Threads posts are at most {maximum} characters (an emoji counts as its "
                f"UTF-8 bytes); this one is {used}.",
            )
        )
    if links(content.text) > MAX_LINKS:
        found.append(("content", f"Threads posts take at most {MAX_LINKS} links."))
    for media in draft.media:
        if media.video:
            continue
        if media.mime not in IMAGE_TYPES:
            found.append(("media", "Threads takes JPEG and PNG images only."))
        elif (media.size or 0) > MAX_IMAGE_BYTES:
            found.append(("media", f"Threads takes images of at most {MAX_IMAGE_BYTES} bytes."))
        if len(media.alt) > MAX_ALT:
            found.append(("media", f"Threads takes alt text of at most {MAX_ALT} characters."))
    return found

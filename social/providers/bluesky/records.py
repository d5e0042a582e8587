"""What a Bluesky post is in the AT Protocol: an `app.bsky.feed.post` record under a record key
chosen before the first attempt (a TID derived from the target's key and time, so a retried
create collides with the first instead of duplicating), and its text's facets."""

import hashlib
import re
from datetime import datetime, timedelta
from typing import Any

from social.providers.base import Attempt

POST = "app.bsky.feed.post"
TID_ALPHABET = "234567abcdefghijklmnopqrstuvwxyz"
URL = re.compile(r"https?://[^\s<>\"]+[^\s<>\"'.,;:!?)\]]")
TAG = re.compile(r"(?<![\w#])#([^\s#.,;:!?()\[\]{}<>\"']+)")
MENTION = re.compile(r"(?<![\w@])@([a-zA-Z0-9][a-zA-Z0-9.-]*\.[a-zA-Z]{2,})")


def tid(moment: datetime, key: str) -> str:
    """A timestamp identifier: 53 bits of microseconds, 10 bits of clock id (from `key`), in
    base32-sortable, 13 characters."""
    micros = int(moment.timestamp() * 1_000_000) & ((1 << 53) - 1)
    clock = int.from_bytes(hashlib.sha256(key.encode()).digest()[:2], "big") & 0x3FF
    value = (micros << 10) | clock
    return "".join(TID_ALPHABET[(value >> shift) & 31] for shift in range(60, -1, -5))


def facets(text: str, resolve: Any = None) -> list[dict[str, Any]]:
    """Links, hashtags (and mentions `resolve` turns into DIDs) with UTF-8 byte offsets."""
    found: list[dict[str, Any]] = []

    def span(start: int, end: int) -> dict[str, int]:
        return {
            "byteStart": len(text[:start].encode()),
            "byteEnd": len(text[:end].encode()),
        }

    for match in URL.finditer(text):
        found.append(
            {
                "index": span(*match.span()),
                "features": [{"$type": "app.bsky.richtext.facet#link", "uri": match.group(0)}],
            }
        )
    for match in TAG.finditer(text):
        found.append(
            {
                "index": span(*match.span()),
                "features": [{"$type": "app.bsky.richtext.facet#tag", "tag": match.group(1)}],
            }
        )
    for match in MENTION.finditer(text) if resolve else ():
        did = resolve(match.group(1))
        if did:
            found.append(
                {
                    "index": span(*match.span()),
                    "features": [{"$type": "app.bsky.richtext.facet#mention", "did": did}],
                }
            )
    return sorted(found, key=lambda facet: facet["index"]["byteStart"])


def record_key(attempt: Attempt) -> str:
    """The record key of the attempt's part. Each part its own key: a microsecond apart, so
    that no two parts of a record share one, whatever their clock bits."""
    return tid(attempt.since + timedelta(microseconds=attempt.part), attempt.key)

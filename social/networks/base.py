"""What a network declares (social.md sections 1, 12, 13): the kit each network module fills in.

A network's module says, as data, who it is (identifier, name), how it connects and with which
settings, what a post may hold there (capabilities and limits: the table the platforms list
serves and publishing, scheduling and preview enforce), its own `options`, how its error
answers map to the categories of section 12, how a create is made exactly once, and which
adapter speaks its API. `social.networks.NETWORKS` is the registry of them.
"""

import re
from dataclasses import dataclass
from typing import Any

from core import outbound
from social.providers.base import Adapter
from social.providers.counting import COUNTS_BY as COUNTS_BY  # where tests look for it

CONNECT_METHODS = ("oauth", "app_password", "api_key")
# How a create is made exactly once (social.md sections 9 and 13): the platform keeps an
# idempotency key we send, we choose the post's id ourselves, or we look the post up before
# any retry; `none`: a lost answer stays Unconfirmed, never resent.
EXACTLY_ONCE = ("idempotency_key", "chosen_id", "lookup", "none")


@dataclass(frozen=True, slots=True)
class Rule:
    """One kind of error: where it comes from (`source`: a network's error family, `ours` for
    an adapter's own refusal, `outbound` for the HTTP layer), what identifies it (HTTP
    `status`, a single one or an inclusive range; the platform's `code`, and `subcode`; a piece
    of the message, `text`, lowercase), its `category`, what it means, and a remedy of its own."""

    source: str
    category: str
    meaning: str
    status: int | tuple[int, int] | None = None
    code: str = ""
    subcode: str = ""
    text: str = ""
    remedy: str = ""
    # The error's class, when that tells it apart (a timeout after sending vs. before).
    maybe_delivered: bool | None = None
    # The account-health problem it is reported as, when not its category's own (a LinkedIn
    # page's `not_page_admin`); its remedy is the row's.
    problem: str = ""

    def matches(self, error: outbound.OutboundError, answer: dict[str, Any] | None) -> bool:
        status = error.status
        if isinstance(self.status, tuple):
            if status is None or not self.status[0] <= status <= self.status[1]:
                return False
        elif self.status is not None and status != self.status:
            return False
        if self.code and not _code_matches(self.code, answer):
            return False
        if self.subcode and (answer is None or str(answer.get("subcode") or "") != self.subcode):
            return False
        if self.maybe_delivered is not None and error.maybe_delivered != self.maybe_delivered:
            return False
        if self.text:
            said = f"{error.message} {(answer or {}).get('message') or ''}".lower()
            if self.text not in said:
                return False
        return True


def token_endpoint_rules(source: str) -> tuple[Rule, Rule]:
    """What an OAuth token endpoint answers when renewing a token during an attempt fails
    (RFC 6749 section 5.2): the grant no longer valid, or this server's app refused."""
    return (
        Rule(
            source,
            "auth_expired",
            "invalid_grant: the refresh token or code is no longer valid.",
            code="invalid_grant",
        ),
        Rule(
            source,
            "internal",
            "invalid_client: this server's app credentials were refused (an operator setting).",
            code="invalid_client",
            remedy="Contact support: this server's app credentials were refused.",
        ),
    )


def _code_matches(code: str, answer: dict[str, Any] | None) -> bool:
    """The answer's code is `code`, or within `code` when it is a numeric range ("200-299")."""
    said = str((answer or {}).get("code") or "")
    low, _, high = code.partition("-")
    if high and low.isdigit() and high.isdigit():
        return said.isdigit() and int(low) <= int(said) <= int(high)
    return said == code


@dataclass(frozen=True, slots=True)
class VideoRules:
    """What a network takes as a video (social.md section 10), checked before anything is
    sent (social.content.services.composition): one video per post, alone unless `carousel`,
    `min_seconds` to `max_seconds` long (the duration the file's header gives), at most
    `max_bytes`; `by_url`: the platform fetches the file from its URL (else the adapter sends
    the bytes, so the file must be one we store)."""

    max_seconds: float
    max_bytes: int
    source: str  # where the platform states these limits: read it again before changing them
    min_seconds: float = 0.0
    carousel: bool = False  # several videos, with images, in one post (Instagram)
    by_url: bool = False


# What a network with `documents` takes (social.md section 13: LinkedIn's document posts, the
# `linkedin` and `linkedin_page` networks): one PDF per post, alone, of at most this many pages
# (and MEDIA_MAX_DOCUMENT_BYTES), named by the post's title (a post's title is at most 300
# characters, within the 400 LinkedIn is said to take: unverified).
DOCUMENT_MAX_PAGES = 300


@dataclass(frozen=True, slots=True)
class AppCap:
    """A daily cap of the whole app, every account together, per calendar day in `zone`
    (YouTube's uploads a day for the Google Cloud project, reset at midnight Pacific Time):
    its limit is the Django setting `setting` (social.planning caps)."""

    setting: str
    zone: str
    what: str = "uploads"


@dataclass(frozen=True, slots=True)
class Capabilities:
    """What a post may hold on the network (social.md section 13). How many images is the
    limits' `maxMedia`, so that one number is never declared twice; `video` is the rules a
    video must meet there, None where the network takes none; `documents`: it publishes a PDF
    as a document post (DOCUMENT_MAX_PAGES), named by the post's title."""

    text: bool
    links: bool
    images: bool
    alt_text: bool
    video: VideoRules | None
    documents: bool
    carousel: bool
    threads: bool
    first_comment: bool
    title: bool


@dataclass(frozen=True, slots=True)
class Option:
    """One key of `variants.<provider>.options`: its name, the values it takes (`choices`,
    empty for any value of its `kind`), and what it does."""

    name: str
    kind: type
    meaning: str
    choices: tuple[Any, ...] = ()
    pattern: str = ""  # a text value must match it whole (regular expression)
    # Publishing needs it (TikTok's `privacyLevel`: no preset allowed); the adapter refuses its
    # absence, so a draft may be saved without it.
    required: bool = False

    def refusal(self, value: Any) -> str:
        """Why the network refuses `value` for this key; empty when it takes it."""
        if not isinstance(value, self.kind) or (self.kind is int and isinstance(value, bool)):
            return f"Must be a {self.kind.__name__}."
        if self.choices and value not in self.choices:
            return f"Must be one of: {', '.join(str(choice) for choice in self.choices)}."
        if self.pattern and not re.fullmatch(self.pattern, str(value)):
            return f"Not a value the network takes: {self.meaning}"
        return ""

    def as_json(self) -> dict[str, Any]:
        described: dict[str, Any] = {"name": self.name, "type": self.kind.__name__}
        if self.choices:
            described["choices"] = list(self.choices)
        if self.pattern:
            described["pattern"] = self.pattern
        if self.required:
            described["required"] = True
        return described


def limits(
    max_characters: int,
    *,
    counts_by: str = "characters",
    max_media: int = 4,
    media_required: bool = False,
    max_hashtags: int | None = None,
    title_required: bool = False,
    max_title: int | None = None,
) -> dict[str, Any]:
    """A network's `limits`, in the platforms list's shape; `counts_by` is how its texts are
    counted (social.providers.counting: validation, preview and the list count alike)."""
    if counts_by not in COUNTS_BY:
        raise ValueError(f"countsBy must be one of {COUNTS_BY}")
    return {
        "maxCharacters": max_characters,
        "countsBy": counts_by,
        "maxMedia": max_media,
        "mediaRequired": media_required,
        "maxHashtags": max_hashtags,
        "titleRequired": title_required,
        "maxTitle": max_title,
    }


@dataclass(frozen=True, slots=True)
class Network:
    """Everything about one network, in one place. `errors`: its rows of the error table
    (social.md section 12), those of its `error_source` (Facebook and Instagram share Graph's);
    the rows every network shares (the adapters' own refusals, the outbound layer's) are
    `social.outcomes`'."""

    provider: str
    name: str
    connect_method: str
    settings: tuple[str, ...]  # the Django settings it reads (credentials, base URLs)
    capabilities: Capabilities
    limits: dict[str, Any]
    options: tuple[Option, ...]
    errors: tuple[Rule, ...]
    exactly_once: str
    adapter: Adapter
    # What connecting asks for (a permission error names some, or none, of them).
    scopes: tuple[str, ...]
    # When to post, without data of the account's own (docs/social.md, "Best times"): (day,
    # local time), best first.
    best_times: tuple[tuple[str, str], ...]
    error_source: str = ""  # defaults to the provider
    # What `POST /api/social/connect` must carry for it besides `code` (its body's field),
    # each with what its absence tells the user: Bluesky's handle, a Mastodon server.
    connect_fields: tuple[tuple[str, str], ...] = ()
    # The connection renews itself for as long as it is used (a Bluesky session: the daily
    # upkeep refreshes it before its refresh token's 90 days run out), so it has no end.
    renews_itself: bool = False
    # Its credentials' end is the access token's (X's two hours), and the refresh token renews
    # them after it: credentials that ran out are renewed, not taken for the connection's end.
    renews_after_expiry: bool = False
    app_cap: AppCap | None = None  # a daily cap the app's accounts share (YouTube's uploads)
    # The platform gives the account its posts' counters (a Telegram bot gets none: its
    # records are never collected, so analytics has no rows for them).
    metrics: bool = True

    @property
    def configured(self) -> bool:
        return self.adapter.configured()

    @property
    def source(self) -> str:
        return self.error_source or self.provider

    def capabilities_json(self) -> dict[str, Any]:
        """`capabilities` as `GET /api/social/platforms` serves it (social.md section 13)."""
        can = self.capabilities
        return {
            "text": can.text,
            "links": can.links,
            "images": can.images,
            "maxImages": int(self.limits["maxMedia"]) if can.images else 0,
            "altText": can.alt_text,
            "video": can.video is not None,
            "documents": can.documents,
            "carousel": can.carousel,
            "threads": can.threads,
            "firstComment": can.first_comment,
            "title": can.title,
            "options": [option.as_json() for option in self.options],
        }

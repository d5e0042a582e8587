"""The one small interface every provider adapter implements (`Adapter`), and what it takes
and returns.

Adapters speak to a provider's API through the outbound layer (core/outbound.py, reached
through social.providers.client) and raise its errors (TransientError, PermanentError,
AuthenticationError), refined per provider by their `classify` hook. They never touch the
database: services load the account into `Credentials`, call the adapter outside any
transaction, and store what the adapter renewed (`Credentials.renewed`) afterwards. What
several adapters share lives beside this module: `client` (calls and their answers),
`lookup` (finding what an earlier attempt made), `media` (a file's bytes), `text` (`Composer`).
"""

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Protocol

from django.utils import timezone

LOOKUP_SKEW = timedelta(seconds=60)  # the platform's clock may be behind ours


class ConnectionRefused(Exception):
    """The provider accepted the login but the connection cannot be made (Facebook: the user
    manages no page; Instagram: no page has a business account). `code` is the API error."""

    def __init__(self, code: str, message: str, *, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details  # what the API error adds (YouTube's missing scopes)


@dataclass(frozen=True, slots=True)
class Identity:
    """Who the connected account is, and the credentials to act as it."""

    provider_user_id: str
    username: str
    display_name: str = ""
    email: str = ""
    avatar: str = ""
    access_token: str = ""
    refresh_token: str = ""
    expires_at: datetime | None = None  # when these credentials stop working unless renewed
    refresh_expires_at: datetime | None = None  # the refresh token's own end, when told
    limits: dict[str, Any] = field(default_factory=dict)
    endpoint: str = ""  # the account's own API server, where it has one (a Bluesky PDS)
    options: dict[str, Any] = field(default_factory=dict)  # the account's own (Pinterest's board)


@dataclass(frozen=True, slots=True)
class OAuthApp:
    """The app the user authorizes: ours from settings, or one registered on a Mastodon
    instance."""

    client_id: str
    client_secret: str


@dataclass(frozen=True, slots=True)
class ConnectRequest:
    """`POST /api/social/connect` as an adapter needs it."""

    code: str  # an OAuth code, an app password or an API key, by connect method
    identifier: str = ""  # Bluesky: handle or e-mail
    redirect_uri: str = ""
    instance: str = ""  # Mastodon: the normalized server URL
    page_id: str = ""  # Facebook / Instagram: which page
    board_id: str = ""  # Pinterest: the account's default board
    location_id: str = ""  # Google Business Profile: which location (`locations/{id}` or the id)
    channel_id: str = ""  # Slack: the public channel to post to (else the general one)
    subreddit: str = ""  # Reddit: the account's default subreddit (else the user's profile)
    app: OAuthApp | None = None  # Mastodon: the app registered on the instance
    state: str = ""  # the consent's state, used up: what a PKCE verifier is derived from (X)


@dataclass(slots=True)
class Credentials:
    """An account's credentials as an adapter acts with them. An adapter that renews them (a
    refreshed session) calls `renew`; the service then stores them."""

    provider_user_id: str
    access_token: str
    refresh_token: str = ""
    expires_at: datetime | None = None  # when these credentials stop working unless renewed
    refresh_expires_at: datetime | None = None  # the refresh token's own end, when told
    username: str = ""
    instance: str = ""  # Mastodon's server
    endpoint: str = ""  # the account's own API server (a Bluesky PDS)
    app: OAuthApp | None = None
    options: dict[str, Any] = field(default_factory=dict)  # the account's own (Pinterest's board)
    renewed: bool = False

    def renew(
        self,
        *,
        access_token: str,
        refresh_token: str | None = None,
        expires_at: datetime | None,
        refresh_expires_at: datetime | None = None,
    ) -> None:
        self.access_token = access_token
        if refresh_token is not None:
            self.refresh_token = refresh_token
        self.expires_at = expires_at
        if refresh_expires_at is not None:
            self.refresh_expires_at = refresh_expires_at
        self.renewed = True

    def __repr__(self) -> str:  # never a secret in a log line or a traceback
        return f"Credentials(provider_user_id={self.provider_user_id!r}, ...)"


@dataclass(frozen=True, slots=True)
class MediaFile:
    """An image or a video to attach. A file we store ourselves is read from storage
    (`stored`, its name there) and `data` may hold its bytes already; a hosted file is fetched
    from `url` through the outbound guard when a platform needs its bytes."""

    url: str
    mime: str = "image/jpeg"
    size: int | None = None
    alt: str = ""
    stored: str = ""
    data: bytes | None = field(default=None, repr=False)
    duration: float | None = None  # a video's, in seconds
    width: int | None = None
    height: int | None = None
    pages: int | None = None  # a document's

    @property
    def video(self) -> bool:
        return self.mime.startswith("video/")

    @property
    def document(self) -> bool:
        """A PDF (social.md section 13): published as a LinkedIn document post."""
        return self.mime == "application/pdf"

    @property
    def processed(self) -> bool:
        """The platform processes it after its upload (a video, a document): the post that
        carries it waits for that (social.md section 10)."""
        return self.video or self.document


@dataclass(frozen=True, slots=True)
class Draft:
    """The fields of a post that decide what is published on one network: the post merged
    with that network's variant (social.md section 9). `thread` holds the follow-up parts
    (each a Draft of content and media), `first_comment` the comment published right after,
    `options` the network's own keys (its options schema checked them).
    `provider` and `from_variant` name where each field came from, so that a problem is
    reported at the field the user wrote (`variants.bluesky.content`)."""

    content: str
    title: str = ""
    hashtags: str = ""
    link: str = ""
    media: tuple[MediaFile, ...] = ()
    thread: tuple["Draft", ...] = ()
    first_comment: str = ""
    options: dict[str, Any] = field(default_factory=dict)  # the network's own keys
    provider: str = ""
    from_variant: frozenset[str] = frozenset()

    def path(self, name: str) -> str:
        """The request field a problem with draft field `name` is reported at."""
        variant = name.split("[", 1)[0].split(".", 1)[0]
        if self.provider and variant in self.from_variant:
            return f"variants.{self.provider}.{name}"
        return name


@dataclass(frozen=True, slots=True)
class Content:
    """What to publish, already composed for the platform (the posts service composes):
    `text` is the body (a link is in it, except where the platform has a link field and
    `link` is set), `title` and `tags` serve Dev.to (and name a video or a document), `media`
    the images."""

    text: str
    link: str = ""
    title: str = ""
    tags: tuple[str, ...] = ()
    media: tuple[MediaFile, ...] = ()
    # A processed video (or document) upload, when the post carries one: what the platform's
    # upload flow left (its ids), for the create that attaches it.
    video: dict[str, Any] | None = None
    # The network's own keys, `variants.<provider>.options`, its options schema checked.
    options: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Attempt:
    """One target's publication, stable across its retries: `key` makes a repeated create
    recognisable (Mastodon's Idempotency-Key, Bluesky's record key; `since`, the record's
    creation, seeds Bluesky's). A lookup among the account's posts reads back to `after`
    (when the record's first attempt began: nothing it made is older), and skips `taken`
    (the posts other records of the account hold: never adopted as this one's). `unknown`:
    an earlier attempt may have made this part (its answer was lost)."""

    key: str
    since: datetime = field(default_factory=timezone.now)
    part: int = 0  # which part of the record (0: the post; then its replies, its comment)
    after: datetime | None = None
    taken: frozenset[str] = frozenset()
    unknown: bool = False
    # What the platform's create flow keeps for this part across attempts (a Threads
    # container made before its publish call): the adapter writes it before a call whose
    # answer may be lost; the record stores it while the part waits for its next attempt.
    state: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def window(self) -> datetime:
        """The oldest moment a post of this record can have: `after` (else `since`), less
        LOOKUP_SKEW for the platform's clock."""
        return (self.after or self.since) - LOOKUP_SKEW

    def ours(self, provider_post_id: str) -> bool:
        """Whether a post found may be this record's: no other record holds it."""
        return provider_post_id not in self.taken


class QuotaReached(Exception):
    """The platform's own count of the account's posts (or replies) for its window is used
    up, read before the create (Threads' publishing limit): nothing was sent; the record
    waits until `until` (None: a window from now) instead of failing."""

    def __init__(self, message: str, *, until: datetime | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.until = until


@dataclass(frozen=True, slots=True)
class Published:
    provider_post_id: str
    url: str
    ref: str = ""  # what a reply must also name (a Bluesky record's cid)


@dataclass(frozen=True, slots=True)
class Metrics:
    """Cumulative counters of one published post (0 where the platform reports none).
    `engagement` is what the platform counts as interactions; `reactions`, `comments` and
    `shares` what it is made of, where the platform tells them apart."""

    impressions: int = 0
    engagement: int = 0
    clicks: int = 0
    reactions: int = 0
    comments: int = 0
    shares: int = 0


class Adapter(Protocol):
    provider: str
    name: str  # the network's name in the adapter's messages (its declaration's)

    def compose(self, draft: Draft) -> Content:
        """What the draft becomes on the platform (social.providers.text.Composer)."""
        ...

    def problems(
        self, draft: Draft, content: Content, limits: dict[str, Any]
    ) -> list[tuple[str, str]]:
        """(field, message) for each of the platform's own rules the draft breaks."""
        ...

    def length(self, text: str, limits: dict[str, Any]) -> int:
        """How long the platform counts a text."""
        ...

    def sent_text(self, text: str, *, kind: str) -> str:
        """A composed part's text (`kind` post, reply or comment) exactly as the platform is
        sent it, its markup escaped: what publishing sends and the preview shows."""
        ...

    def configured(self) -> bool:
        """Whether this server can connect the platform (its app credentials are set)."""
        ...

    def authorize_url(
        self, *, redirect_uri: str, state: str, app: OAuthApp | None, instance: str = ""
    ) -> str:
        """The provider's consent page (OAuth providers only)."""
        ...

    def connect(self, request: ConnectRequest) -> Identity:
        """Exchange the code (or check the credentials) and say who the account is."""
        ...

    def refresh(self, credentials: Credentials) -> None:
        """Renew the credentials if the provider allows it and they need it."""
        ...

    def identity(self, credentials: Credentials) -> Identity:
        """Who the account is now (profile, live limits), with the stored credentials."""
        ...

    def publish(
        self, credentials: Credentials, content: Content, attempt: Attempt
    ) -> Published: ...

    def lookup(
        self, credentials: Credentials, content: Content, attempt: Attempt
    ) -> Published | None:
        """The post an earlier attempt may have created, among the account's recent posts;
        None when it is not there."""
        ...

    comment_limit: int

    def reply(
        self,
        credentials: Credentials,
        content: Content,
        attempt: Attempt,
        *,
        parent: Published,
        root: Published,
    ) -> Published:
        """Publish `content` as the author's reply to `parent` (in the thread of `root`):
        a thread's next part, or a first comment where comments are replies."""
        ...

    def reply_lookup(
        self,
        credentials: Credentials,
        content: Content,
        attempt: Attempt,
        *,
        parent: Published,
        root: Published,
    ) -> Published | None:
        """The reply an earlier attempt may have published; None when it is not there."""
        ...

    def comment(
        self, credentials: Credentials, text: str, attempt: Attempt, *, on: Published
    ) -> Published:
        """Publish `text` as the first comment under the post `on`."""
        ...

    def comment_lookup(
        self, credentials: Credentials, text: str, attempt: Attempt, *, on: Published
    ) -> Published | None:
        """The comment an earlier attempt may have published; None when it is not there."""
        ...

    def video_upload(
        self, credentials: Credentials, content: Content, attempt: Attempt
    ) -> dict[str, Any]:
        """Send the post's video through the platform's upload flow (chunked, streamed from
        storage); what the platform left (its ids), to poll and then publish with."""
        ...

    def processed(self, content: Content) -> bool:
        """Whether the platform processes this post's media before it can be published (a
        video; every medium on Threads): its upload and the wait go through `video_upload` and
        `video_ready`, awaited by tasks (social.md section 10)."""
        ...

    def video_ready(self, credentials: Credentials, state: dict[str, Any]) -> bool:
        """One look at the platform's processing: True once done (the state may gain what
        the create needs, a blob), False while in progress; a processing failure raises
        PermanentError with the platform's reason."""
        ...

    def metrics(self, credentials: Credentials, published: Published) -> Metrics: ...

    def daily_cap(self, credentials: Credentials) -> tuple[int, int] | None:
        """(quota, used) of the account's posts as the platform counts them, where it says;
        None elsewhere."""
        ...

    def revoke(self, credentials: Credentials) -> None:
        """End the provider session or token, where the provider offers it."""
        ...

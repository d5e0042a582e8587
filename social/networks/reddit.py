"""Reddit: a user's posts to a subreddit (or the user's profile), by OAuth (networks/reddit.md)."""

from social.networks.base import (
    Capabilities,
    Network,
    Option,
    Rule,
    limits,
    token_endpoint_rules,
)
from social.providers.reddit import SCOPES, RedditAdapter
from social.providers.reddit.rules import KINDS, MAX_TEXT, MAX_TITLE

SOURCE = "reddit"


def _code(code: str, category: str, meaning: str, remedy: str = "") -> Rule:
    """A `json.errors` code of an answer (HTTP 200 included: the adapter's excerpt names it)."""
    return Rule(SOURCE, category, meaning, code=code, remedy=remedy)


PERMISSION = "Check that the account may post in that subreddit (not banned, not private, not "
PERMISSION += "restricted to approved users), or pick another in variants.reddit.options.subreddit."

# `/api/submit`'s `{json: {errors: [[code, message, field]]}}` (HTTP 200), the token endpoint's
# `{error}` (HTTP 200 or 400), and the HTTP statuses.
ERRORS: tuple[Rule, ...] = (
    *token_endpoint_rules(SOURCE),
    _code(
        "RATELIMIT",
        "rate_limited",
        'The subreddit\'s own throttle of new posts ("take a break for N minutes"): retried '
        "after the time it names.",
    ),
    *(
        _code(code, "permission_missing", meaning, remedy=PERMISSION)
        for code, meaning in (
            ("SUBREDDIT_NOEXIST", "The subreddit does not exist."),
            ("SUBREDDIT_NOTALLOWED", "The account may not post in this subreddit."),
            ("SUBREDDIT_NOTALLOWED_BANNED", "The account is banned from this subreddit."),
            ("USER_REQUIRED", "Reddit did not take the token as a user's."),
        )
    ),
    *(
        _code(code, "content_rejected", meaning)
        for code, meaning in (
            ("NO_TEXT", "A required text (the title, a body) is missing."),
            ("TOO_LONG", "A field is longer than Reddit takes."),
            ("TOO_SHORT", "A field is shorter than the subreddit takes."),
            ("NO_SELFS", "The subreddit takes no text posts."),
            ("NO_LINKS", "The subreddit takes no link posts."),
            ("BAD_URL", "The link is not a URL Reddit takes."),
            ("ALREADY_SUB", "The link was already posted there."),
            ("SUBMIT_VALIDATION_FLAIR_REQUIRED", "The subreddit requires a flair."),
            ("INVALID_OPTION", "An option Reddit does not take."),
            ("NO_IMAGES", "The subreddit takes no image posts."),
        )
    ),
    Rule(
        SOURCE,
        "content_rejected",
        "Another of the subreddit's rules (SUBMIT_VALIDATION_*): the post breaks it.",
        text="(submit_validation_",
    ),
    Rule(
        SOURCE,
        "media_invalid",
        "Reddit's upload address refused the image's form.",
        text="upload address refused",
    ),
    Rule(SOURCE, "auth_expired", "The access token was refused (HTTP 401).", status=401),
    Rule(
        SOURCE,
        "permission_missing",
        "Forbidden (HTTP 403): banned, suspended, a private subreddit.",
        status=403,
        remedy=PERMISSION,
    ),
    Rule(
        SOURCE,
        "rate_limited",
        "HTTP 429: the app's calls a minute (a generic User-Agent too): after X-Ratelimit-Reset.",
        status=429,
    ),
    Rule(
        SOURCE,
        "content_rejected",
        "Any other refusal in the answer's json.errors, or any other HTTP 4xx.",
        status=(200, 428),
    ),
)


NETWORK = Network(
    provider="reddit",
    name="Reddit",
    connect_method="oauth",
    settings=(
        "REDDIT_CLIENT_ID",
        "REDDIT_CLIENT_SECRET",
        "REDDIT_AUTH_URL",
        "REDDIT_API_URL",
        "REDDIT_USER_AGENT",
    ),
    capabilities=Capabilities(
        text=True,
        links=True,
        images=True,  # one image: leased, uploaded, submitted, then found in the user's posts
        alt_text=False,
        video=None,
        documents=False,
        carousel=False,
        threads=False,
        first_comment=True,
        title=True,
    ),
    limits=limits(MAX_TEXT, max_media=1, title_required=True, max_title=MAX_TITLE),
    options=(
        Option(
            "subreddit",
            str,
            "The subreddit to post to (without r/), or a profile's u_{name}; default the "
            "account's.",
            pattern=r"[A-Za-z0-9_]{3,21}|u_[A-Za-z0-9_-]{3,20}",
        ),
        Option(
            "kind",
            str,
            "A text post (self, the default), a link post (the post's link), or an image post "
            "(its one image; the default when one is attached).",
            choices=KINDS,
        ),
        Option(
            "flairId",
            str,
            "A link flair of the subreddit (its template id).",
            pattern=r"[\w-]{1,64}",
        ),
        Option("flairText", str, "The flair's text, for an editable flair.", pattern=r".{1,64}"),
        Option("nsfw", bool, "Mark the post NSFW."),
        Option("spoiler", bool, "Mark the post a spoiler."),
        Option("sendReplies", bool, "Send replies to the user's inbox (default true)."),
    ),
    errors=ERRORS,
    # No idempotency key: the user's submitted posts are looked up before any retry.
    exactly_once="lookup",
    adapter=RedditAdapter(),
    scopes=tuple(SCOPES.split()),
    best_times=(
        ("mon", "08:00"),
        ("sun", "09:00"),
        ("sat", "09:00"),
        ("wed", "08:00"),
        ("tue", "08:00"),
    ),
)

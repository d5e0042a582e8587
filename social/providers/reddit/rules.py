"""Reddit's rules of a post (networks/reddit.md): what validation refuses before anything is
saved (the title, the kind of post and what it needs, the options that go together), and what a
subreddit asks of a post, read before the first submit to it (`post_requirements`, and the link
flairs when a flair is required or named; each kept an hour): a required flair missing, a flair
that is not the subreddit's, a title outside its lengths, a body it requires or forbids fail the
record at once, nothing submitted."""

from typing import Any

from django.conf import settings
from django.core.cache import cache

from core import outbound
from social.providers.base import Content, Draft
from social.providers.text import Problem

MAX_TITLE = 300
MAX_TEXT = 40_000
MAX_COMMENT = 10_000
MAX_IMAGE_BYTES = 20 * 1024 * 1024  # Reddit's image posts (unverified)
IMAGE_TYPES = ("image/jpeg", "image/png", "image/gif")
KINDS = ("self", "link", "image")
OPTIONS = "variants.reddit.options"
REQUIREMENTS_SECONDS = 3600  # a subreddit's requirements and flairs, kept this long


def kind_of(options: dict[str, Any], media: tuple[Any, ...]) -> str:
    """The kind of post: `options.kind`, else an image post when an image is attached, else a
    text (self) post."""
    kind = str(options.get("kind") or "")
    if kind:
        return kind
    return "image" if media else "self"


def draft_problems(draft: Draft, content: Content) -> list[Problem]:
    """The title (required, at most 300), the kind and what it needs (a link post its link, an
    image post one image, the others none), a flair's text only with its flair."""
    found: list[Problem] = []
    title = draft.title.strip()
    if not title:
        found.append(("title", "A Reddit post needs a title: add one."))
    elif len(title) > MAX_TITLE:
        found.append(("title", f"Reddit titles are at most {MAX_TITLE} characters."))
    kind = kind_of(draft.options, draft.media)
    if kind == "link" and not draft.link:
        found.append(("link", "A Reddit link post needs its link."))
    if kind == "image":
        images = [media for media in draft.media if not media.video]
        if len(draft.media) != 1 or not images:
            found.append(("mediaIds", "A Reddit image post takes one image."))
        for image in images:
            if image.mime not in IMAGE_TYPES:
                found.append(("mediaIds", "Reddit takes JPEG, PNG or GIF images."))
            if (image.size or 0) > MAX_IMAGE_BYTES:
                found.append(
                    ("mediaIds", f"Reddit takes images of at most {MAX_IMAGE_BYTES} bytes.")
                )
    elif draft.media:
        found.append(
            (
                f"{OPTIONS}.kind",
                f"A Reddit {kind} post takes no media: remove it, or post an image.",
            )
        )
    if draft.options.get("flairText") and not draft.options.get("flairId"):
        found.append((f"{OPTIONS}.flairText", "A flair's text goes with its flairId."))
    subreddit = str(draft.options.get("subreddit") or "")
    if subreddit.lower().startswith("r/"):
        found.append((f"{OPTIONS}.subreddit", "Name the subreddit without 'r/'."))
    return found


# --- What a subreddit asks of a post (read before the first submit to it) ---------------------


def _key(what: str, subreddit: str) -> str:
    return f"reddit:{what}:{settings.REDDIT_API_URL}:{subreddit.lower()}"


def requirements(call: Any, subreddit: str) -> dict[str, Any]:
    """`GET /api/v1/{sr}/post_requirements`, kept an hour."""
    key = _key("requirements", subreddit)
    found = cache.get(key)
    if found is None:
        found = call("GET", f"api/v1/{subreddit}/post_requirements")
        found = found if isinstance(found, dict) else {}
        cache.set(key, found, timeout=REQUIREMENTS_SECONDS)
    return dict(found)


def flairs(call: Any, subreddit: str) -> list[dict[str, Any]]:
    """`GET /r/{sr}/api/link_flair_v2`: the link flairs a user may pick, kept an hour."""
    key = _key("flairs", subreddit)
    found = cache.get(key)
    if found is None:
        found = call("GET", f"r/{subreddit}/api/link_flair_v2")
        found = (
            [item for item in found if isinstance(item, dict)] if isinstance(found, list) else []
        )
        cache.set(key, found, timeout=REQUIREMENTS_SECONDS)
    return list(found)


def _refused(subreddit: str, code: str, said: str) -> outbound.PermanentError:
    return outbound.PermanentError(
        f"r/{subreddit}'s post requirements refuse the post ({code}): {said}"
    )


def subreddit_check(call: Any, subreddit: str, content: Content, kind: str) -> None:
    """The subreddit's requirements met, else PermanentError (nothing submitted): its flair
    (required, or the one named among its flairs), its title's lengths, its body policy."""
    asked = requirements(call, subreddit)
    flair = str(content.options.get("flairId") or "")
    if asked.get("is_flair_required") and not flair:
        raise _refused(
            subreddit,
            "flair_required",
            f"r/{subreddit} requires a flair: choose one in {OPTIONS}.flairId.",
        )
    if flair:
        known = {str(item.get("id")) for item in flairs(call, subreddit)}
        if flair not in known:
            raise _refused(
                subreddit,
                "flair_invalid",
                f"{OPTIONS}.flairId {flair} is not one of r/{subreddit}'s flairs.",
            )
    title = content.title.strip()
    low = int(asked.get("title_text_min_length") or 0)
    high = int(asked.get("title_text_max_length") or MAX_TITLE)
    if not low <= len(title) <= high:
        raise _refused(
            subreddit, "title_length", f"titles there are {low or 1} to {high} characters."
        )
    policy = str(asked.get("body_restriction_policy") or "none")
    if kind == "self" and policy == "required" and not content.text.strip():
        raise _refused(subreddit, "body_required", "a text post there needs a body.")
    if kind == "self" and policy == "notAllowed" and content.text.strip():
        raise _refused(subreddit, "body_not_allowed", "a text post there takes no body.")

"""What a post becomes on a platform, and the rules it must fit there (social.md section 3).

Every adapter is a `Composer`: by default the text is `content`, then `link` (when given and not
already in the content), then the hashtags not already in the content, separated by blank
lines, and it must fit the platform's `maxCharacters`. A platform with other rules overrides
`compose` (LinkedIn and Facebook carry the link in their own field, Dev.to takes the title,
the markdown and tags) or `problems` (Bluesky counts graphemes and bytes, Mastodon counts a
link as a fixed length, Instagram needs an image, Dev.to a title). How a text is counted, by
the network's `countsBy` (X's weighted count among them), is social.providers.counting. Rules
every platform shares (how many images, images only) are checked by
social.content.services.composition.
"""

import re
from typing import Any

from core import outbound
from social.providers.base import Attempt, Content, Credentials, Draft, Published
from social.providers.counting import count

URL = re.compile(r"https?://\S+")
HASHTAG = re.compile(r"(?<![\w#])#(\w+)")


Problem = tuple[str, str]  # (field, message)


def hashtag_list(hashtags: str) -> list[str]:
    """'design #ux, Figma' -> ['#design', '#ux', '#Figma'] (order kept, repeats dropped)."""
    words = [word.strip().lstrip("#") for word in re.split(r"[\s,]+", hashtags)]
    return list(dict.fromkeys(f"#{word}" for word in words if word))


def missing_tags(draft: Draft) -> list[str]:
    """The draft's hashtags its content does not carry yet."""
    present = {tag.lower() for tag in HASHTAG.findall(draft.content)}
    return [tag for tag in hashtag_list(draft.hashtags) if tag[1:].lower() not in present]


class Composer:
    """The default composition and length rule; adapters override what differs."""

    name: str = ""  # the platform's name in messages
    link_field: bool = False  # the platform takes the link in a field of its own
    comment_limit: int = 1250  # characters of a comment

    def compose(self, draft: Draft) -> Content:
        parts = [draft.content.strip()]
        if draft.link and draft.link not in draft.content and not self.link_field:
            parts.append(draft.link)
        tags = missing_tags(draft)
        if tags:
            parts.append(" ".join(tags))
        text = "\n\n".join(part for part in parts if part)
        return Content(
            text=text, link=draft.link, title=draft.title, media=draft.media, options=draft.options
        )

    def length(self, text: str, limits: dict[str, Any]) -> int:
        """How long the platform counts a text: by its `countsBy` (social.providers.counting),
        the one count validation, preview and `limits` share."""
        return count(text, str(limits.get("countsBy") or "characters"))

    def sent_text(self, text: str, *, kind: str) -> str:
        """The text as sent: most platforms take plain text as it is."""
        return text

    def problems(self, draft: Draft, content: Content, limits: dict[str, Any]) -> list[Problem]:
        """The platform's own rules the composed draft breaks."""
        maximum, length = int(limits["maxCharacters"]), self.length(content.text, limits)
        if length > maximum:
            weighted = " (weighted)" if limits.get("countsBy") == "weighted" else ""
            return [
                (
                    "content",
                    f"{self.name} posts are at most {maximum} characters{weighted}; this one "
                    f"is {length}.",
                )
            ]
        return []

    # Parts beyond the post (social.md section 9): a network whose capabilities have no threads
    # or first comment never gets one (validation refuses them before anything is sent).

    def reply(
        self,
        credentials: Credentials,
        content: Content,
        attempt: Attempt,
        *,
        parent: Published,
        root: Published,
    ) -> Published:
        raise outbound.PermanentError(f"{self.name} has no threads.")

    def reply_lookup(
        self,
        credentials: Credentials,
        content: Content,
        attempt: Attempt,
        *,
        parent: Published,
        root: Published,
    ) -> Published | None:
        return None

    def comment(
        self, credentials: Credentials, text: str, attempt: Attempt, *, on: Published
    ) -> Published:
        raise outbound.PermanentError(f"{self.name} takes no first comment.")

    def comment_lookup(
        self, credentials: Credentials, text: str, attempt: Attempt, *, on: Published
    ) -> Published | None:
        return None

    def video_upload(
        self, credentials: Credentials, content: Content, attempt: Attempt
    ) -> dict[str, Any]:
        raise outbound.PermanentError(f"{self.name} takes no video.")

    def processed(self, content: Content) -> bool:
        return any(media.processed for media in content.media)

    def daily_cap(self, credentials: Credentials) -> tuple[int, int] | None:
        """(quota, used) of the account's posts in the platform's own count, where the
        platform tells it (Threads); None: our own count is the one (social.planning caps)."""
        return None

    def video_ready(self, credentials: Credentials, state: dict[str, Any]) -> bool:
        raise outbound.PermanentError(f"{self.name} takes no video.")

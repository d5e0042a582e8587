"""Threads' publishing: every post and every reply is a container (`POST /{user}/threads`),
then `threads_publish`. A post with media is processed first: its containers (one, or a
carousel's items) are made by `video_upload` and awaited by tasks (`video_ready`) until
FINISHED; a reply's image is awaited in the call, briefly.

Exactly once: a part's container id is kept (`Attempt.state`, stored on the record while the
part waits) before `threads_publish` is called. After a lost answer the container's status
decides: PUBLISHED, the post is found among the account's posts (or the parent's replies) by
its text; FINISHED, that same container is published; EXPIRED or ERROR, a new one is made (a
text) or the media failed. A new container is never published while an older one of the same
part may be PUBLISHED. The 250 posts and 1,000 replies a day are read before each create: used
up, the record waits (QuotaReached)."""

from collections.abc import Callable
from typing import Any

from django.utils import timezone

from social.providers.base import (
    Attempt,
    Content,
    Credentials,
    Draft,
    MediaFile,
    Metrics,
    Published,
)
from social.providers.client import moment
from social.providers.lookup import LOOKUP_PAGE_SIZE, Page, lookup_pages, same_text
from social.providers.text import Problem
from social.providers.threads import rules
from social.providers.threads.containers import ThreadsContainers

OPTIONS = {"replyControl": "reply_control", "topicTag": "topic_tag"}
ENGAGEMENT = ("likes", "replies", "reposts", "quotes", "shares")


def _media_fields(media: MediaFile, *, item: bool) -> dict[str, str]:
    fields = (
        {"media_type": "VIDEO", "video_url": media.url}
        if media.video
        else {"media_type": "IMAGE", "image_url": media.url}
    )
    if media.alt:
        fields["alt_text"] = media.alt
    if item:
        fields["is_carousel_item"] = "true"
    return fields


def _options(content: Content) -> dict[str, str]:
    return {OPTIONS[key]: str(value) for key, value in content.options.items() if key in OPTIONS}


class ThreadsAdapter(ThreadsContainers):
    provider = "threads"
    name = "Threads"
    comment_limit = 500  # the first comment is the author's reply: a post's limit

    def length(self, text: str, limits: dict[str, Any]) -> int:
        return rules.length(text)

    def problems(self, draft: Draft, content: Content, limits: dict[str, Any]) -> list[Problem]:
        return rules.problems(draft, content, limits)

    def processed(self, content: Content) -> bool:
        return bool(content.media)  # images are processed too: FINISHED before publishing

    # --- The post -------------------------------------------------------------------------------

    def video_upload(
        self, credentials: Credentials, content: Content, attempt: Attempt
    ) -> dict[str, Any]:
        """The post's media containers, which Threads fetches by URL and processes: one
        (`IMAGE` or `VIDEO`, with the text and options), or a carousel's items (2 to 20, each
        with its alt text); `video_ready` awaits them. The quota is read first."""
        self.quota_check(credentials, reply=False)
        if len(content.media) == 1:
            fields = _media_fields(content.media[0], item=False)
            container = self._container(
                credentials, text=content.text, **fields, **_options(content)
            )
            videos = [container] if content.media[0].video else []
            return {"container": container, "videos": videos, "created": timezone.now().isoformat()}
        children = [
            self._container(credentials, **_media_fields(media, item=True))
            for media in content.media
        ]
        videos = [child for child, m in zip(children, content.media, strict=True) if m.video]
        return {"children": children, "videos": videos, "finished": []}

    def video_ready(self, credentials: Credentials, state: dict[str, Any]) -> bool:
        finished: list[str] = state.setdefault("finished", [])
        videos = set(state.get("videos") or [])
        for container in state.get("children") or [state["container"]]:
            if container in finished:
                continue
            if not self._finished(credentials, container, video=container in videos):
                return False
            finished.append(container)
        return True

    def publish(self, credentials: Credentials, content: Content, attempt: Attempt) -> Published:
        self.quota_check(credentials, reply=False)
        children = list((content.video or {}).get("children") or [])

        def make() -> str:
            if children:  # the carousel's own container, once its items are FINISHED
                return self._container(
                    credentials,
                    media_type="CAROUSEL",
                    children=",".join(children),
                    text=content.text,
                    **_options(content),
                )
            return self._container(
                credentials, media_type="TEXT", text=content.text, **_options(content)
            )

        return self._publish_once(
            credentials,
            attempt,
            make=make,
            find=lambda: self._find_post(credentials, content.text, attempt),
            media=bool(content.media),
        )

    def lookup(
        self, credentials: Credentials, content: Content, attempt: Attempt
    ) -> Published | None:
        return self.settled(
            credentials, attempt, lambda: self._find_post(credentials, content.text, attempt)
        )

    def _find_post(self, credentials: Credentials, text: str, attempt: Attempt) -> Published | None:
        def page(after: str | None) -> Page:
            found = self._get(
                f"{credentials.provider_user_id}/threads",
                credentials.access_token,
                fields="id,text,timestamp,permalink",
                limit=LOOKUP_PAGE_SIZE,
                since=int(attempt.window.timestamp()),
                **({"after": after} if after else {}),
            )
            return _page(found)

        return self._found(page, text, attempt, credentials)

    def _found(
        self,
        page: Callable[[str | None], Page],
        text: str,
        attempt: Attempt,
        credentials: Credentials,
    ) -> Published | None:
        item = lookup_pages(
            self.name,
            page,
            attempt=attempt,
            created=lambda item: moment(item.get("timestamp")),
            matches=lambda item: (
                attempt.ours(str(item.get("id")))
                and same_text(str(item.get("text") or ""), text)
                and _by(item, credentials.username)
            ),
        )
        if item is None:
            return None
        return Published(provider_post_id=str(item["id"]), url=str(item.get("permalink") or ""))

    # --- Replies: a thread's parts and the first comment ------------------------------------------

    def reply(
        self,
        credentials: Credentials,
        content: Content,
        attempt: Attempt,
        *,
        parent: Published,
        root: Published,
    ) -> Published:
        """A container with `reply_to_id` = the part before, published like a post (the
        1,000 replies a day read first)."""
        self.quota_check(credentials, reply=True)
        to = parent.provider_post_id

        def make() -> str:
            if len(content.media) > 1:
                children = [
                    self._container(credentials, **_media_fields(media, item=True))
                    for media in content.media
                ]
                for child in children:
                    self._wait(credentials, child)
                return self._container(
                    credentials,
                    media_type="CAROUSEL",
                    children=",".join(children),
                    text=content.text,
                    reply_to_id=to,
                )
            fields = (
                _media_fields(content.media[0], item=False)
                if content.media
                else {"media_type": "TEXT"}
            )
            return self._container(credentials, text=content.text, reply_to_id=to, **fields)

        return self._publish_once(
            credentials,
            attempt,
            make=make,
            find=lambda: self._find_reply(credentials, content.text, attempt, parent),
            media=bool(content.media),
        )

    def reply_lookup(
        self,
        credentials: Credentials,
        content: Content,
        attempt: Attempt,
        *,
        parent: Published,
        root: Published,
    ) -> Published | None:
        return self.settled(
            credentials,
            attempt,
            lambda: self._find_reply(credentials, content.text, attempt, parent),
        )

    def _find_reply(
        self, credentials: Credentials, text: str, attempt: Attempt, parent: Published
    ) -> Published | None:
        def page(after: str | None) -> Page:
            found = self._get(
                f"{parent.provider_post_id}/replies",
                credentials.access_token,
                fields="id,text,timestamp,permalink,username",
                reverse="true",  # newest first
                limit=LOOKUP_PAGE_SIZE,
                **({"after": after} if after else {}),
            )
            return _page(found)

        return self._found(page, text, attempt, credentials)

    def comment(
        self, credentials: Credentials, text: str, attempt: Attempt, *, on: Published
    ) -> Published:
        """The first comment: the author's reply to the post."""
        return self.reply(credentials, Content(text=text), attempt, parent=on, root=on)

    def comment_lookup(
        self, credentials: Credentials, text: str, attempt: Attempt, *, on: Published
    ) -> Published | None:
        return self.reply_lookup(credentials, Content(text=text), attempt, parent=on, root=on)

    # --- Metrics --------------------------------------------------------------------------------

    def metrics(self, credentials: Credentials, published: Published) -> Metrics:
        """`/{media}/insights` (lifetime): views are the impressions; likes, replies, reposts,
        quotes and shares the engagement; Threads reports no clicks."""
        insights = self._get(
            f"{published.provider_post_id}/insights",
            credentials.access_token,
            metric="views," + ",".join(ENGAGEMENT),
        )
        values: dict[str, int] = {}
        for metric in insights.get("data") or []:
            series = metric.get("values") or [{}]
            try:
                values[str(metric.get("name"))] = int(series[-1].get("value") or 0)
            except (TypeError, ValueError, AttributeError):
                continue
        return Metrics(
            impressions=values.get("views", 0),
            engagement=sum(values.get(name, 0) for name in ENGAGEMENT),
            reactions=values.get("likes", 0),
            comments=values.get("replies", 0),
            shares=sum(values.get(name, 0) for name in ("reposts", "quotes", "shares")),
        )


def _by(item: dict[str, Any], username: str) -> bool:
    """Whether the account wrote the item (a reply among others' replies), where both are known."""
    return not username or not item.get("username") or str(item["username"]) == username


def _page(found: dict[str, Any]) -> Page:
    """A Graph edge's page (newest first) and the cursor of the next, None at the end."""
    paging = found.get("paging") or {}
    cursor = (paging.get("cursors") or {}).get("after") if paging.get("next") else None
    return list(found.get("data") or []), cursor

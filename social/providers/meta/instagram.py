"""Instagram: the business account behind a Facebook page, acted on with that page's token.
It publishes in two steps, a media container and then `media_publish`; a video is a `REELS`
container (or items of a carousel) Instagram fetches by URL and processes first."""

import time
from typing import Any

from core import outbound
from social.providers.base import (
    Attempt,
    ConnectionRefused,
    ConnectRequest,
    Content,
    Credentials,
    Draft,
    Identity,
    Metrics,
    Published,
)
from social.providers.lookup import same_text
from social.providers.meta.graph import INSTAGRAM_SCOPES, GraphAdapter, alt, insight_values
from social.providers.text import HASHTAG, Problem

CONTAINER_POLL_SECONDS = (1.0, 2.0, 3.0, 4.0)  # about 10 s for an image container


class InstagramAdapter(GraphAdapter):
    provider = "instagram"
    scopes = INSTAGRAM_SCOPES
    name = "Instagram"
    comment_limit = 2200
    comment_text_field = "text"
    comment_time_field = "timestamp"

    def problems(self, draft: Draft, content: Content, limits: dict[str, Any]) -> list[Problem]:
        """The caption's length, at least one image, at most 30 hashtags."""
        found = super().problems(draft, content, limits)
        if not draft.media:
            found.append(("media", "Instagram posts need at least one image or video."))
        tags = len(HASHTAG.findall(content.text))
        if tags > int(limits.get("maxHashtags") or 30):
            found.append(
                ("hashtags", f"Instagram captions take at most 30 hashtags; this one has {tags}.")
            )
        return found

    def connect(self, request: ConnectRequest) -> Identity:
        for page in self._pages(request):
            token = str(page["access_token"])
            linked = self._get(str(page["id"]), token, fields="instagram_business_account")
            business = linked.get("instagram_business_account") or {}
            if business.get("id"):
                return self.identity(
                    Credentials(provider_user_id=str(business["id"]), access_token=token)
                )
        raise ConnectionRefused(
            "no_instagram_account",
            "No Facebook page of this login has an Instagram business account linked.",
        )

    def identity(self, credentials: Credentials) -> Identity:
        profile = self._get(
            credentials.provider_user_id,
            credentials.access_token,
            fields="id,username,name,profile_picture_url",
        )
        return Identity(
            provider_user_id=str(profile.get("id") or credentials.provider_user_id),
            username=str(profile.get("username") or ""),
            display_name=str(profile.get("name") or ""),
            avatar=str(profile.get("profile_picture_url") or ""),
            access_token=credentials.access_token,
        )

    def _container(self, credentials: Credentials, **fields: Any) -> str:
        created = self._post(
            f"{credentials.provider_user_id}/media", credentials.access_token, **fields
        )
        return str(created["id"])

    def _wait_until_ready(self, credentials: Credentials, container: str) -> None:
        for delay in (0.0, *CONTAINER_POLL_SECONDS):
            time.sleep(delay)
            status = self._get(container, credentials.access_token, fields="status_code")
            code = str(status.get("status_code") or "")
            if code in ("FINISHED", "PUBLISHED"):
                return
            if code in ("ERROR", "EXPIRED"):
                raise outbound.PermanentError(
                    f"Instagram could not process the image ({code.lower()})."
                )
        raise outbound.TransientError("Instagram is still processing the image.")

    def _publish_container(self, credentials: Credentials, container: str) -> str:
        published = self._post(
            f"{credentials.provider_user_id}/media_publish",
            credentials.access_token,
            creation_id=container,
        )
        return str(published["id"])

    def video_upload(
        self, credentials: Credentials, content: Content, attempt: Attempt
    ) -> dict[str, Any]:
        """A `REELS` container (`video_url`, the caption); in a carousel, one item container
        per file (`VIDEO` or image, `is_carousel_item`). Instagram fetches and processes each;
        `video_ready` polls their `status_code`."""
        if len(content.media) == 1:
            video = content.media[0]
            reel = self._container(
                credentials, media_type="REELS", video_url=video.url, caption=content.text
            )
            return {"container": reel, "children": [], "finished": []}
        children = [
            self._container(
                credentials,
                is_carousel_item="true",
                **(
                    {"media_type": "VIDEO", "video_url": media.url}
                    if media.video
                    else {"image_url": media.url, **alt(media, "alt_text")}
                ),
            )
            for media in content.media
        ]
        return {"container": "", "children": children, "finished": []}

    def video_ready(self, credentials: Credentials, state: dict[str, Any]) -> bool:
        finished: list[str] = state.setdefault("finished", [])
        for container in state["children"] or [state["container"]]:
            if container in finished:
                continue
            found = self._get(container, credentials.access_token, fields="status_code,status")
            code = str(found.get("status_code") or "")
            if code in ("ERROR", "EXPIRED"):
                reason = found.get("status") or code.lower()
                raise outbound.PermanentError(f"Instagram could not process the video: {reason}.")
            if code not in ("FINISHED", "PUBLISHED"):
                return False
            finished.append(container)
        return True

    def publish(self, credentials: Credentials, content: Content, attempt: Attempt) -> Published:
        if not content.media:
            raise outbound.PermanentError("Instagram needs an image.")
        if content.video and content.video.get("children"):
            container = self._container(
                credentials,
                media_type="CAROUSEL",
                children=",".join(content.video["children"]),
                caption=content.text,
            )
        elif content.video:
            container = str(content.video["container"])
        elif len(content.media) == 1:
            container = self._container(
                credentials,
                image_url=content.media[0].url,
                caption=content.text,
                **alt(content.media[0], "alt_text"),
            )
        else:
            children = [
                self._container(
                    credentials,
                    image_url=media.url,
                    is_carousel_item="true",
                    **alt(media, "alt_text"),
                )
                for media in content.media
            ]
            container = self._container(
                credentials,
                media_type="CAROUSEL",
                children=",".join(children),
                caption=content.text,
            )
        # An image container is usually ready at once: publish, and wait only when Graph
        # says it is not (code 9007), instead of polling its status before every publish.
        try:
            media_id = self._publish_container(credentials, container)
        except outbound.PermanentError as error:
            if '"code": 9007' not in error.excerpt and '"code":9007' not in error.excerpt:
                raise
            self._wait_until_ready(credentials, container)
            media_id = self._publish_container(credentials, container)
        try:
            permalink = str(
                self._get(media_id, credentials.access_token, fields="permalink").get("permalink")
                or ""
            )
        except outbound.OutboundError:
            permalink = ""
        return Published(provider_post_id=media_id, url=permalink)

    def lookup(
        self, credentials: Credentials, content: Content, attempt: Attempt
    ) -> Published | None:
        item = self._find(
            f"{credentials.provider_user_id}/media",
            credentials,
            attempt,
            fields="id,caption,permalink,timestamp",
            created="timestamp",
            matches=lambda item: same_text(str(item.get("caption") or ""), content.text),
        )
        if item is None:
            return None
        return Published(provider_post_id=str(item["id"]), url=str(item.get("permalink") or ""))

    def metrics(self, credentials: Credentials, published: Published) -> Metrics:
        insights = self._get(
            f"{published.provider_post_id}/insights",
            credentials.access_token,
            metric="reach,likes,comments,saved,shares,total_interactions",
        )
        values = insight_values(insights)
        engagement = values.get("total_interactions") or sum(
            values.get(name, 0) for name in ("likes", "comments", "saved", "shares")
        )
        return Metrics(
            impressions=values.get("reach", 0),
            engagement=engagement,
            reactions=values.get("likes", 0),
            comments=values.get("comments", 0),
            shares=values.get("shares", 0),
        )

"""Facebook Pages: the account is a page the Meta login manages, acting with its page token.
Its posts are photos or a feed post with attached photos; a video is fetched by Facebook from
its URL and published by Facebook once processed."""

from typing import Any

from core import outbound
from social.providers.base import (
    Attempt,
    ConnectionRefused,
    ConnectRequest,
    Content,
    Credentials,
    Identity,
    Metrics,
    Published,
)
from social.providers.lookup import same_text
from social.providers.meta.graph import (
    DUPLICATE_POST,
    FACEBOOK_SCOPES,
    GraphAdapter,
    alt,
    graph_code,
    insight_values,
    picture,
    summary_count,
)


class FacebookAdapter(GraphAdapter):
    provider = "facebook"
    scopes = FACEBOOK_SCOPES
    name = "Facebook Pages"
    link_field = True
    comment_limit = 8000

    def connect(self, request: ConnectRequest) -> Identity:
        pages = self._pages(request)
        if not pages:
            raise ConnectionRefused(
                "no_facebook_page",
                "The Facebook login manages no page this app may publish to."
                if not request.page_id
                else "That page is not among the pages this Facebook login manages.",
            )
        page = pages[0]
        return Identity(
            provider_user_id=str(page["id"]),
            username=str(page.get("name") or page["id"]),
            display_name=str(page.get("name") or ""),
            avatar=picture(page),
            access_token=str(page["access_token"]),
        )

    def identity(self, credentials: Credentials) -> Identity:
        page = self._get(
            credentials.provider_user_id, credentials.access_token, fields="id,name,picture{url}"
        )
        return Identity(
            provider_user_id=str(page["id"]),
            username=str(page.get("name") or page["id"]),
            display_name=str(page.get("name") or ""),
            avatar=picture(page),
            access_token=credentials.access_token,
        )

    def video_upload(
        self, credentials: Credentials, content: Content, attempt: Attempt
    ) -> dict[str, Any]:
        """`POST /{page-id}/videos` with `file_url` (the file's public URL) and the text as
        `description`: Facebook fetches it, processes it and publishes the post itself."""
        video = next(media for media in content.media if media.video)
        created = self._post(
            f"{credentials.provider_user_id}/videos",
            credentials.access_token,
            file_url=video.url,
            description=content.text,
        )
        return {"videoId": str(created["id"])}

    def video_ready(self, credentials: Credentials, state: dict[str, Any]) -> bool:
        """`GET /{video-id}?fields=status,permalink_url`: `status.video_status` is `ready`
        once processed, `error` with the processing phase's errors."""
        found = self._get(state["videoId"], credentials.access_token, fields="status,permalink_url")
        status = found.get("status") or {}
        if status.get("video_status") == "error":
            errors = (status.get("processing_phase") or {}).get("errors") or [{}]
            reason = errors[0].get("message") or "no reason given"
            raise outbound.PermanentError(f"Facebook could not process the video: {reason}.")
        if status.get("video_status") == "ready":
            state["url"] = str(found.get("permalink_url") or "")
            return True
        return False

    def publish(self, credentials: Credentials, content: Content, attempt: Attempt) -> Published:
        try:
            return self._create(credentials, content)
        except outbound.PermanentError as error:
            # Graph's 506 refuses a duplicate of a recent post: this record's own only when an
            # earlier attempt of it may have made it and the lookup finds it (no other record
            # holds it); otherwise the same text was published before: refused.
            if attempt.unknown and graph_code(error) == DUPLICATE_POST:
                found = self.lookup(credentials, content, attempt)
                if found is not None:
                    return found
            raise

    def _create(self, credentials: Credentials, content: Content) -> Published:
        page, token = credentials.provider_user_id, credentials.access_token
        if content.video:  # published by Facebook once processed
            video_id = str(content.video["videoId"])
            url = str(content.video.get("url") or "") or f"https://www.facebook.com/{video_id}"
            if url.startswith("/"):
                url = f"https://www.facebook.com{url}"
            return Published(provider_post_id=video_id, url=url)
        if len(content.media) == 1:
            photo = self._post(
                f"{page}/photos",
                token,
                url=content.media[0].url,
                caption=content.text,
                **alt(content.media[0], "alt_text_custom"),
            )
            post_id = str(photo.get("post_id") or photo["id"])
        else:
            fields: dict[str, Any] = {"message": content.text}
            if content.link:
                fields["link"] = content.link
            for index, media in enumerate(content.media):
                photo = self._post(
                    f"{page}/photos",
                    token,
                    url=media.url,
                    published="false",
                    **alt(media, "alt_text_custom"),
                )
                fields[f"attached_media[{index}]"] = f'{{"media_fbid":"{photo["id"]}"}}'
            post_id = str(self._post(f"{page}/feed", token, **fields)["id"])
        # "{page}_{post}" opens the post at facebook.com: no extra round trip for its permalink.
        return Published(provider_post_id=post_id, url=f"https://www.facebook.com/{post_id}")

    def lookup(
        self, credentials: Credentials, content: Content, attempt: Attempt
    ) -> Published | None:
        post = self._find(
            f"{credentials.provider_user_id}/feed",
            credentials,
            attempt,
            fields="id,message,created_time,permalink_url",
            created="created_time",
            matches=lambda post: same_text(str(post.get("message") or ""), content.text),
        )
        if post is None:
            return None
        post_id = str(post["id"])
        url = str(post.get("permalink_url") or f"https://www.facebook.com/{post_id}")
        return Published(provider_post_id=post_id, url=url)

    def metrics(self, credentials: Credentials, published: Published) -> Metrics:
        token = credentials.access_token
        post = self._get(
            published.provider_post_id,
            token,
            fields="reactions.summary(true),comments.summary(true),shares",
        )
        reactions = summary_count(post.get("reactions"))
        comments = summary_count(post.get("comments"))
        shares = int((post.get("shares") or {}).get("count") or 0)
        impressions = clicks = 0
        try:  # insights metric names change between versions: counters above stand alone
            insights = self._get(
                f"{published.provider_post_id}/insights",
                token,
                metric="post_impressions,post_clicks",
            )
            values = insight_values(insights)
            impressions, clicks = values.get("post_impressions", 0), values.get("post_clicks", 0)
        except outbound.PermanentError:
            pass
        return Metrics(
            impressions=impressions,
            engagement=reactions + comments + shares,
            clicks=clicks,
            reactions=reactions,
            comments=comments,
            shares=shares,
        )

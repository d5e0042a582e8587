"""Facebook Pages and Instagram: one Meta login, the Graph API, page tokens.

The OAuth code becomes a user token, exchanged for a 60-day one, which lists the user's pages
with their page tokens (a page token derived from a long-lived user token does not expire).
The Facebook account is the page; the Instagram account is the business account behind a page,
acted on with that page's token. Instagram publishes in two steps: a media container, then
`media_publish`.
"""

import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

import requests
from django.conf import settings

from core import outbound
from social.providers.base import (
    LOOKUP_PAGE_SIZE,
    Attempt,
    ConnectionRefused,
    ConnectRequest,
    Content,
    Credentials,
    Draft,
    Identity,
    MediaFile,
    Metrics,
    OAuthApp,
    Page,
    ProviderClient,
    Published,
    body_of,
    json_of_excerpt,
    lookup_pages,
    moment,
    same_text,
)
from social.providers.text import HASHTAG, Composer, Problem

FACEBOOK_SCOPES = "pages_manage_posts,pages_read_engagement,pages_show_list"
INSTAGRAM_SCOPES = f"{FACEBOOK_SCOPES},instagram_basic,instagram_content_publish"
# Graph error codes (providers.md): try again later / the token is no good.
TRANSIENT_CODES = frozenset({1, 2, 4, 17, 32, 341, 613})
AUTHENTICATION_CODES = frozenset({102, 190})
DUPLICATE_POST = 506
CONTAINER_POLL_SECONDS = (1.0, 2.0, 3.0, 4.0)  # about 10 s for an image container


def _graph_error(response: requests.Response) -> tuple[int, str]:
    error = body_of(response).get("error")
    if not isinstance(error, dict):
        return 0, ""
    try:
        code = int(error.get("code") or 0)
    except (TypeError, ValueError):
        code = 0
    return code, str(error.get("message") or "")


def classify(response: requests.Response) -> outbound.OutboundError | None:
    """Graph answers most errors with HTTP 400 and names them by `error.code`."""
    if 200 <= response.status_code < 300:
        return None
    code, message = _graph_error(response)
    text = outbound.excerpt(response)
    if code in AUTHENTICATION_CODES:
        return outbound.AuthenticationError(
            f"Meta refused the access token: {message}".rstrip(": "),
            status=response.status_code,
            excerpt=text,
        )
    if code in TRANSIENT_CODES:
        return outbound.TransientError(
            f"Meta is busy or unavailable: {message}".rstrip(": "),
            status=response.status_code,
            retry_after=outbound.retry_after_seconds(response),
            # Rate limits (4, 17, 32, 613) refuse before doing anything.
            maybe_delivered=code in (1, 2),
            excerpt=text,
        )
    if code and response.status_code < 500:
        return outbound.PermanentError(
            f"Meta rejected the request: {message}".rstrip(": "),
            status=response.status_code,
            excerpt=text,
        )
    return None  # no Graph error body: by status code


def classify_exchange(response: requests.Response) -> outbound.OutboundError | None:
    """During the code exchange any Graph error means the connection failed (a wrong app
    secret answers code 1, which elsewhere is transient): never retried."""
    if 200 <= response.status_code < 300 or response.status_code >= 500:
        return None
    _code, message = _graph_error(response)
    return outbound.PermanentError(
        f"Meta refused the login: {message or f'HTTP {response.status_code}'}",
        status=response.status_code,
        excerpt=outbound.excerpt(response),
    )


def configured() -> bool:
    return bool(settings.FACEBOOK_APP_ID and settings.FACEBOOK_APP_SECRET)


class _Meta(Composer):
    provider = ""
    scopes = ""
    _client = ProviderClient("meta", classify)
    _exchange = ProviderClient("meta-oauth", classify_exchange)

    configured = staticmethod(configured)

    def _graph(self, path: str) -> str:
        return f"{settings.FACEBOOK_GRAPH_URL}/{settings.FACEBOOK_GRAPH_VERSION}/{path}"

    def _get(self, path: str, token: str, **params: Any) -> dict[str, Any]:
        answer: dict[str, Any] = self._client.json(
            "GET", self._graph(path), params=params, headers=_bearer(token)
        )
        return answer

    def _post(self, path: str, token: str, **data: Any) -> dict[str, Any]:
        answer: dict[str, Any] = self._client.json(
            "POST", self._graph(path), data=data, headers=_bearer(token)
        )
        return answer

    def _find(
        self,
        edge: str,
        credentials: Credentials,
        attempt: Attempt,
        *,
        fields: str,
        created: str,
        matches: Callable[[dict[str, Any]], bool],
    ) -> dict[str, Any] | None:
        """The edge's item that `matches` and no other record holds, read from the attempt's
        window on (`since`), page after page by the `after` cursor (base.lookup_pages)."""

        def page(after: str | None) -> Page:
            found = self._get(
                edge,
                credentials.access_token,
                fields=fields,
                limit=LOOKUP_PAGE_SIZE,
                since=int(attempt.window.timestamp()),
                **({"after": after} if after else {}),
            )
            paging = found.get("paging") or {}
            cursor = (paging.get("cursors") or {}).get("after") if paging.get("next") else None
            return list(found.get("data") or []), cursor

        return lookup_pages(
            self.name,
            page,
            attempt=attempt,
            created=lambda item: moment(item.get(created)),
            matches=lambda item: attempt.ours(str(item.get("id"))) and matches(item),
        )

    comment_text_field = "message"  # how the comments edge names a comment's text
    comment_time_field = "created_time"  # and its time

    def comment(
        self, credentials: Credentials, text: str, attempt: Attempt, *, on: Published
    ) -> Published:
        """`POST /{post or media id}/comments` with `message`, as the page (or the
        Instagram business account)."""
        created = self._post(
            f"{on.provider_post_id}/comments", credentials.access_token, message=text
        )
        return Published(provider_post_id=str(created["id"]), url=on.url)

    def comment_lookup(
        self, credentials: Credentials, text: str, attempt: Attempt, *, on: Published
    ) -> Published | None:
        field = self.comment_text_field
        comment = self._find(
            f"{on.provider_post_id}/comments",
            credentials,
            attempt,
            fields=f"id,{field},{self.comment_time_field}",
            created=self.comment_time_field,
            matches=lambda comment: same_text(str(comment.get(field) or ""), text),
        )
        if comment is None:
            return None
        return Published(provider_post_id=str(comment["id"]), url=on.url)

    def authorize_url(
        self, *, redirect_uri: str, state: str, app: OAuthApp | None, instance: str = ""
    ) -> str:
        query = urlencode(
            {
                "client_id": settings.FACEBOOK_APP_ID,
                "redirect_uri": redirect_uri,
                "state": state,
                "response_type": "code",
                "scope": self.scopes,
            }
        )
        return (
            f"{settings.FACEBOOK_DIALOG_URL}/{settings.FACEBOOK_GRAPH_VERSION}/dialog/oauth?{query}"
        )

    def _pages(self, request: ConnectRequest) -> list[dict[str, Any]]:
        """The user's pages (with page tokens) after the code and long-lived exchanges."""
        app = {"client_id": settings.FACEBOOK_APP_ID, "client_secret": settings.FACEBOOK_APP_SECRET}
        short: dict[str, Any] = self._exchange.json(
            "GET",
            self._graph("oauth/access_token"),
            params={**app, "redirect_uri": request.redirect_uri, "code": request.code},
        )
        long_lived: dict[str, Any] = self._exchange.json(
            "GET",
            self._graph("oauth/access_token"),
            params={
                **app,
                "grant_type": "fb_exchange_token",
                "fb_exchange_token": str(short["access_token"]),
            },
        )
        pages = self._get(
            "me/accounts",
            str(long_lived["access_token"]),
            fields="id,name,access_token,picture{url}",
            limit=100,
        )
        found = [page for page in pages.get("data") or [] if page.get("access_token")]
        if request.page_id:
            found = [page for page in found if str(page.get("id")) == request.page_id]
        return found

    def refresh(self, credentials: Credentials) -> None:
        """Page tokens do not expire; an invalidated one needs the user to log in again."""

    def revoke(self, credentials: Credentials) -> None:
        """Meta offers no revocation of a page token to the app: removing the app in the
        user's Facebook settings does it."""


class FacebookAdapter(_Meta):
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
            avatar=_picture(page),
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
            avatar=_picture(page),
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
            if attempt.unknown and _graph_code(error) == DUPLICATE_POST:
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
                **_alt(content.media[0], "alt_text_custom"),
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
                    **_alt(media, "alt_text_custom"),
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
        engagement = (
            _summary_count(post.get("reactions"))
            + _summary_count(post.get("comments"))
            + int((post.get("shares") or {}).get("count") or 0)
        )
        impressions = clicks = 0
        try:  # insights metric names change between versions: counters above stand alone
            insights = self._get(
                f"{published.provider_post_id}/insights",
                token,
                metric="post_impressions,post_clicks",
            )
            values = _insight_values(insights)
            impressions, clicks = values.get("post_impressions", 0), values.get("post_clicks", 0)
        except outbound.PermanentError:
            pass
        return Metrics(impressions=impressions, engagement=engagement, clicks=clicks)


class InstagramAdapter(_Meta):
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
                    else {"image_url": media.url, **_alt(media, "alt_text")}
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
                **_alt(content.media[0], "alt_text"),
            )
        else:
            children = [
                self._container(
                    credentials,
                    image_url=media.url,
                    is_carousel_item="true",
                    **_alt(media, "alt_text"),
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
        values = _insight_values(insights)
        engagement = values.get("total_interactions") or sum(
            values.get(name, 0) for name in ("likes", "comments", "saved", "shares")
        )
        return Metrics(impressions=values.get("reach", 0), engagement=engagement)


def _graph_code(error: outbound.OutboundError) -> int | None:
    """The Graph error code of a failed call's answer, when it has one."""
    found = json_of_excerpt(error.excerpt).get("error")
    code = found.get("code") if isinstance(found, dict) else None
    return code if isinstance(code, int) else None


def _alt(media: MediaFile, name: str) -> dict[str, str]:
    """The image's alt text in the Graph field `name`, when it has one."""
    return {name: media.alt} if media.alt else {}


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _picture(page: dict[str, Any]) -> str:
    picture = page.get("picture") or {}
    return str((picture.get("data") or {}).get("url") or "")


def _summary_count(edge: Any) -> int:
    if not isinstance(edge, dict):
        return 0
    return int((edge.get("summary") or {}).get("total_count") or 0)


def _insight_values(insights: dict[str, Any]) -> dict[str, int]:
    values: dict[str, int] = {}
    for metric in insights.get("data") or []:
        series = metric.get("values") or [{}]
        try:
            values[str(metric.get("name"))] = int(series[-1].get("value") or 0)
        except (TypeError, ValueError):
            continue
    return values

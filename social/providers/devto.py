"""Dev.to (Forem): an API key; articles with a title, markdown and up to four tags."""

import re
from typing import Any

from django.conf import settings

from core import outbound
from social.providers.base import (
    Attempt,
    ConnectRequest,
    Content,
    Credentials,
    Draft,
    Identity,
    Metrics,
    OAuthApp,
    Published,
)
from social.providers.client import ProviderClient, moment
from social.providers.lookup import LOOKUP_PAGE_SIZE, Page, lookup_pages, same_text
from social.providers.text import Composer, Problem, hashtag_list

ACCEPT = "application/vnd.forem.api-v1+json"
METRICS_PAGES = 10  # /articles/me/all pages of 100 searched for one article's counters


TAG_CHARACTERS = re.compile(r"[^a-z0-9]")


def tags_of(draft: Draft) -> tuple[str, ...]:
    """Forem tags are lowercase letters and digits."""
    tags = [TAG_CHARACTERS.sub("", tag[1:].lower()) for tag in hashtag_list(draft.hashtags)]
    return tuple(dict.fromkeys(tag for tag in tags if tag))


class DevtoAdapter(Composer):
    """Forem answers a bad key with 401, rejects with 422 and limits with 429 and Retry-After:
    the default classification by status code fits."""

    name = "DEV Community"

    def compose(self, draft: Draft) -> Content:
        """The title, the content as markdown, the hashtags as tags."""
        return Content(
            text=draft.content.strip(),
            link=draft.link,
            title=draft.title,
            tags=tags_of(draft),
            media=draft.media,
            options=draft.options,
        )

    def problems(self, draft: Draft, content: Content, limits: dict[str, Any]) -> list[Problem]:
        found: list[Problem] = []
        if not draft.title.strip():
            found.append(("title", "DEV articles need a title."))
        elif len(draft.title) > int(limits.get("maxTitle") or 128):
            found.append(("title", f"DEV titles are at most {limits.get('maxTitle')} characters."))
        if len(tags_of(draft)) > int(limits.get("maxHashtags") or 4):
            found.append(("hashtags", "DEV articles take at most 4 tags."))
        return found

    provider = "devto"
    _client = ProviderClient("devto")

    @staticmethod
    def configured() -> bool:
        return True  # each user brings an API key

    def _headers(self, api_key: str) -> dict[str, str]:
        return {"api-key": api_key, "Accept": ACCEPT}

    def _get(self, path: str, credentials: Credentials, **params: Any) -> Any:
        return self._client.json(
            "GET",
            f"{settings.DEVTO_API_URL}{path}",
            params=params,
            headers=self._headers(credentials.access_token),
        )

    def authorize_url(
        self, *, redirect_uri: str, state: str, app: OAuthApp | None, instance: str = ""
    ) -> str:
        raise NotImplementedError("Dev.to connects with an API key")

    def connect(self, request: ConnectRequest) -> Identity:
        return self.identity(Credentials(provider_user_id="", access_token=request.code))

    def identity(self, credentials: Credentials) -> Identity:
        me: dict[str, Any] = self._get("/users/me", credentials)
        return Identity(
            provider_user_id=str(me["id"]),
            username=str(me.get("username") or ""),
            display_name=str(me.get("name") or ""),
            avatar=str(me.get("profile_image") or ""),
            access_token=credentials.access_token,
        )

    def refresh(self, credentials: Credentials) -> None:
        """API keys do not expire."""

    def publish(self, credentials: Credentials, content: Content, attempt: Attempt) -> Published:
        article: dict[str, Any] = {
            "title": content.title,
            "body_markdown": content.text,
            "published": True,
            "tags": list(content.tags[:4]),
        }
        if content.media:
            article["main_image"] = content.media[0].url
        if content.link:
            article["canonical_url"] = content.link
        try:
            created: dict[str, Any] = self._client.json(
                "POST",
                f"{settings.DEVTO_API_URL}/articles",
                json={"article": article},
                headers=self._headers(credentials.access_token),
            )
        except outbound.PermanentError as error:
            # Forem refuses a canonical URL already taken: this record's own article only when
            # an earlier attempt of it may have made it and the lookup finds it (no other
            # record holds it); otherwise another article has that URL: refused.
            if attempt.unknown and error.status == 422 and "canonical" in error.excerpt.lower():
                found = self.lookup(credentials, content, attempt)
                if found is not None:
                    return found
            raise
        return Published(provider_post_id=str(created["id"]), url=str(created.get("url") or ""))

    def lookup(
        self, credentials: Credentials, content: Content, attempt: Attempt
    ) -> Published | None:
        """The user's articles, newest first, page after page back to the attempt's window
        (lookup.lookup_pages): the one with this title and body no other record holds."""

        def page(number: int | None) -> Page:
            number = number or 1
            articles: list[dict[str, Any]] = self._get(
                "/articles/me/all", credentials, per_page=LOOKUP_PAGE_SIZE, page=number
            )
            return articles, number + 1 if len(articles) >= LOOKUP_PAGE_SIZE else None

        article = lookup_pages(
            "DEV",
            page,
            attempt=attempt,
            created=lambda article: moment(article.get("published_at")),
            matches=lambda article: (
                attempt.ours(str(article.get("id")))
                and same_text(str(article.get("title") or ""), content.title)
                and same_text(str(article.get("body_markdown") or content.text), content.text)
            ),
        )
        if article is None:
            return None
        return Published(provider_post_id=str(article["id"]), url=str(article.get("url") or ""))

    def metrics(self, credentials: Credentials, published: Published) -> Metrics:
        for page in range(1, METRICS_PAGES + 1):
            articles: list[dict[str, Any]] = self._get(
                "/articles/me/all", credentials, per_page=100, page=page
            )
            for article in articles:
                if str(article.get("id")) == published.provider_post_id:
                    reactions = int(article.get("public_reactions_count") or 0)
                    comments = int(article.get("comments_count") or 0)
                    return Metrics(
                        impressions=int(article.get("page_views_count") or 0),
                        engagement=reactions + comments,
                        reactions=reactions,
                        comments=comments,
                    )
            if len(articles) < 100:
                break
        raise outbound.PermanentError("The article is no longer among the account's articles.")

    def revoke(self, credentials: Credentials) -> None:
        """Forem has no revocation endpoint: the user deletes the key in their settings."""

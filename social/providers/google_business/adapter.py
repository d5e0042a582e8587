"""Google Business Profile's publishing (networks/google_business.md): a post ("update", event
or offer) on the connected location, `POST {API}/v4/{account}/{location}/localPosts`, built by
social.providers.google_business.posts. The answer's `state`: REJECTED is a refusal
(`content_rejected`), PROCESSING is published (it goes live once Google has reviewed it), LIVE
is live. The post's URL is its `searchUrl`, its id the LocalPost's `name`.

Exactly once: Google keeps no idempotency key, so after a lost answer the location's posts are
listed (`localPosts`, 100 a page) for one with the summary and topic type sent, created since
the attempt began (less a minute): found, it is this record's; absent, the create is made
again. The list's order is not documented, so every page is read (up to LOOKUP_PAGES); a list
longer than that leaves the outcome unknown."""

from datetime import UTC, timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone

from core import outbound
from social.providers.base import Attempt, Content, Credentials, Draft, Metrics, Published
from social.providers.client import moment
from social.providers.google_business.connection import NAME, GoogleBusinessConnection
from social.providers.google_business.posts import local_post, option_problems
from social.providers.lookup import lookup_pages, same_text
from social.providers.text import Problem

LOOKUP_PAGE = 100  # posts a lookup's page asks for
INSIGHTS_DAYS = 540  # how far back a post's insights are asked for (unverified)
IMPRESSIONS = "LOCAL_POST_VIEWS_SEARCH"
CLICKS = "LOCAL_POST_ACTIONS_CALL_TO_ACTION"


def stamp(moment_: Any) -> str:
    return str(moment_.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"))


class GoogleBusinessAdapter(GoogleBusinessConnection):
    provider = "google_business"
    name = NAME
    link_field = True  # the post's link is its button's, not in the summary
    comment_limit = 0  # no comments on a post

    def problems(self, draft: Draft, content: Content, limits: dict[str, Any]) -> list[Problem]:
        """The summary's 1,500 characters (the default rule) and the options together."""
        return [*super().problems(draft, content, limits), *option_problems(draft, content)]

    def posts_url(self, credentials: Credentials) -> str:
        return f"{settings.GOOGLE_BUSINESS_API_URL}/v4/{self.place(credentials)}/localPosts"

    def publish(self, credentials: Credentials, content: Content, attempt: Attempt) -> Published:
        body = local_post(content)
        created: dict[str, Any] = self.call(
            "POST", self.posts_url(credentials), credentials, json=body
        )
        return _published(created)

    def lookup(
        self, credentials: Credentials, content: Content, attempt: Attempt
    ) -> Published | None:
        """The location's posts, every page: the one no other record holds with this summary
        and topic type, created since the attempt's window."""
        topic = str(content.options.get("topicType") or "STANDARD")

        def page(token: Any) -> tuple[list[dict[str, Any]], Any]:
            params: dict[str, Any] = {"pageSize": LOOKUP_PAGE}
            if token:
                params["pageToken"] = token
            found = self.call("GET", self.posts_url(credentials), credentials, params=params)
            items = [item for item in found.get("localPosts") or [] if isinstance(item, dict)]
            return items, found.get("nextPageToken") or None

        def matches(item: dict[str, Any]) -> bool:
            created = moment(item.get("createTime"))
            return (
                created is not None
                and created >= attempt.window
                and attempt.ours(str(item.get("name")))
                and same_text(str(item.get("summary") or ""), content.text)
                and str(item.get("topicType") or "STANDARD") == topic
            )

        # The list's order is not documented: no post's age ends the reading (`created`
        # None), every page up to LOOKUP_PAGES is read.
        found = lookup_pages(NAME, page, attempt=attempt, created=lambda _: None, matches=matches)
        return _published(found) if found is not None else None

    def metrics(self, credentials: Credentials, published: Published) -> Metrics:
        """`localPosts:reportInsights` for the post: its views in Search the impressions, its
        button's clicks the clicks (no engagement counter)."""
        name = published.provider_post_id
        place = name.split("/localPosts/", 1)[0]
        now = timezone.now()
        found = self.call(
            "POST",
            f"{settings.GOOGLE_BUSINESS_API_URL}/v4/{place}/localPosts:reportInsights",
            credentials,
            json={
                "localPostNames": [name],
                "basicRequest": {
                    "metricRequests": [{"metric": "ALL"}],
                    "timeRange": {
                        "startTime": stamp(now - timedelta(days=INSIGHTS_DAYS)),
                        "endTime": stamp(now),
                    },
                },
            },
        )
        values: dict[str, int] = {}
        for post in found.get("localPostMetrics") or []:
            if post.get("localPostName") not in (None, name):
                continue
            for value in post.get("metricValues") or []:
                try:
                    values[str(value.get("metric"))] = int(
                        (value.get("totalValue") or {}).get("value") or 0
                    )
                except (TypeError, ValueError):
                    continue
        return Metrics(impressions=values.get(IMPRESSIONS, 0), clicks=values.get(CLICKS, 0))


def _published(post: dict[str, Any]) -> Published:
    """A LocalPost created (or found): REJECTED is a refusal, PROCESSING and LIVE published."""
    name = str(post.get("name") or "")
    if not name:
        raise outbound.TransientError(
            f"{NAME} did not name the created post.", maybe_delivered=True
        )
    if str(post.get("state") or "") == "REJECTED":
        raise outbound.PermanentError(
            f"{NAME} rejected the post (state REJECTED): it breaks Google's content policies."
        )
    return Published(provider_post_id=name, url=str(post.get("searchUrl") or ""))

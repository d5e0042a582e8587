"""LinkedIn: a member's posts through the versioned `rest/posts` API (commentary in "little
text"), first comments through `socialActions`, lookups among the member's posts."""

import re
from typing import Any
from urllib.parse import quote

from django.conf import settings

from core import outbound
from social.providers.base import Attempt, Content, Credentials, Metrics, Published
from social.providers.client import body_of, moment
from social.providers.linkedin.media import LinkedInMedia
from social.providers.lookup import LOOKUP_PAGE_SIZE, Page, lookup_pages, same_text

# "little text": these characters are markup in commentary and must be escaped.
LITTLE_TEXT_RESERVED = re.compile(r"([|{}@\[\]()<>#\\*_~])")
HASHTAG = re.compile(r"(?<![\w#])#(\w+)")


def commentary(text: str) -> str:
    """Plain text as LinkedIn's little text: markup escaped, #tags as hashtag templates."""
    parts: list[str] = []
    position = 0
    for match in HASHTAG.finditer(text):
        parts.append(LITTLE_TEXT_RESERVED.sub(r"\\\1", text[position : match.start()]))
        parts.append("{hashtag|\\#|" + match.group(1) + "}")
        position = match.end()
    parts.append(LITTLE_TEXT_RESERVED.sub(r"\\\1", text[position:]))
    return "".join(parts)


def post_url(urn: str) -> str:
    return f"https://www.linkedin.com/feed/update/{urn}"


class LinkedInAdapter(LinkedInMedia):
    provider = "linkedin"
    name = "LinkedIn"
    link_field = True

    def sent_text(self, text: str, *, kind: str) -> str:
        """A post's commentary is little text (escaped by `commentary`, which `publish` and
        `lookup` send and match); a comment's message is plain text."""
        return commentary(text) if kind == "post" else text

    def publish(self, credentials: Credentials, content: Content, attempt: Attempt) -> Published:
        body: dict[str, Any] = {
            "author": self._author(credentials),
            "commentary": commentary(content.text),
            "visibility": "PUBLIC",
            "distribution": {
                "feedDistribution": "MAIN_FEED",
                "targetEntities": [],
                "thirdPartyDistributionChannels": [],
            },
            "lifecycleState": "PUBLISHED",
            "isReshareDisabledByAuthor": False,
        }
        images = [
            {
                "id": self._upload_image(credentials, media),
                **({"altText": media.alt[:4086]} if media.alt else {}),
            }
            for media in content.media
            if not content.video
        ]
        if content.video:
            # A video, or a document (named by the post's title: social.md section 13).
            urn = content.video.get("document") or content.video["video"]
            body["content"] = {"media": {"id": urn, "title": content.title}}
        elif len(images) == 1:
            body["content"] = {"media": images[0]}
        elif images:
            body["content"] = {"multiImage": {"images": images}}
        elif content.link:
            body["content"] = {"article": {"source": content.link, "title": content.title or ""}}
        try:
            response = self._client.call(
                "POST",
                f"{settings.LINKEDIN_API_URL}/rest/posts",
                headers=self._rest_headers(credentials),
                json=body,
            )
        except outbound.PermanentError as error:
            # 422 DUPLICATE_POST: LinkedIn has a post with this text. It is this record's only
            # when an earlier attempt of it may have made it (its answer was lost) and the
            # lookup finds it among the posts no other record holds; otherwise the same text
            # was published before (another post, an earlier occurrence): refused.
            if error.status == 422 and "DUPLICATE" in error.excerpt.upper() and attempt.unknown:
                found = self.lookup(credentials, content, attempt)
                if found is not None:
                    return found
            raise
        urn = response.headers.get("x-restli-id", "")
        if not urn:
            raise outbound.TransientError(
                "LinkedIn did not name the created post.", maybe_delivered=True
            )
        return Published(provider_post_id=urn, url=post_url(urn))

    def lookup(
        self, credentials: Credentials, content: Content, attempt: Attempt
    ) -> Published | None:
        """The author's posts, newest created first, page after page back to the attempt's
        window (lookup.lookup_pages): the one with this commentary no other record holds."""
        headers = {**self._rest_headers(credentials), "X-RestLi-Method": "FINDER"}

        def page(start: int | None) -> Page:
            found: dict[str, Any] = self._client.json(
                "GET",
                f"{settings.LINKEDIN_API_URL}/rest/posts",
                params={
                    "q": "author",
                    "author": self._author(credentials),
                    "sortBy": "CREATED",
                    "start": start or 0,
                    "count": LOOKUP_PAGE_SIZE,
                },
                headers=headers,
            )
            elements = list(found.get("elements") or [])
            more = len(elements) >= LOOKUP_PAGE_SIZE
            return elements, (start or 0) + len(elements) if more else None

        expected = commentary(content.text)
        element = lookup_pages(
            "LinkedIn",
            page,
            attempt=attempt,
            created=lambda element: moment(element.get("createdAt")),
            matches=lambda element: (
                attempt.ours(str(element.get("id")))
                and same_text(str(element.get("commentary") or ""), expected)
            ),
        )
        if element is None:
            return None
        urn = str(element["id"])
        return Published(provider_post_id=urn, url=post_url(urn))

    def _comments_url(self, on: Published) -> str:
        post = quote(on.provider_post_id, safe="")
        return f"{settings.LINKEDIN_API_URL}/rest/socialActions/{post}/comments"

    def comment(
        self, credentials: Credentials, text: str, attempt: Attempt, *, on: Published
    ) -> Published:
        """`POST /rest/socialActions/{post urn}/comments` as the author; the comment's URN
        comes back in `x-restli-id` (or the body's `$URN`)."""
        response = self._client.call(
            "POST",
            self._comments_url(on),
            headers=self._rest_headers(credentials),
            json={
                "actor": self._author(credentials),
                "object": on.provider_post_id,
                "message": {"text": text},
            },
        )
        urn = response.headers.get("x-restli-id", "") or str(body_of(response).get("$URN") or "")
        if not urn:
            raise outbound.TransientError(
                "LinkedIn did not name the created comment.", maybe_delivered=True
            )
        return Published(provider_post_id=urn, url=on.url)

    def comment_lookup(
        self, credentials: Credentials, text: str, attempt: Attempt, *, on: Published
    ) -> Published | None:
        """The post's comments, page after page: the author's with this text."""

        def page(start: int | None) -> Page:
            found: dict[str, Any] = self._client.json(
                "GET",
                self._comments_url(on),
                headers=self._rest_headers(credentials),
                params={"start": start or 0, "count": LOOKUP_PAGE_SIZE},
            )
            elements = list(found.get("elements") or [])
            more = len(elements) >= LOOKUP_PAGE_SIZE
            return elements, (start or 0) + len(elements) if more else None

        author = self._author(credentials)
        element = lookup_pages(
            "LinkedIn",
            page,
            attempt=attempt,
            # Every comment of the post is younger than the attempt: read them all.
            created=lambda element: None,
            matches=lambda element: (
                element.get("actor") == author
                and same_text(str((element.get("message") or {}).get("text") or ""), text)
            ),
        )
        if element is None:
            return None
        urn = str(element.get("$URN") or element.get("commentUrn") or element.get("id"))
        return Published(provider_post_id=urn, url=on.url)

    def metrics(self, credentials: Credentials, published: Published) -> Metrics:
        kind = "ugc" if ":ugcPost:" in published.provider_post_id else "share"
        entity = f"({kind}:{quote(published.provider_post_id, safe='')})"
        counts: dict[str, int] = {}
        for query_type in ("IMPRESSION", "REACTION", "COMMENT", "RESHARE"):
            answer: dict[str, Any] = self._client.json(
                "GET",
                f"{settings.LINKEDIN_API_URL}/rest/memberCreatorPostAnalytics",
                # Rest.li tuple syntax: the parentheses must reach LinkedIn unencoded.
                params=f"q=entity&entity={entity}&queryType={query_type}&aggregation=TOTAL",
                headers=self._rest_headers(credentials),
            )
            counts[query_type] = sum(
                int(element.get("count") or 0) for element in answer.get("elements") or []
            )
        return Metrics(
            impressions=counts["IMPRESSION"],
            engagement=counts["REACTION"] + counts["COMMENT"] + counts["RESHARE"],
            reactions=counts["REACTION"],
            comments=counts["COMMENT"],
            shares=counts["RESHARE"],
        )

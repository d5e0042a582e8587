"""LinkedIn Pages: posting as an organization the member administers (the Community Management
API). The member's consent asks for the organization scopes; connecting picks the page among
the member's approved ADMINISTRATOR roles (`organizationAcls`); everything a member's post does
(commentary, images, videos, documents, first comments, lookups) is done with the page's URN as
author, owner and actor. Metrics are the page's share statistics."""

from typing import Any
from urllib.parse import quote

from django.conf import settings

from core import outbound
from social.providers.base import (
    ConnectionRefused,
    ConnectRequest,
    Credentials,
    Identity,
    Metrics,
    Published,
)
from social.providers.linkedin.adapter import LinkedInAdapter
from social.providers.oauth import code_grant, credentials_of

PAGE_SCOPES = "w_organization_social r_organization_social rw_organization_admin"
NO_PAGE = "no_linkedin_page"
ACL_PAGE_SIZE = 100  # roles one `organizationAcls` page lists
ACL_PAGES = 10  # a member administering more than 1,000 pages is not one we serve


def organization_urn(page: str) -> str:
    return f"urn:li:organization:{page}"


class LinkedInPageAdapter(LinkedInAdapter):
    provider = "linkedin_page"
    name = "LinkedIn Page"
    scopes = PAGE_SCOPES

    def _author(self, credentials: Credentials) -> str:
        """The page posts, uploads and comments: its organization URN."""
        return organization_urn(credentials.provider_user_id)

    def connect(self, request: ConnectRequest) -> Identity:
        """The code exchanged as for a member; then the page: `pageId` when the member
        administers it, else the first page they administer; none is `no_linkedin_page`."""
        token = self._token(code_grant(request))
        credentials = credentials_of(token, refresh_lifetime="refresh_token_expires_in")
        pages = self._administered(credentials)
        if request.page_id:
            pages = [page for page in pages if page == request.page_id]
        if not pages:
            raise ConnectionRefused(
                NO_PAGE,
                f"This LinkedIn member does not administer the page {request.page_id}."
                if request.page_id
                else "This LinkedIn member administers no page (an approved ADMINISTRATOR role).",
            )
        credentials.provider_user_id = pages[0]
        return self._page(credentials)

    def _administered(self, credentials: Credentials) -> list[str]:
        """The ids of the organizations the member is an approved ADMINISTRATOR of, in
        LinkedIn's order (analysts, pending requests and other roles are never chosen)."""
        found: list[str] = []
        for number in range(ACL_PAGES):
            answer: dict[str, Any] = self._client.json(
                "GET",
                f"{settings.LINKEDIN_API_URL}/rest/organizationAcls",
                params={
                    "q": "roleAssignee",
                    "role": "ADMINISTRATOR",
                    "state": "APPROVED",
                    "start": number * ACL_PAGE_SIZE,
                    "count": ACL_PAGE_SIZE,
                },
                headers={**self._rest_headers(credentials), "X-RestLi-Method": "FINDER"},
            )
            elements = list(answer.get("elements") or [])
            for element in elements:
                urn = str(element.get("organization") or "")
                page = urn.removeprefix("urn:li:organization:")
                # The filters asked for, checked again: never a role we did not ask for.
                if (
                    page != urn
                    and element.get("role") == "ADMINISTRATOR"
                    and element.get("state") == "APPROVED"
                ):
                    found.append(page)
            if len(elements) < ACL_PAGE_SIZE:
                break
        return found

    def _page(self, credentials: Credentials) -> Identity:
        """The page's names (`GET /rest/organizations/{id}`) as the account's."""
        page = credentials.provider_user_id
        found: dict[str, Any] = self._client.json(
            "GET",
            f"{settings.LINKEDIN_API_URL}/rest/organizations/{quote(page, safe='')}",
            headers=self._rest_headers(credentials),
        )
        logo = str((found.get("logoV2") or {}).get("original") or "")
        return Identity(
            provider_user_id=page,
            username=str(found.get("vanityName") or page),
            display_name=str(found.get("localizedName") or ""),
            # The logo is a media asset URN unless LinkedIn was asked to resolve it: no URL.
            avatar=logo if logo.startswith("https://") else "",
            access_token=credentials.access_token,
            refresh_token=credentials.refresh_token,
            expires_at=credentials.expires_at,
            refresh_expires_at=credentials.refresh_expires_at,
        )

    def identity(self, credentials: Credentials) -> Identity:
        """The health check: the page still among the member's approved ADMINISTRATOR roles
        (else a permission problem, `not_page_admin`), then its names."""
        if credentials.provider_user_id not in self._administered(credentials):
            raise outbound.PermanentError(  # health's `not_page_admin` (social.outcomes)
                "The member who connected it is no longer an administrator of the LinkedIn "
                f"page {credentials.provider_user_id}."
            )
        return self._page(credentials)

    def metrics(self, credentials: Credentials, published: Published) -> Metrics:
        """`organizationalEntityShareStatistics` of the post (its lifetime counters)."""
        urn = published.provider_post_id
        kind = "ugcPosts" if ":ugcPost:" in urn else "shares"
        author = quote(self._author(credentials), safe="")
        answer: dict[str, Any] = self._client.json(
            "GET",
            f"{settings.LINKEDIN_API_URL}/rest/organizationalEntityShareStatistics",
            # Rest.li's List(...) must reach LinkedIn with its parentheses unencoded.
            params=f"q=organizationalEntity&organizationalEntity={author}"
            f"&{kind}=List({quote(urn, safe='')})",
            headers=self._rest_headers(credentials),
        )
        element: dict[str, Any] = next(
            (e for e in answer.get("elements") or [] if urn in (e.get("share"), e.get("ugcPost"))),
            {},
        )
        counts = element.get("totalShareStatistics") or {}

        def count(name: str) -> int:
            return int(counts.get(name) or 0)

        return Metrics(
            impressions=count("impressionCount"),
            engagement=count("likeCount") + count("commentCount") + count("shareCount"),
            clicks=count("clickCount"),
        )

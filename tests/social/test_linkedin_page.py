"""LinkedIn Pages (networks/linkedin_page.md), through HTTP against the LinkedIn stand-in: the
page picked among the pages the member administers (never an analyst's or a pending role),
posts, images with alt text, videos, documents and first comments as the organization, a lost
answer found among the page's posts, a role revoked refused as LinkedIn refuses it, health by
the page's roles, metrics from the page's share statistics, the daily cap and token renewal."""

from datetime import timedelta
from typing import Any

import pytest
import requests
from django.utils import timezone

from notifications.models import OutboxEvent
from social.connections.services.upkeep import accounts_maintain
from social.models import ScheduledRecord, SocialAccount
from social.tasks import metrics_collect_task, preflight_run_task
from tests.social.conftest import REDIRECT_URI, connect, connected, publish
from tests.social.documents import pdf
from tests.social.standins import LINKEDIN_PERSON
from tests.social.test_documents import upload as upload_document
from tests.social.test_scheduler import make_due, record, run, schedule
from tests.social.test_video import SIZE
from tests.social.test_video import upload as upload_video
from tests.social.videos import mp4

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("cron_secret")]

PAGE = "2414183"  # Ada Designs: the first page Ada administers (approved)
OTHER_PAGE = "2414184"  # Ada Labs: administered too
ANALYST_PAGE = "2414185"  # Babbage & Co: Ada is only an analyst there
PENDING_PAGE = "2414186"  # Engine Club: Ada's administrator request is pending
ORGANIZATION = f"urn:li:organization:{PAGE}"


@pytest.fixture
def linkedin(providers) -> Any:
    return providers.linkedin


@pytest.fixture
def page(ada_client, linkedin) -> dict[str, Any]:
    return connected(ada_client, "linkedin_page")


def refused(response: Any) -> str:
    assert response.status_code == 400, response.content
    return str(response.json()["error"]["code"])


def revoke(linkedin: Any, page: str) -> None:
    """A super admin of the page removed Ada's administrator role."""
    linkedin.acls = [acl for acl in linkedin.acls if str(acl["id"]) != page]


# --- Connecting ---------------------------------------------------------------------------------


def test_the_consent_asks_for_the_organization_scopes(ada_client, linkedin):
    url = ada_client.get(
        "/api/social/connect/linkedin_page/authorize", {"redirectUri": REDIRECT_URI}
    ).json()["data"]["url"]
    assert url.startswith(f"{linkedin.url}/oauth/v2/authorization?response_type=code")
    assert "scope=w_organization_social+r_organization_social+rw_organization_admin" in url


def test_connecting_picks_the_first_page_the_member_administers(ada_client, page, linkedin):
    assert (page["provider"], page["provider_user_id"], page["username"], page["display_name"],
            page["email"], page["avatar"]) == (
        "linkedin_page", PAGE, "ada-designs", "Ada Designs", "", ""
    )  # fmt: skip
    # A 60-day token without a refresh token: the connection ends with it.
    ends = timezone.now() + timedelta(days=60)
    assert page["expires_at"][:10] == ends.date().isoformat()
    (acls,) = linkedin.received("GET", "/rest/organizationAcls")
    assert (acls.q("q"), acls.q("role"), acls.q("state")) == (
        "roleAssignee", "ADMINISTRATOR", "APPROVED",
    )  # fmt: skip
    assert acls.headers["Authorization"] == "Bearer li-page-access-token"
    assert acls.headers["X-Restli-Protocol-Version"] == "2.0.0"
    assert [call.path for call in linkedin.calls if call.path.startswith("/rest/organizations/")
            ] == [f"/rest/organizations/{PAGE}"]  # fmt: skip
    assert linkedin.received("GET", "/v2/userinfo") == []  # the page is the account


def test_page_id_chooses_another_administered_page_one_account_each(ada_client, linkedin, page):
    other = connect(ada_client, "linkedin_page", pageId=OTHER_PAGE)
    assert other.status_code == 200, other.content
    assert (other.json()["data"]["provider_user_id"], other.json()["data"]["display_name"]) == (
        OTHER_PAGE, "Ada Labs",
    )  # fmt: skip
    listed = ada_client.get("/api/social/accounts").json()["data"]
    assert sorted(a["provider_user_id"] for a in listed) == [PAGE, OTHER_PAGE]


@pytest.mark.parametrize("page_id", [ANALYST_PAGE, PENDING_PAGE, "999"])
def test_a_page_the_member_does_not_administer_is_400_and_nothing_is_stored(
    ada_client, linkedin, page_id
):
    response = connect(ada_client, "linkedin_page", pageId=page_id)
    assert refused(response) == "no_linkedin_page"
    assert not SocialAccount.objects.exists()


def test_a_member_who_administers_no_page_is_400_no_linkedin_page(ada_client, linkedin):
    linkedin.acls = [acl for acl in linkedin.acls if acl["role"] != "ADMINISTRATOR"]
    assert refused(connect(ada_client, "linkedin_page")) == "no_linkedin_page"
    assert not SocialAccount.objects.exists()


def test_the_same_page_by_another_workspace_is_409(bob_client, page, linkedin):
    response = connect(bob_client, "linkedin_page")
    assert (response.status_code, response.json()["error"]["code"]) == (
        409, "account_already_connected",
    )  # fmt: skip


def test_a_declined_consent_is_consent_denied(ada_client, linkedin):
    state = ada_client.get(
        "/api/social/connect/linkedin_page/authorize", {"redirectUri": REDIRECT_URI}
    ).json()["data"]["state"]
    body = {"provider": "linkedin_page", "state": state, "redirectUri": REDIRECT_URI,
            "error": "user_cancelled_authorize"}  # fmt: skip
    assert refused(ada_client.post("/api/social/connect", body, format="json")) == (
        "consent_denied"
    )
    assert not SocialAccount.objects.exists()


def test_a_refresh_token_is_renewed_by_the_daily_upkeep_until_it_ends(ada_client, linkedin):
    linkedin.refresh_token_lifetime = 31536000  # a year
    account = connect(ada_client, "linkedin_page").json()["data"]
    assert account["expires_at"][:10] == (timezone.now() + timedelta(days=365)).date().isoformat()
    SocialAccount.objects.filter(pk=account["id"]).update(
        credentials_expire_at=timezone.now() + timedelta(days=3)
    )
    accounts_maintain()
    renewal = [c for c in linkedin.received("POST", "/oauth/v2/accessToken")
               if c.body.get("grant_type") == "refresh_token"]  # fmt: skip
    assert [c.body["refresh_token"] for c in renewal] == ["li-page-refresh-token"]
    stored = SocialAccount.objects.get(pk=account["id"])
    assert str(stored.access_token) == "li-page-access-token"
    assert stored.credentials_expire_at is not None
    assert stored.credentials_expire_at - timezone.now() > timedelta(days=59)


# --- Publishing as the page ---------------------------------------------------------------------


def test_a_text_with_a_link_is_posted_as_the_organization(ada_client, page, linkedin):
    entry = publish(ada_client, page, content="We shipped (v2) #launch",
                    link="https://example.com/v2", title="Version 2")  # fmt: skip
    assert entry["success"], entry
    (post,) = linkedin.posts
    assert post["author"] == ORGANIZATION
    assert post["commentary"] == "We shipped \\(v2\\) {hashtag|\\#|launch}"
    assert post["content"] == {"article": {"source": "https://example.com/v2",
                                           "title": "Version 2"}}  # fmt: skip
    assert (post["visibility"], post["lifecycleState"]) == ("PUBLIC", "PUBLISHED")
    assert entry["providerPostId"] == post["id"]
    assert entry["url"] == f"https://www.linkedin.com/feed/update/{post['id']}"


def test_images_with_alt_text_are_uploaded_for_the_page(ada_client, page, linkedin, providers):
    ids = []
    for name, alt in (("a.jpg", "The red button"), ("b.jpg", "The green button")):
        body = {"type": "image/jpeg", "url": providers.image(name), "size": 2048, "alt": alt}
        ids.append(ada_client.post("/api/social/media", body, format="json").json()["data"]["id"])
    assert publish(ada_client, page, mediaIds=ids)["success"]
    owners = [c.body["initializeUploadRequest"]["owner"]
              for c in linkedin.received("POST", "/rest/images")]  # fmt: skip
    assert owners == [ORGANIZATION, ORGANIZATION]
    (post,) = linkedin.posts
    assert [image["altText"] for image in post["content"]["multiImage"]["images"]] == [
        "The red button", "The green button",
    ]  # fmt: skip


def test_a_video_is_uploaded_for_the_page_and_awaited(
    ada_client, page, linkedin, django_capture_on_commit_callbacks
):
    video = upload_video(ada_client, mp4(seconds=12.0, payload=SIZE)).json()["data"]
    with django_capture_on_commit_callbacks(execute=True):
        entry = publish(ada_client, page, mediaIds=[video["id"]], title="Launch film")
    assert (entry["status"], entry["error"]["code"]) == ("Publishing", "processing")
    assert ScheduledRecord.objects.get().status == "Published"
    (initialized, _finalized) = linkedin.received("POST", "/rest/videos")
    assert initialized.body["initializeUploadRequest"]["owner"] == ORGANIZATION
    (post,) = linkedin.posts
    assert post["author"] == ORGANIZATION
    assert post["content"]["media"]["id"].startswith("urn:li:video:")


def test_a_document_is_published_by_the_page_named_by_its_variant_title(
    ada_client, page, linkedin, django_capture_on_commit_callbacks
):
    deck = upload_document(ada_client, pdf(8)).json()["data"]
    untitled = ada_client.post(
        "/api/social/publish",
        {"content": "Our deck", "mediaIds": [deck["id"]], "accountIds": [page["id"]]},
        format="json",
    )
    assert refused(untitled) == "validation_error"
    (problem,) = untitled.json()["error"]["details"]["targets"]
    assert (problem["provider"], problem["field"]) == ("linkedin_page", "title")
    with django_capture_on_commit_callbacks(execute=True):
        publish(ada_client, page, content="Our deck", mediaIds=[deck["id"]],
                variants={"linkedin_page": {"title": "Playbook 2027"}})  # fmt: skip
    assert ScheduledRecord.objects.get().status == "Published"
    (initialized,) = linkedin.received("POST", "/rest/documents")
    assert initialized.body == {"initializeUploadRequest": {"owner": ORGANIZATION}}
    ((urn, document),) = linkedin.documents.items()
    assert document["owner"] == ORGANIZATION
    (put,) = linkedin.received("PUT", f"/upload/{document['upload']}")
    assert (put.body, put.headers["Authorization"]) == (pdf(8), "Bearer li-page-access-token")
    (post,) = linkedin.posts
    assert post["content"] == {"media": {"id": urn, "title": "Playbook 2027"}}


def test_a_first_comment_is_the_pages_and_threads_are_refused(ada_client, page, linkedin):
    entry = publish(ada_client, page, variants={"linkedin_page": {"firstComment": "Q&A below"}})
    assert entry["success"], entry
    post, comment = linkedin.posts
    assert (comment["kind"], comment["actor"], comment["object"]) == (
        "comment", ORGANIZATION, post["id"],
    )  # fmt: skip
    threaded = ada_client.post(
        "/api/social/publish",
        {"content": "One", "accountIds": [page["id"]],
         "variants": {"linkedin_page": {"thread": [{"content": "Two"}]}}},
        format="json",
    )  # fmt: skip
    assert refused(threaded) == "thread_not_supported"
    assert len(linkedin.posts) == 2


def test_preview_and_limits_are_linkedins(ada_client, page):
    preview = ada_client.post(
        "/api/social/preview",
        {"content": "Ship it (v2) " + "x" * 3000, "accountIds": [page["id"]]},
        format="json",
    ).json()["data"][0]
    assert preview["provider"] == "linkedin_page"
    assert preview["counts"] == {"used": 3013, "limit": 3000, "countsBy": "characters"}
    assert preview["parts"][0]["text"].startswith("Ship it \\(v2\\) ")
    assert [p["field"] for p in preview["problems"]] == ["content"]


# --- Exactly once, and what LinkedIn refuses ---------------------------------------------------


def test_a_lost_answer_is_found_among_the_pages_posts(client, ada_client, page, linkedin, settings):
    """Ada's own member post with the same text is not the page's: the lookup reads the page's
    posts only, finds the one its lost attempt made, and nothing is posted twice."""
    linkedin.posts.append({"id": "urn:li:share:1", "author": LINKEDIN_PERSON,
                           "commentary": "Scheduled post {hashtag|\\#|launch}",
                           "createdAt": int(timezone.now().timestamp() * 1000)})  # fmt: skip
    settings.SOCIAL_HTTP_TIMEOUT_SECONDS = 0.5
    (record_id,) = schedule(ada_client, {"linkedin_page": page}, "linkedin_page")
    linkedin.fail, linkedin.hang = "timeout", 0.8
    assert run(client).json()["data"]["results"][0]["status"] == "Scheduled"
    assert linkedin.wait_idle()
    linkedin.fail = ""
    make_due([record_id])
    result = run(client).json()["data"]["results"][0]
    assert (result["success"], result["status"]) == (True, "Published")
    ours = [post for post in linkedin.posts if post["author"] == ORGANIZATION]
    assert len(ours) == 1
    assert record(record_id).provider_post_id == ours[0]["id"]
    lookups = linkedin.received("GET", "/rest/posts")
    assert lookups
    assert all(c.q("author") == ORGANIZATION for c in lookups)


def test_the_same_text_twice_is_refused_without_a_lost_answer(client, ada_client, page, linkedin):
    assert publish(ada_client, page, content="Same words")["success"]
    again = publish(ada_client, page, content="Same words")
    assert (again["success"], again["error"]["code"]) == (False, "provider_rejected")
    shown = ada_client.get(f"/api/social/schedule/{again['recordId']}").json()["data"]
    assert shown["error"]["category"] == "content_rejected"
    assert len(linkedin.posts) == 1


def test_a_revoked_role_is_refused_by_linkedin_and_reported_by_health(
    client, ada_client, page, linkedin
):
    revoke(linkedin, PAGE)
    (record_id,) = schedule(ada_client, {"linkedin_page": page}, "linkedin_page")
    result = run(client).json()["data"]["results"][0]
    assert result["status"] == "Failed"  # a permission refused is not retried
    shown = ada_client.get(f"/api/social/schedule/{record_id}").json()["data"]
    assert shown["error"]["category"] == "permission_missing"
    assert shown["error"]["platform"]["status"] == 403
    assert linkedin.posts == []
    report = ada_client.get(f"/api/social/accounts/{page['id']}/health").json()["data"]
    assert report["status"] == "connected"
    assert report["reachable"] is True
    (problem,) = report["problems"]
    assert problem == {
        "code": "not_page_admin",
        "message": "The member who connected it is no longer an administrator of the LinkedIn "
        f"page {PAGE}.",
        "remedy": "Ask a super admin of the LinkedIn page to restore your administrator role, "
        "then reconnect the page.",
    }


def test_a_revoked_role_is_announced_before_the_post_is_due(ada_client, page, linkedin):
    later = (timezone.now() + timedelta(hours=2)).isoformat()
    scheduled = ada_client.post(
        "/api/social/schedule",
        {"content": "Soon", "scheduledTime": later, "accountIds": [page["id"]]},
        format="json",
    )
    assert scheduled.status_code == 200, scheduled.content
    revoke(linkedin, PAGE)
    assert preflight_run_task.delay().get() == {"checked": 1, "announced": 1}
    (risk,) = [e.data for e in OutboxEvent.objects.filter(event="post.at_risk")]
    assert [p["code"] for p in risk["problems"]] == ["not_page_admin"]
    assert risk["platform"] == "linkedin_page"


def test_a_healthy_page_in_one_roles_call_with_its_daily_cap(ada_client, page, linkedin):
    asked = len(linkedin.received("GET", "/rest/organizationAcls"))
    report = ada_client.get(f"/api/social/accounts/{page['id']}/health").json()["data"]
    assert report["problems"] == []
    assert report["dailyCap"] == {"limit": 100, "used": 0, "resetsAt": None}
    assert len(linkedin.received("GET", "/rest/organizationAcls")) == asked + 1


# --- Metrics ------------------------------------------------------------------------------------


def test_metrics_are_the_pages_share_statistics(ada_client, page, linkedin):
    entry = publish(ada_client, page, content="Numbers")
    assert metrics_collect_task.delay().get() == {"records": 1, "collected": 1}
    (row,) = ada_client.get("/api/social/analytics").json()["data"]
    assert (row["provider"], row["impressions"], row["engagement"], row["clicks"]) == (
        "linkedin_page", 340, 9 + 3 + 2, 12,
    )  # fmt: skip
    (asked,) = linkedin.received("GET", "/rest/organizationalEntityShareStatistics")
    assert (asked.q("q"), asked.q("organizationalEntity"), asked.q("shares")) == (
        "organizationalEntity", ORGANIZATION, f"List({entry['providerPostId']})",
    )  # fmt: skip
    assert linkedin.received("GET", "/rest/memberCreatorPostAnalytics") == []


def test_the_stand_in_refuses_a_page_the_member_does_not_administer(ada_client, page, linkedin):
    """The stand-in is strict: a post as an organization the member only analyses is
    LinkedIn's 403 ACCESS_DENIED, as is a member's token posting as a page."""
    headers = {"Authorization": "Bearer li-page-access-token", "LinkedIn-Version": "202510",
               "X-Restli-Protocol-Version": "2.0.0"}  # fmt: skip
    body = {"author": f"urn:li:organization:{ANALYST_PAGE}", "commentary": "Hi",
            "visibility": "PUBLIC", "lifecycleState": "PUBLISHED"}  # fmt: skip
    answer = requests.post(f"{linkedin.url}/rest/posts", json=body, headers=headers, timeout=5)
    assert (answer.status_code, answer.json()["code"]) == (403, "ACCESS_DENIED")
    member = {**headers, "Authorization": "Bearer li-access-token"}
    answer = requests.post(f"{linkedin.url}/rest/posts", json={**body, "author": ORGANIZATION},
                           headers=member, timeout=5)  # fmt: skip
    assert (answer.status_code, answer.json()["code"]) == (403, "ACCESS_DENIED")
    assert linkedin.posts == []

"""Posts that fit each network (social.md section 9): variants per provider, threads as reply
chains, first comments, alt text in each platform's own field, and every part published
exactly once, resumed at the first part not yet published."""

import time
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from notifications.models import Notification, OutboxEvent
from social.models import ScheduledRecord
from social.providers.bluesky import tid
from social.publishing.services.scheduler import records_claim
from social.selectors import records_next_due
from tests.social.standins import stamp
from tests.social.test_scheduler import make_due, run, schedule

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("cron_secret")]

DOWN: tuple[int, Any, dict[str, str]] = (503, {"error": "ServiceUnavailable"}, {})
BAD_GATEWAY: tuple[int, Any, dict[str, str]] = (502, {"error": "UpstreamFailure"}, {})
STATUSES = ("POST", r"/api/v1/statuses")


def publish(client: Any, accounts: dict[str, Any], *providers: str, **body: Any) -> Any:
    return client.post(
        "/api/social/publish",
        {"content": "Launch day #launch", **body,
         "accountIds": [accounts[p]["id"] for p in providers]},
        format="json",
    )  # fmt: skip


def results(response: Any) -> dict[str, dict[str, Any]]:
    assert response.status_code == 200, response.content
    return {entry["provider"]: entry for entry in response.json()["data"]}


def media(client: Any, url: str, alt: str = "") -> str:
    body = {"type": "image/jpeg", "url": url, "size": 2048, **({"alt": alt} if alt else {})}
    response = client.post("/api/social/media", body, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["data"]["alt"] == alt
    return str(response.json()["data"]["id"])


def mastodon_texts(providers: Any) -> list[tuple[str, str | None]]:
    return [(post["body"]["status"], post["in_reply_to_id"]) for post in providers.mastodon.posts]


# --- Variants -----------------------------------------------------------------------------------


def test_each_target_publishes_the_post_merged_with_its_variant(
    ada_client, ada_accounts, providers
):
    long_text = "A longer story for Mastodon readers about our launch. " * 3
    created = ada_client.post(
        "/api/social/posts",
        {"content": long_text.strip(), "hashtags": "#launch",
         "variants": {"bluesky": {"content": "Short for Bluesky", "hashtags": ""}}},
        format="json",
    )  # fmt: skip
    assert created.status_code == 200, created.content
    post = created.json()["data"]
    assert post["variants"] == {"bluesky": {"content": "Short for Bluesky", "hashtags": ""}}
    done = results(
        ada_client.post(
            "/api/social/publish",
            {
                "postId": post["id"],
                "accountIds": [ada_accounts["bluesky"]["id"], ada_accounts["mastodon"]["id"]],
            },
            format="json",
        )
    )
    assert {p: e["success"] for p, e in done.items()} == {"bluesky": True, "mastodon": True}
    (bluesky,) = providers.bluesky.posts
    assert bluesky["text"] == "Short for Bluesky"  # the variant, its hashtags left out
    ((mastodon, _),) = mastodon_texts(providers)
    assert mastodon == f"{long_text.strip()}\n\n#launch"  # the post's own fields


def test_an_unknown_variant_key_or_a_bad_variant_field_is_named(ada_client):
    response = ada_client.post(
        "/api/social/posts",
        {"content": "Hi", "variants": {"myspace": {"content": "x"}}},
        format="json",
    )
    assert response.status_code == 400
    assert "myspace" in response.json()["error"]["details"]["variants"][0]
    response = ada_client.post(
        "/api/social/posts",
        {"content": "Hi", "variants": {"mastodon": {"thread": [{"content": "ok"}, {}]}}},
        format="json",
    )
    assert response.status_code == 400
    assert list(response.json()["error"]["details"]) == ["variants.mastodon.thread[1].content"]
    assert ada_client.get("/api/social/posts").json()["data"] == []  # nothing saved


def test_a_part_too_long_for_its_network_is_reported_at_its_exact_field(
    ada_client, ada_accounts, providers
):
    response = publish(
        ada_client, ada_accounts, "bluesky", "mastodon",
        variants={"bluesky": {"content": "x" * 301},
                  "mastodon": {"thread": [{"content": "two"}, {"content": "three"},
                                          {"content": "y" * 1001}]}},
    )  # fmt: skip
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["code"] == "validation_error"
    assert [(t["provider"], t["field"]) for t in error["details"]["targets"]] == [
        ("bluesky", "variants.bluesky.content"),
        ("mastodon", "variants.mastodon.thread[2].content"),
    ]
    assert providers.bluesky.posts == []
    assert providers.mastodon.posts == []


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"thread": [{"content": "Part two"}]}, "thread_not_supported"),
        ({"variants": {"linkedin": {"thread": [{"content": "two"}]}}}, "thread_not_supported"),
        ({"firstComment": "Link in the comments"}, "first_comment_not_supported"),
    ],
)
def test_what_a_network_has_no_place_for_is_refused_with_its_code(
    ada_client, ada_accounts, providers, body, code
):
    targets = ("linkedin", "devto") if code == "thread_not_supported" else ("devto",)
    response = publish(ada_client, ada_accounts, *targets, title="Launch", **body)
    assert response.status_code == 400, response.content
    assert response.json()["error"]["code"] == code
    assert response.json()["error"]["details"]["targets"][0]["provider"] == targets[0]
    assert providers.linkedin.posts == []
    assert providers.devto.posts == []


# --- Threads and first comments ----------------------------------------------------------------


def test_threads_are_reply_chains_and_first_comments_follow_the_post(
    ada_client, ada_accounts, providers
):
    image = media(ada_client, providers.image(), alt="Our new dashboard")
    done = results(
        publish(
            ada_client, ada_accounts, "bluesky", "mastodon", "linkedin", "instagram",
            content="Part one",
            variants={
                "bluesky": {"thread": [{"content": "Bluesky two"}]},
                "mastodon": {"thread": [{"content": "Part two"}, {"content": "Part three"},
                                        {"content": "Part four"}]},
                "linkedin": {"firstComment": "Read more: https://example.com/launch"},
                "instagram": {"mediaIds": [image], "firstComment": "Link in bio"},
            },
        )
    )  # fmt: skip
    assert all(entry["success"] for entry in done.values()), done

    # Mastodon: each part answers the one before.
    statuses = providers.mastodon.posts
    assert [(post["body"]["status"], post["in_reply_to_id"]) for post in statuses] == [
        ("Part one", None),
        ("Part two", statuses[0]["id"]),
        ("Part three", statuses[1]["id"]),
        ("Part four", statuses[2]["id"]),
    ]
    # Bluesky: a reply names its root and its parent by uri and cid.
    first, second = providers.bluesky.posts
    root = {"uri": f"at://did:plc:ada123/app.bsky.feed.post/{first['rkey']}",
            "cid": f"bafyrei{first['rkey']}"}  # fmt: skip
    assert second["text"] == "Bluesky two"
    assert second["reply"] == {"root": root, "parent": root}
    # LinkedIn: the first comment through the Comments API, on the post's URN.
    post, comment = providers.linkedin.posts
    assert comment["object"] == post["id"]
    assert comment["message"] == {"text": "Read more: https://example.com/launch"}
    # Instagram: the comment on the published media; alt text on the image container.
    (container,) = providers.meta.received("POST", "/v24.0/17841400000000001/media")
    assert container.body["alt_text"] == "Our new dashboard"
    ig_media, ig_comment = providers.meta.posts[-2:]
    assert (ig_comment["on"], ig_comment["message"]) == (ig_media["id"], "Link in bio")

    # The records list each part once, in order.
    mastodon = ada_client.get("/api/social/schedule", {"status": "Published"}).json()["data"]
    by_provider = {record["provider"]: record for record in mastodon}
    assert [(p["index"], p["kind"]) for p in by_provider["mastodon"]["parts"]] == [
        (0, "post"), (1, "reply"), (2, "reply"), (3, "reply"),
    ]  # fmt: skip
    assert [p["providerPostId"] for p in by_provider["mastodon"]["parts"]] == [
        s["id"] for s in statuses
    ]
    assert [p["kind"] for p in by_provider["linkedin"]["parts"]] == ["post", "comment"]
    assert by_provider["linkedin"]["warnings"] == []
    # Webhooks' post.published carries the parts.
    event = OutboxEvent.objects.get(event="post.published", data__platform="mastodon")
    assert len(event.data["parts"]) == 4


def test_a_thread_whose_third_part_fails_resumes_at_part_three(
    client, ada_client, ada_accounts, providers, settings
):
    settings.SCHEDULER_RETRY_BASE_SECONDS = 60
    providers.mastodon.scripted.append((*STATUSES, DOWN, "Part three"))
    (record_id,) = schedule(
        ada_client, ada_accounts, "mastodon", content="Part one",
        thread=[{"content": "Part two"}, {"content": "Part three"}, {"content": "Part four"}],
    )  # fmt: skip

    result = run(client).json()["data"]["results"][0]
    # The post is out: the record is Published from its first part on, its third part
    # waiting for its retry (social.md section 9).
    assert (result["success"], result["status"]) == (True, "Published")
    record = ScheduledRecord.objects.get(pk=record_id)
    assert (record.status, record.url) == ("Published", providers.mastodon.posts[0]["url"])
    assert [part["index"] for part in record.parts] == [0, 1]
    assert record.next_attempt_at is not None
    shown = ada_client.get(f"/api/social/schedule/{record_id}").json()["data"]
    assert (shown["status"], shown["error"]["code"]) == ("Published", "retry_scheduled")
    assert shown["error"]["retryAt"]
    assert shown["warnings"] == []
    assert [p["index"] for p in shown["parts"]] == [0, 1]
    post = ada_client.get(f"/api/social/posts/{shown['postId']}").json()["data"]
    assert post["status"] == "Published"
    assert OutboxEvent.objects.filter(event="post.published").count() == 1  # once, now
    # A live post is not cancelled or moved as if nothing were out.
    cancel = ada_client.delete(f"/api/social/schedule/{record_id}")
    assert (cancel.status_code, cancel.json()["error"]["code"]) == (409, "not_scheduled")

    make_due([record_id])
    result = run(client).json()["data"]["results"][0]
    assert (result["success"], result["status"]) == (True, "Published")
    assert run(client).json()["data"]["processedCount"] == 0  # nothing left to claim
    # Parts one and two were sent once each; part three twice (the failed try, then this).
    sent = [call.body["status"] for call in providers.mastodon.received("POST", "/api/v1/statuses")]
    assert sent == ["Part one", "Part two", "Part three", "Part three", "Part four"]
    statuses = providers.mastodon.posts
    assert [status["in_reply_to_id"] for status in statuses] == [
        None, statuses[0]["id"], statuses[1]["id"], statuses[2]["id"],
    ]  # fmt: skip
    record = ScheduledRecord.objects.get(pk=record_id)
    assert [part["index"] for part in record.parts] == [0, 1, 2, 3]
    assert record.attempts == 2
    assert (record.next_attempt_at, record.error_code, record.warnings) == (None, "", [])
    assert ada_client.get(f"/api/social/schedule/{record_id}").json()["data"]["error"] is None
    assert Notification.objects.filter(type="post_published").count() == 1
    assert OutboxEvent.objects.filter(event="post.published").count() == 1


def test_a_thread_part_that_fails_for_good_leaves_the_record_published_with_a_warning(
    client, ada_client, ada_accounts, providers, settings
):
    settings.SCHEDULER_RETRY_BASE_SECONDS = 60
    providers.mastodon.scripted += [(*STATUSES, DOWN, "Part three")] * 3
    (record_id,) = schedule(
        ada_client, ada_accounts, "mastodon", content="Part one",
        thread=[{"content": "Part two"}, {"content": "Part three"}],
    )  # fmt: skip
    published_at = None
    for _ in range(3):
        result = run(client).json()["data"]["results"][0]
        assert (result["success"], result["status"]) == (True, "Published")
        record = ScheduledRecord.objects.get(pk=record_id)
        published_at = published_at or record.published_at
        assert record.published_at == published_at  # published when its post went out
        make_due([record_id])
    record = ScheduledRecord.objects.get(pk=record_id)
    assert (record.status, record.attempts, record.next_attempt_at) == ("Published", 3, None)
    assert [(w["code"], w["index"]) for w in record.warnings] == [("thread_incomplete", 2)]
    assert [part["index"] for part in record.parts] == [0, 1]
    assert run(client).json()["data"]["processedCount"] == 0
    assert OutboxEvent.objects.filter(event="post.published").count() == 1
    assert not OutboxEvent.objects.filter(event="post.failed").exists()
    titles = sorted(n.title for n in Notification.objects.filter(type__startswith="post_"))
    assert titles == ["Published on Mastodon", "Published on Mastodon, but not all of it"]
    sent = [call.body["status"] for call in providers.mastodon.received(*STATUSES)]
    assert sent == ["Part one", "Part two", "Part three", "Part three", "Part three"]


def test_a_worker_dying_on_a_later_part_resumes_it_once(
    client, ada_client, ada_accounts, providers, settings
):
    """The worker publishing a published record's third part dies after Mastodon made it:
    the record is reclaimed when its lease runs out, the part found, nothing sent twice."""
    settings.SCHEDULER_RETRY_BASE_SECONDS = 60
    providers.mastodon.scripted.append((*STATUSES, DOWN, "Part three"))
    (record_id,) = schedule(
        ada_client, ada_accounts, "mastodon", content="Part one",
        thread=[{"content": "Part two"}, {"content": "Part three"}],
    )  # fmt: skip
    run(client)
    make_due([record_id])
    (claimed,) = records_claim(limit=10)
    assert (claimed.pk, claimed.status) == (ScheduledRecord.objects.get(pk=record_id).pk,
                                            "Published")  # fmt: skip
    assert records_claim(limit=10) == []  # held by its claim: no second worker takes it
    due = records_next_due()  # held: not due again while its lease lasts
    assert due is None or due > timezone.now()
    parent = providers.mastodon.posts[1]["id"]
    made = [{"id": "999999", "url": f"{providers.mastodon.url}/@ada/999999",
             "created_at": stamp(time.time()), "in_reply_to_id": parent,
             "content": "<p>Part three</p>"}]  # fmt: skip
    providers.mastodon.posts += made  # the dead worker's create reached Mastodon
    ScheduledRecord.objects.filter(pk=record_id).update(
        lease_expires_at=timezone.now() - timedelta(seconds=1)
    )
    result = run(client).json()["data"]["results"][0]
    assert (result["success"], result["status"]) == (True, "Published")
    record = ScheduledRecord.objects.get(pk=record_id)
    assert [part["providerPostId"] for part in record.parts][-1] == "999999"
    assert [h["outcome"] for h in record.history] == ["error", "lease_expired", "published"]
    assert record.next_attempt_at is None
    sent = [call.body["status"] for call in providers.mastodon.received(*STATUSES)]
    assert sent == ["Part one", "Part two", "Part three"]  # the third never sent again
    assert OutboxEvent.objects.filter(event="post.published").count() == 1


def test_a_reply_whose_answer_was_lost_is_found_not_sent_again(
    client, ada_client, ada_accounts, providers, settings
):
    """The reply reached Bluesky but its answer did not reach us: the next attempt looks it
    up by its own record key and publishes nothing twice."""
    settings.SCHEDULER_RETRY_BASE_SECONDS = 60
    providers.bluesky.scripted.append(
        ("POST", r"/xrpc/com\.atproto\.repo\.createRecord", BAD_GATEWAY, "Second part")
    )
    (record_id,) = schedule(
        ada_client, ada_accounts, "bluesky", content="First part",
        variants={"bluesky": {"thread": [{"content": "Second part"}]}},
    )  # fmt: skip
    assert run(client).json()["data"]["results"][0]["status"] == "Published"  # its post is out
    record = ScheduledRecord.objects.get(pk=record_id)
    assert record.next_attempt_at is not None  # its reply waits for its retry
    assert record.outcome_unknown  # a 502 on a create may come after the work
    # What the platform did before its answer was lost: the reply exists, under its key.
    rkey = tid(record.created_at + timedelta(microseconds=1), f"{record.id}:1")
    first = providers.bluesky.posts[0]
    lost = {"text": "Second part", "reply": {"root": {}, "parent": {}}}
    providers.bluesky.records[rkey] = lost
    providers.bluesky.posts.append({"rkey": rkey, **lost})

    make_due([record_id])
    assert run(client).json()["data"]["results"][0]["status"] == "Published"
    creates = providers.bluesky.received("POST", "/xrpc/com.atproto.repo.createRecord")
    assert [call.body["record"]["text"] for call in creates] == ["First part", "Second part"]
    record = ScheduledRecord.objects.get(pk=record_id)
    assert [part["providerPostId"].rsplit("/", 1)[-1] for part in record.parts] == [
        first["rkey"],
        rkey,
    ]


def test_a_first_comment_refused_leaves_the_post_published_with_a_warning(
    ada_client, ada_accounts, providers
):
    refused: tuple[int, Any, dict[str, str]] = (
        422,
        {"status": 422, "message": "Comment text is invalid"},
        {},
    )
    providers.linkedin.scripted.append(("POST", r"/rest/socialActions/.+/comments", refused))
    done = results(
        publish(ada_client, ada_accounts, "linkedin", firstComment="More in the comments")
    )["linkedin"]
    assert (done["success"], done["status"]) == (True, "Published")
    post_id = ScheduledRecord.objects.get(pk=done["recordId"]).post_id
    (stored,) = ada_client.get(f"/api/social/posts/{post_id}").json()["data"]["scheduledRecords"]
    assert stored["status"] == "Published"
    assert [(w["code"], w["index"]) for w in stored["warnings"]] == [("first_comment_failed", 1)]
    assert [p["kind"] for p in stored["parts"]] == ["post"]
    titles = sorted(n.title for n in Notification.objects.filter(type__startswith="post_"))
    assert titles == ["Published on LinkedIn", "Published on LinkedIn, but not all of it"]


# --- Alt text ------------------------------------------------------------------------------------


def test_alt_text_is_sent_in_each_platforms_own_field(ada_client, ada_accounts, providers):
    image = media(ada_client, providers.image(), alt="A red launch button")
    done = results(
        publish(ada_client, ada_accounts, "bluesky", "mastodon", "linkedin", "facebook",
                mediaIds=[image])
    )  # fmt: skip
    assert all(entry["success"] for entry in done.values()), done
    assert providers.bluesky.posts[0]["embed"]["images"][0]["alt"] == "A red launch button"
    (upload,) = providers.mastodon.received("POST", "/api/v2/media")
    assert upload.body["description"] == b"A red launch button"
    assert providers.linkedin.posts[0]["content"]["media"]["altText"] == "A red launch button"
    photo = providers.meta.received("POST", "/v24.0/1001/photos")[0]
    assert photo.body["alt_text_custom"] == "A red launch button"


def test_alt_text_can_be_required_and_set_afterwards(ada_client, ada_accounts, providers):
    on = ada_client.put("/api/social/settings", {"requireAltText": True}, format="json")
    assert on.status_code == 200
    assert on.json()["data"]["requireAltText"] is True
    image = media(ada_client, providers.image())
    response = publish(ada_client, ada_accounts, "bluesky", mediaIds=[image])
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "alt_text_required"
    assert providers.bluesky.posts == []

    too_long = ada_client.patch(f"/api/social/media/{image}", {"alt": "x" * 1501}, format="json")
    assert too_long.status_code == 400
    patched = ada_client.patch(
        f"/api/social/media/{image}", {"alt": "Launch screenshot"}, format="json"
    )
    assert patched.status_code == 200
    assert patched.json()["data"]["alt"] == "Launch screenshot"
    assert results(publish(ada_client, ada_accounts, "bluesky", mediaIds=[image]))["bluesky"][
        "success"
    ]
    assert providers.bluesky.posts[0]["embed"]["images"][0]["alt"] == "Launch screenshot"


def test_someone_elses_media_cannot_be_described(ada_client, bob_client, providers):
    image = media(ada_client, providers.image())
    response = bob_client.patch(f"/api/social/media/{image}", {"alt": "mine"}, format="json")
    assert response.status_code == 404
    listed = ada_client.get("/api/social/media").json()["data"]
    assert [item["alt"] for item in listed] == [""]


# --- Carousels -----------------------------------------------------------------------------------


def test_an_instagram_carousel_and_a_linkedin_multi_image_post_carry_each_alt(
    ada_client, ada_accounts, providers
):
    images = [
        media(ada_client, providers.image(f"slide{i}.jpg"), alt=f"Slide {i}") for i in (1, 2, 3)
    ]
    done = results(publish(ada_client, ada_accounts, "instagram", "linkedin", mediaIds=images))
    assert all(entry["success"] for entry in done.values()), done
    containers = providers.meta.received("POST", "/v24.0/17841400000000001/media")
    children, carousel = containers[:3], containers[3]
    assert [(c.body["is_carousel_item"], c.body["alt_text"]) for c in children] == [
        ("true", "Slide 1"), ("true", "Slide 2"), ("true", "Slide 3"),
    ]  # fmt: skip
    assert carousel.body["media_type"] == "CAROUSEL"
    assert len(carousel.body["children"].split(",")) == 3
    multi = providers.linkedin.posts[0]["content"]["multiImage"]["images"]
    assert [image["altText"] for image in multi] == ["Slide 1", "Slide 2", "Slide 3"]


def test_eleven_images_are_too_many_for_an_instagram_carousel(ada_client, ada_accounts, providers):
    images = [media(ada_client, providers.image(f"s{i}.jpg")) for i in range(11)]
    response = publish(ada_client, ada_accounts, "instagram", mediaIds=images)
    assert response.status_code == 400
    (problem,) = response.json()["error"]["details"]["targets"]
    assert (problem["provider"], problem["field"]) == ("instagram", "media")


# --- Preview -------------------------------------------------------------------------------------


def test_the_preview_shows_each_targets_parts_counts_and_problems_and_sends_nothing(
    ada_client, ada_accounts, providers
):
    image = media(ada_client, providers.image(), alt="The dashboard")
    response = ada_client.post(
        "/api/social/preview",
        {"content": "Launch day 🚀 https://example.com/launch", "hashtags": "#launch",
         "mediaIds": [image],
         "variants": {"mastodon": {"thread": [{"content": "More soon"}],
                                   "firstComment": "Questions welcome"},
                      "bluesky": {"content": "x" * 301}},
         "accountIds": [ada_accounts[p]["id"] for p in ("mastodon", "bluesky", "devto")]},
        format="json",
    )  # fmt: skip
    assert response.status_code == 200, response.content
    previews = {preview["provider"]: preview for preview in response.json()["data"]}
    mastodon = previews["mastodon"]
    assert mastodon["accountId"] == ada_accounts["mastodon"]["id"]
    assert [(part["kind"], part["text"]) for part in mastodon["parts"]] == [
        ("post", "Launch day 🚀 https://example.com/launch\n\n#launch"),
        ("reply", "More soon"),
        ("comment", "Questions welcome"),
    ]
    assert mastodon["parts"][0]["media"] == [{"url": providers.image(), "alt": "The dashboard"}]
    # The link counts as 23 characters on Mastodon.
    assert mastodon["counts"] == {"used": 12 + 1 + 23 + 2 + 7, "limit": 1000,
                                  "countsBy": "characters"}  # fmt: skip
    assert (mastodon["valid"], mastodon["problems"]) == (True, [])
    bluesky = previews["bluesky"]
    # The variant's text, the post's hashtags after it.
    assert bluesky["counts"] == {"used": 301 + 2 + 7, "limit": 300, "countsBy": "graphemes"}
    assert bluesky["valid"] is False
    assert [p["field"] for p in bluesky["problems"]] == ["variants.bluesky.content"]
    devto = previews["devto"]
    assert devto["valid"] is False
    assert {p["field"] for p in devto["problems"]} >= {"title"}
    # Nothing stored, nothing sent.
    assert ada_client.get("/api/social/posts").json()["data"] == []
    assert providers.mastodon.posts == []
    assert providers.bluesky.posts == []


def test_the_preview_of_a_saved_post_uses_its_stored_variants(ada_client, ada_accounts):
    post = ada_client.post(
        "/api/social/posts",
        {"content": "Saved", "platforms": ["bluesky", "linkedin"],
         "variants": {"linkedin": {"firstComment": "Link below"}}},
        format="json",
    ).json()["data"]  # fmt: skip
    response = ada_client.post("/api/social/preview", {"postId": post["id"]}, format="json")
    assert response.status_code == 200, response.content
    previews = {preview["provider"]: preview for preview in response.json()["data"]}
    assert [part["kind"] for part in previews["linkedin"]["parts"]] == ["post", "comment"]
    assert [part["kind"] for part in previews["bluesky"]["parts"]] == ["post"]


def _sent_text(provider: str, entry: dict[str, Any]) -> str:
    """The text a stand-in received for one created post, reply or comment."""
    if provider == "linkedin":
        return str(entry.get("commentary") or entry["message"]["text"])
    if provider in ("facebook", "instagram"):
        return str(entry.get("message") or entry.get("caption") or "")
    if provider == "bluesky":
        return str(entry["text"])
    if provider == "mastodon":
        return str(entry["body"]["status"])
    return str(entry["body_markdown"])


def _stand_in(providers: Any, provider: str) -> Any:
    return providers.meta if provider in ("facebook", "instagram") else getattr(providers, provider)


def test_the_linkedin_preview_shows_the_escaped_text_linkedin_is_sent(
    ada_client, ada_accounts, providers
):
    body = {"content": "Ship it (v2) #launch", "hashtags": "#ship",
            "variants": {"linkedin": {"firstComment": "Notes (v2) inside"}},
            "accountIds": [ada_accounts["linkedin"]["id"]]}  # fmt: skip
    preview = ada_client.post("/api/social/preview", body, format="json")
    assert preview.status_code == 200, preview.content
    (linkedin,) = preview.json()["data"]
    done = results(ada_client.post("/api/social/publish", body, format="json"))
    assert done["linkedin"]["success"] is True
    post, comment = providers.linkedin.posts
    sent = post["commentary"]
    assert sent == r"Ship it \(v2\) {hashtag|\#|launch}" + "\n\n{hashtag|\\#|ship}"
    assert [(part["kind"], part["text"]) for part in linkedin["parts"]] == [
        ("post", sent),
        ("comment", comment["message"]["text"]),
    ]
    # The text as readers see it, for rendering the preview.
    assert [part["display"] for part in linkedin["parts"]] == [
        "Ship it (v2) #launch\n\n#ship",
        "Notes (v2) inside",
    ]


@pytest.mark.parametrize(
    "provider", ["linkedin", "facebook", "instagram", "bluesky", "mastodon", "devto"]
)
def test_every_networks_preview_parts_are_what_it_is_sent(
    ada_client, ada_accounts, providers, provider
):
    image = media(ada_client, providers.image(), alt="The dashboard")
    variant: dict[str, Any] = {"firstComment": "Questions (and bugs) welcome"}
    if provider in ("bluesky", "mastodon"):
        variant["thread"] = [{"content": "Part two: [details] & <more>"}]
    if provider == "devto":
        variant = {"title": "Ship it (v2)"}
    if provider == "instagram":
        variant["mediaIds"] = [image]
    body = {"content": "Ship it (v2) *now* @ada #launch https://example.com/v2",
            "hashtags": "#ship", "link": "https://example.com/v2",
            "variants": {provider: variant},
            "accountIds": [ada_accounts[provider]["id"]]}  # fmt: skip
    preview = ada_client.post("/api/social/preview", body, format="json")
    assert preview.status_code == 200, preview.content
    (target,) = preview.json()["data"]
    assert target["valid"] is True, target["problems"]
    stand_in = _stand_in(providers, provider)
    before = len(stand_in.posts)
    done = results(ada_client.post("/api/social/publish", body, format="json"))
    assert done[provider]["success"] is True, done
    sent = [_sent_text(provider, entry) for entry in stand_in.posts[before:]]
    assert [part["text"] for part in target["parts"]] == sent


def test_disconnecting_ends_a_published_records_waiting_parts(
    client, ada_client, ada_accounts, providers, settings
):
    settings.SCHEDULER_RETRY_BASE_SECONDS = 60
    providers.mastodon.scripted.append((*STATUSES, DOWN, "Part two"))
    (record_id,) = schedule(
        ada_client, ada_accounts, "mastodon", content="Part one",
        thread=[{"content": "Part two"}],
    )  # fmt: skip
    run(client)
    assert ScheduledRecord.objects.get(pk=record_id).next_attempt_at is not None
    gone = ada_client.post(
        "/api/social/disconnect", {"accountId": ada_accounts["mastodon"]["id"]}, format="json"
    )
    assert gone.status_code == 200, gone.content
    record = ScheduledRecord.objects.get(pk=record_id)
    assert (record.status, record.next_attempt_at) == ("Published", None)
    assert [(w["code"], w["index"]) for w in record.warnings] == [("thread_incomplete", 1)]
    assert record.warnings[0]["message"].endswith("the account was disconnected.")
    make_due([record_id])
    assert run(client).json()["data"]["processedCount"] == 0  # nothing sent for it any more
    assert len(providers.mastodon.received(*STATUSES)) == 2


def test_a_lost_first_comment_is_found_among_many_others(
    client, ada_client, ada_accounts, providers, settings
):
    """LinkedIn made the first comment but answered 502; by the retry, readers had left more
    comments than a page holds: the comment is found, never sent twice."""
    settings.SCHEDULER_RETRY_BASE_SECONDS = 60
    comments = ("POST", r"/rest/socialActions/.+/comments")
    providers.linkedin.acted.append((*comments, (502, {"status": 502, "message": "Bad"}, {})))
    (record_id,) = schedule(ada_client, ada_accounts, "linkedin", firstComment="More below")
    result = run(client).json()["data"]["results"][0]
    assert (result["success"], result["status"]) == (True, "Published")
    post = providers.linkedin.posts[0]["id"]
    providers.linkedin.posts += [
        {"kind": "comment", "id": f"urn:li:comment:({post},{8000 + n})", "object": post,
         "actor": "urn:li:person:reader", "message": {"text": f"Nice {n}"}}
        for n in range(30)
    ]  # fmt: skip
    make_due([record_id])
    result = run(client).json()["data"]["results"][0]
    assert (result["success"], result["status"]) == (True, "Published")
    record = ScheduledRecord.objects.get(pk=record_id)
    assert [p["kind"] for p in record.parts] == ["post", "comment"]
    assert record.next_attempt_at is None
    (create,) = [c for c in providers.linkedin.calls if c.method == "POST" and "comments" in c.path]
    assert create.body["message"]["text"] == "More below"  # sent once

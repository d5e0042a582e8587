"""Documents (social.md section 13): a PDF of at most 300 pages and MEDIA_MAX_DOCUMENT_BYTES,
its pages read from the file itself (untrusted: bounded, a broken file is a clear 400), taken
by LinkedIn only (400 `document_not_supported` elsewhere, on every path) and published there
through the Documents API, LinkedIn's processing awaited by a task, the document never
uploaded twice."""

import time
from datetime import timedelta
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from social.models import MediaItem, ScheduledRecord
from social.networks import NETWORKS
from tests.social.documents import looping, nodes, pdf
from tests.social.test_scheduler import make_due, run, schedule

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("cron_secret")]

OTHERS = ("facebook", "instagram", "bluesky", "mastodon", "devto")


def upload(client: Any, data: bytes, name: str = "deck.pdf") -> Any:
    body = {"file": SimpleUploadedFile(name, data, content_type="application/octet-stream")}
    return client.post("/api/social/media", body, format="multipart")


def register(client: Any, url: str, size: int = 4096) -> Any:
    body = {"type": "application/pdf", "url": url, "size": size, "filename": "deck.pdf"}
    return client.post("/api/social/media", body, format="json")


@pytest.fixture
def deck(ada_client) -> dict[str, Any]:
    response = upload(ada_client, pdf(12))
    assert response.status_code == 200, response.content
    return dict(response.json()["data"])


def publish(client: Any, accounts: dict[str, Any], *providers: str, **body: Any) -> Any:
    return client.post(
        "/api/social/publish",
        {"content": "Our 2027 playbook", "title": "The playbook", **body,
         "accountIds": [accounts[p]["id"] for p in providers]},
        format="json",
    )  # fmt: skip


def refusal(response: Any) -> str:
    assert response.status_code == 400, response.content
    return str(response.json()["error"]["code"])


# --- Media ---------------------------------------------------------------------------------------


def test_an_uploaded_pdf_has_its_pages_read_from_the_file(ada_client, deck):
    assert deck["type"] == "application/pdf"
    assert deck["pages"] == 12
    assert deck["filename"] == "deck.pdf"
    assert deck["url"].endswith(".pdf")
    assert deck["size"] == len(pdf(12))
    (item,) = MediaItem.objects.all()
    assert item.file.name.endswith(".pdf")
    # Other media have no pages.
    image = ada_client.post(
        "/api/social/media",
        {"type": "image/jpeg", "url": "https://cdn.example.com/a.jpg", "size": 10},
        format="json",
    ).json()["data"]
    assert image["pages"] is None


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (pdf(301), "more than 300 pages"),
        (b"%PDF-1.7\n" + b"\0" * 4096, "could not be read as a PDF"),
        (pdf(3)[:300], "could not be read as a PDF"),
        (pdf(2, password="secret"), "protected by a password"),
        (looping(), "page tree loops"),
        (nodes(20_000), "page tree too large"),
    ],
)
def test_a_pdf_that_cannot_be_published_is_refused_naming_the_file(ada_client, data, reason):
    started = time.monotonic()
    response = upload(ada_client, data)
    assert response.status_code == 400, response.content
    (message,) = response.json()["error"]["details"]["file"]
    assert reason in message
    assert time.monotonic() - started < 10
    assert not MediaItem.objects.exists()


def test_a_pdf_is_held_to_its_size_before_a_byte_is_parsed(ada_client, settings, monkeypatch):
    from social.content import pdf as reader

    def never(*args: Any, **kwargs: Any) -> int:
        raise AssertionError("parsed")

    monkeypatch.setattr(reader, "page_count", never)
    settings.MEDIA_MAX_DOCUMENT_BYTES = 1024
    response = upload(ada_client, pdf(40))
    assert response.status_code == 400
    assert "larger than 1024 bytes" in response.json()["error"]["details"]["file"][0]
    # A registration declares more than the ceiling: refused before anything is fetched.
    response = register(ada_client, "https://cdn.example.com/deck.pdf", size=2048)
    assert response.status_code == 400
    assert "size" in response.json()["error"]["details"]
    assert not MediaItem.objects.exists()


def test_a_registered_pdf_is_read_from_the_hosted_file(ada_client, providers, settings):
    providers.cdn.files.update({"deck.pdf": pdf(7), "page.pdf": b"<html>Not a PDF</html>",
                                "big.pdf": pdf(120)})  # fmt: skip
    response = register(ada_client, f"{providers.cdn.url}/files/deck.pdf", size=10)
    assert response.status_code == 200, response.content
    item = response.json()["data"]
    assert (item["type"], item["pages"], item["size"]) == ("application/pdf", 7, len(pdf(7)))
    for name in ("page.pdf", "missing.pdf"):
        refused = register(ada_client, f"{providers.cdn.url}/files/{name}")
        assert refused.status_code == 400
        assert list(refused.json()["error"]["details"]) == ["url"], name
    settings.MEDIA_MAX_DOCUMENT_BYTES = len(pdf(7)) + 100
    refused = register(ada_client, f"{providers.cdn.url}/files/big.pdf", size=10)
    assert refused.status_code == 400
    assert "larger than" in refused.json()["error"]["details"]["url"][0]
    assert MediaItem.objects.count() == 1


def test_documents_are_a_capability_of_linkedin_only(ada_client):
    listed = {p["provider"]: p for p in ada_client.get("/api/social/platforms").json()["data"]}
    taking = {provider for provider, p in listed.items() if p["capabilities"]["documents"]}
    assert "linkedin" in taking
    assert taking <= {"linkedin", "linkedin_page"}
    assert {p for p, n in NETWORKS.items() if n.capabilities.documents} == taking


# --- Validation on every path ------------------------------------------------------------------


def test_every_other_network_refuses_a_document_on_every_path(
    ada_client, ada_accounts, providers, deck
):
    media = [deck["id"]]
    later = (timezone.now() + timedelta(hours=3)).isoformat()
    for provider in OTHERS:
        account = ada_accounts[provider]["id"]
        slots = {"timezone": "UTC", "paused": False, "slots": [{"day": "mon", "time": "09:00"}]}
        queued = ada_client.put(f"/api/social/queue/{account}", slots, format="json")
        assert queued.status_code == 200, queued.content
        answers = {
            "publish": publish(ada_client, ada_accounts, provider, mediaIds=media),
            "schedule": ada_client.post("/api/social/schedule", {
                "content": "Deck", "title": "Deck", "mediaIds": media, "scheduledTime": later,
                "accountIds": [account]}, format="json"),
            "schedule B": ada_client.post("/api/social/schedule", {
                "content": "Deck", "platforms": [provider], "scheduledAt": later,
                "mediaIds": media}, format="json"),
            "queue": ada_client.post("/api/social/queue", {
                "content": "Deck", "title": "Deck", "mediaIds": media,
                "accountIds": [account]}, format="json"),
        }  # fmt: skip
        for path, response in answers.items():
            assert refusal(response) == "document_not_supported", (provider, path)
            (target,) = response.json()["error"]["details"]["targets"]
            assert (target["provider"], target["field"]) == (provider, "media"), path
        preview = ada_client.post(
            "/api/social/preview",
            {"content": "Deck", "title": "Deck", "mediaIds": media, "accountIds": [account]},
            format="json",
        )
        assert preview.status_code == 200, preview.content
        (target,) = preview.json()["data"]
        assert not target["valid"]
        assert any(p["field"] == "media" for p in target["problems"]), provider
    assert ScheduledRecord.objects.count() == 0
    for standin in (providers.meta, providers.bluesky, providers.mastodon, providers.devto):
        assert standin.posts == []


def test_linkedin_takes_one_document_alone_named_by_a_title(
    ada_client, ada_accounts, providers, deck
):
    other = upload(ada_client, pdf(2), name="other.pdf").json()["data"]
    image = ada_client.post(
        "/api/social/media", {"type": "image/jpeg", "url": providers.image(), "size": 2048},
        format="json",
    ).json()["data"]  # fmt: skip
    for media in ([deck["id"], image["id"]], [deck["id"], other["id"]]):
        response = publish(ada_client, ada_accounts, "linkedin", mediaIds=media)
        assert refusal(response) == "validation_error"
        (problem,) = response.json()["error"]["details"]["targets"]
        assert problem["field"] == "media"
        assert "one document per post, alone" in problem["message"]
    untitled = publish(ada_client, ada_accounts, "linkedin", mediaIds=[deck["id"]], title="")
    assert refusal(untitled) == "validation_error"
    (problem,) = untitled.json()["error"]["details"]["targets"]
    assert (problem["provider"], problem["field"]) == ("linkedin", "title")
    # The variant's title is the one LinkedIn takes, and its problems are named there.
    variant = publish(ada_client, ada_accounts, "linkedin", mediaIds=[deck["id"]],
                      variants={"linkedin": {"title": "  "}})  # fmt: skip
    assert variant.json()["error"]["details"]["targets"][0]["field"] == "variants.linkedin.title"
    preview = ada_client.post(
        "/api/social/preview",
        {"content": "Deck", "mediaIds": [deck["id"]],
         "accountIds": [ada_accounts["linkedin"]["id"]]},
        format="json",
    ).json()["data"][0]  # fmt: skip
    assert [p["field"] for p in preview["problems"]] == ["title"]
    assert providers.linkedin.posts == []
    assert providers.linkedin.documents == {}


# --- Publishing through LinkedIn's Documents API -------------------------------------------------


def test_a_document_is_published_to_linkedin_through_its_processing(
    ada_client, ada_accounts, providers, deck, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = publish(ada_client, ada_accounts, "linkedin", mediaIds=[deck["id"]],
                           title="", variants={"linkedin": {"title": "Playbook 2027"}})  # fmt: skip
        assert response.status_code == 200, response.content
    (entry,) = response.json()["data"]
    assert (entry["status"], entry["error"]["code"]) == ("Publishing", "processing")
    record = ScheduledRecord.objects.get()
    assert (record.status, record.attempts, record.processing) == ("Published", 1, {})
    assert [entry["outcome"] for entry in record.history] == ["processing", "published"]
    # initializeUpload for the member, the whole file PUT with the token, three looks, the post.
    (initialized,) = providers.linkedin.received("POST", "/rest/documents")
    assert initialized.q("action") == "initializeUpload"
    assert initialized.body == {"initializeUploadRequest": {"owner": "urn:li:person:li-ada-42"}}
    ((urn, document),) = providers.linkedin.documents.items()
    (put,) = providers.linkedin.received("PUT", f"/upload/{document['upload']}")
    assert put.body == pdf(12)
    assert put.headers["Authorization"] == "Bearer li-access-token"
    looks = [c for c in providers.linkedin.calls if c.path.startswith("/rest/documents/")]
    assert len(looks) == 3
    (post,) = providers.linkedin.posts
    assert post["content"] == {"media": {"id": urn, "title": "Playbook 2027"}}
    assert record.url == f"https://www.linkedin.com/feed/update/{post['id']}"


def test_a_hosted_document_is_fetched_and_published(
    ada_client, ada_accounts, providers, django_capture_on_commit_callbacks
):
    providers.cdn.files["deck.pdf"] = pdf(4)
    item = register(ada_client, f"{providers.cdn.url}/files/deck.pdf").json()["data"]
    with django_capture_on_commit_callbacks(execute=True):
        response = publish(ada_client, ada_accounts, "linkedin", mediaIds=[item["id"]])
        assert response.status_code == 200, response.content
    assert ScheduledRecord.objects.get().status == "Published"
    (document,) = providers.linkedin.documents.values()
    assert providers.linkedin.received("PUT", f"/upload/{document['upload']}")[0].body == pdf(4)


def test_linkedins_processing_failure_fails_the_record_with_its_reason(
    ada_client, ada_accounts, providers, deck, django_capture_on_commit_callbacks
):
    providers.linkedin.video_fail = "Document has too many pages"
    with django_capture_on_commit_callbacks(execute=True):
        publish(ada_client, ada_accounts, "linkedin", mediaIds=[deck["id"]])
    record = ScheduledRecord.objects.get()
    assert record.status == "Failed"
    assert "could not process the document: Document has too many pages" in record.error
    shown = ada_client.get(f"/api/social/schedule/{record.pk}").json()["data"]
    assert shown["error"]["category"] == "media_invalid", shown["error"]
    assert providers.linkedin.posts == []


def test_a_scheduled_document_resumes_after_a_worker_died_without_uploading_again(
    client, ada_client, ada_accounts, providers, deck, django_capture_on_commit_callbacks
):
    (record_id,) = schedule(ada_client, ada_accounts, "linkedin", mediaIds=[deck["id"]])
    with django_capture_on_commit_callbacks(execute=False):  # the worker dies: no task runs
        assert run(client).json()["data"]["results"][0]["status"] == "Publishing"
    record = ScheduledRecord.objects.get(pk=record_id)
    assert record.processing["document"].startswith("urn:li:document:")
    ScheduledRecord.objects.filter(pk=record_id).update(
        lease_expires_at=timezone.now() - timedelta(seconds=1)
    )
    with django_capture_on_commit_callbacks(execute=True):
        run(client)  # reaps it
        make_due([record_id])
        run(client)
    record = ScheduledRecord.objects.get(pk=record_id)
    assert record.status == "Published"
    assert len(providers.linkedin.received("POST", "/rest/documents")) == 1  # uploaded once
    (post,) = providers.linkedin.posts
    (urn,) = providers.linkedin.documents
    assert post["content"]["media"] == {"id": urn, "title": "Scheduled"}

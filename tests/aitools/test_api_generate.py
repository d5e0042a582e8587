"""The ten generators through HTTP: contract shapes, exact costs, nothing charged for nothing."""

import pytest

from accounts.models import User
from aitools.models import Generation, Gig, Proposal
from aitools.tools import TOOLS
from billing.models import CreditTransaction
from notifications.models import Notification
from tests.aitools.conftest import BODIES, COSTS
from tests.aitools.standin import standin_server

pytestmark = pytest.mark.django_db


def balance(user: User) -> int:
    return User.objects.values_list("credits_remaining", flat=True).get(pk=user.pk)


@pytest.mark.parametrize("tool", list(BODIES))
def test_each_tool_answers_its_shape_and_charges_its_cost(ada_client, ada, tool):
    path, body = BODIES[tool]
    response = ada_client.post(path, body)
    assert response.status_code == 200, response.json()
    payload = response.json()
    assert payload["success"] is True
    assert payload["meta"]["provider"] == "offline"
    assert payload["meta"]["tokensUsed"] > 0
    data = payload["data"]
    if tool == "gig_generate":
        assert set(data) == {
            "id",
            "title",
            "description",
            "tags",
            "packages",
            "faq",
            "status",
            "created_at",
        }
        assert data["status"] == "draft"
        assert Gig.objects.get(pk=data["id"]).user_id == ada.pk
    elif tool == "proposal_generate":
        assert set(data) == {"id", "title", "content", "status", "created_at"}
        assert Proposal.objects.get(pk=data["id"]).user_id == ada.pk
    else:
        assert set(data) == set(TOOLS[tool].output().fields)
    assert balance(ada) == 20 - COSTS[tool]
    entry = Generation.objects.get(user=ada)
    assert (entry.tool, entry.status, entry.credits_charged) == (tool, "succeeded", COSTS[tool])


@pytest.mark.parametrize(
    ("tool", "body"),
    [
        ("proposal_generate", {"jobDescription": "too short"}),
        ("gig_generate", {}),
        ("pricing_optimize", {"service": "x", "experienceLevel": "guru"}),
        ("reviews_analyze", {"reviews": []}),
        ("reviews_analyze", {"reviews": [{"rating": 6}]}),
        ("portfolio_generate", {"skills": []}),
        ("social_ai_generate", {"action": "dance"}),
        ("social_ai_generate", {"action": "rewrite"}),
        ("seo_audit", {"title": "x" * 201, "description": "d"}),
        ("gig_health", {"title": "t", "description": "d", "tags": ["x"] * 51}),
        ("messages_reply", {"message": "x" * 10_001}),
    ],
)
def test_invalid_bodies_charge_nothing(ada_client, ada, tool, body):
    path = BODIES[tool][0]
    response = ada_client.post(path, body)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "validation_error"
    assert balance(ada) == 20
    assert not Generation.objects.exists()


def test_two_different_inputs_give_different_outputs(ada_client):
    first = ada_client.post("/api/gig/generate", {"service": "Logo design for coffee shops"}).json()
    second = ada_client.post(
        "/api/gig/generate", {"service": "WordPress speed optimization"}
    ).json()
    assert first["data"]["title"] != second["data"]["title"]
    assert first["data"]["description"] != second["data"]["description"]


def test_not_enough_credits_is_402_and_generates_nothing(ada_client, ada):
    from billing.services.credits import credits_adjust

    credits_adjust(user=ada, delta=-19)  # 1 left; the gig costs 2
    response = ada_client.post(*BODIES["gig_generate"])
    assert response.status_code == 402
    assert response.json() == {
        "success": False,
        "message": "Not enough credits for this call.",
        "error": {"code": "insufficient_credits", "details": {"required": 2, "available": 1}},
    }
    assert balance(ada) == 1
    assert not Generation.objects.exists()
    assert not Gig.objects.exists()


def test_a_failing_provider_refunds_and_notifies(ada_client, ada, settings):
    with standin_server() as standin:
        standin.mode = "error"
        settings.AI_PROVIDER, settings.AI_BASE_URL, settings.AI_MODEL = "openai", standin.url, "m"
        response = ada_client.post(*BODIES["gig_generate"])
    assert response.status_code == 502
    body = response.json()
    assert body["error"]["code"] == "ai_provider_error"
    entry = Generation.objects.get()
    assert body["error"]["details"] == {"historyId": str(entry.pk), "refunded": 2}
    assert (entry.status, entry.error) == ("failed", "The AI provider failed (HTTP 500).")
    assert balance(ada) == 20
    reasons = list(CreditTransaction.objects.filter(user=ada).values_list("reason", "delta"))
    assert reasons == [("refund", 2), ("spend", -2), ("signup", 20)]
    note = Notification.objects.get(user=ada)
    assert (note.type, note.category) == ("ai_failed", "AI Generation")
    assert not Gig.objects.exists()


def test_the_openai_provider_end_to_end(ada_client, ada, settings):
    with standin_server() as standin:
        standin.mode = "invalid_once"
        settings.AI_PROVIDER, settings.AI_BASE_URL, settings.AI_MODEL = "openai", standin.url, "m"
        response = ada_client.post(*BODIES["seo_audit"])
    assert response.status_code == 200
    assert response.json()["meta"] == {"tokensUsed": 120, "provider": "openai"}
    assert balance(ada) == 19


def test_a_timeout_refunds(ada_client, ada, settings):
    with standin_server() as standin:
        standin.mode, standin.delay = "slow", 1.5
        settings.AI_PROVIDER, settings.AI_BASE_URL, settings.AI_MODEL = "openai", standin.url, "m"
        settings.AI_TIMEOUT_SECONDS = 0.3
        response = ada_client.post(*BODIES["messages_reply"])
    assert response.status_code == 502
    assert "did not answer in time" in response.json()["message"]
    assert balance(ada) == 20


def test_needs_a_token(api):
    assert api.post(*BODIES["seo_audit"]).status_code == 401


def test_both_prefixes(ada_client):
    path, body = BODIES["keywords_find"]
    assert ada_client.post(path.replace("/api/", "/api/v1/"), body).status_code == 200

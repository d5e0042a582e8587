"""An agent's policy (agents.md section 2) in process: accounts outside it, the daily post and
credit budgets (refused before anything is written or spent), autopublish, idempotency keys
per connection, and the owner's `/api/agents`."""

from datetime import UTC, datetime, timedelta
from typing import Any

from agents.models import AgentConnection, AgentUsage
from social.models import Post, ScheduledRecord
from tests.agents.conftest import ALL_SCOPES, call, caller_for
from tests.factories import client_with_key


def in_a_day() -> str:
    return (datetime.now(UTC) + timedelta(days=1)).replace(microsecond=0).isoformat()


def schedule(agent: Any, account: Any, **extra: Any) -> Any:
    return call(agent, "schedule_post", title="Launch", content="Launch day",
                accountIds=[str(account.pk)], scheduledTime=in_a_day(), **extra)  # fmt: skip


def test_an_account_outside_the_policy_is_refused_and_nothing_written(agent, devto):
    AgentConnection.objects.filter(pk=agent.connection.pk).update(account_ids=[])

    result = schedule(agent, devto)

    assert result.structured["error"]["code"] == "permission_denied"
    assert result.structured["error"]["details"] == {"accountIds": [str(devto.pk)]}
    assert not Post.objects.exists()
    assert call(agent, "list_accounts").structured == {"items": [], "meta": {"total": 0}}


def test_past_the_daily_post_budget_nothing_is_written(agent, devto):
    AgentConnection.objects.filter(pk=agent.connection.pk).update(max_posts_per_day=1)
    assert schedule(agent, devto).structured["status"] == "approval_requested"

    refused = schedule(agent, devto).structured["error"]

    assert (refused["code"], refused["details"]["limit"], refused["details"]["used"]) == (
        "agent_budget_exceeded", 1, 1,
    )  # fmt: skip
    assert Post.objects.count() == 1
    assert AgentUsage.objects.get().posts == 1


def test_a_failed_publishing_call_gives_its_post_back(agent, devto):
    result = call(agent, "schedule_post", content="x", accountIds=[str(devto.pk)],
                  scheduledTime="2000-01-01T00:00:00Z")  # fmt: skip

    assert result.structured["error"]["code"] == "validation_error"
    assert AgentUsage.objects.get().posts == 0


def test_with_autopublish_the_post_is_scheduled_without_approval(agent, devto):
    AgentConnection.objects.filter(pk=agent.connection.pk).update(autopublish=True)

    result = schedule(agent, devto)

    assert [r["status"] for r in result.structured["scheduledRecords"]] == ["Scheduled"]
    assert "status" not in result.structured


def test_an_ai_call_beyond_the_credit_budget_spends_nothing(agent, ada):
    AgentConnection.objects.filter(pk=agent.connection.pk).update(credit_budget_per_day=1)
    asked = {"tool": "gig_generate", "input": {"service": "Logo design"}}  # costs 2

    result = call(agent, "generate", **asked)

    assert result.structured["error"]["code"] == "agent_budget_exceeded"
    ada.refresh_from_db()
    assert ada.credits_remaining == 20


def test_idempotency_keys_are_per_connection(agent, ada):
    other = caller_for(ada, *ALL_SCOPES, name="Cursor")

    first = call(agent, "create_post", content="One", idempotencyKey="same")
    again = call(agent, "create_post", content="One", idempotencyKey="same")
    elsewhere = call(other, "create_post", content="One", idempotencyKey="same")

    assert first.structured == again.structured
    assert elsewhere.structured["id"] != first.structured["id"]
    assert Post.objects.count() == 2


def test_the_owner_lists_changes_and_revokes_agents(agent, ada_client, bob_client, devto):
    listed = ada_client.get("/api/agents").json()["data"]
    assert [(a["id"], a["name"], a["kind"]) for a in listed] == [
        (str(agent.connection.pk), "Claude", "api_key")
    ]
    url = f"/api/agents/{agent.connection.pk}"
    wrong = ada_client.patch(url, {"policy": {"accountIds": [str(ScheduledRecord().pk)]}},
                             format="json")  # fmt: skip
    assert wrong.status_code == 400
    assert list(wrong.json()["error"]["details"]) == ["policy.accountIds"]
    assert (
        bob_client.patch(url, {"policy": {"autopublish": True}}, format="json").status_code == 404
    )

    policy = {"autopublish": True, "accountIds": [str(devto.pk)]}
    changed = ada_client.patch(url, {"policy": policy}, format="json")
    assert changed.json()["data"]["policy"] == {"autopublish": True, "maxPostsPerDay": 10,
                                                "creditBudgetPerDay": 20,
                                                "accountIds": [str(devto.pk)]}  # fmt: skip

    assert ada_client.delete(url).status_code == 200
    assert client_with_key(agent.origin.secret).get("/api/auth/me").status_code == 401
    assert ada_client.get("/api/agents").json()["data"] == []

"""Workspace rules under concurrency (PostgreSQL's row locks): two owners demoting each other at
once keep one owner; two creations at the last place make one workspace."""

import threading
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection

from accounts.errors import LastOwner, PermissionRefused, WorkspaceLimitReached
from accounts.models import Membership, WorkspaceRole
from accounts.selectors import membership_get
from accounts.services.members import member_set_role
from accounts.services.workspaces import workspace_create
from tests.factories import UserFactory, shared_workspace

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def at_once(*calls: Callable[[], Any]) -> list[str]:
    """Run the calls in threads released together; each one's outcome (its error's class)."""
    barrier = threading.Barrier(len(calls))
    outcomes: list[str] = []

    def run(call: Callable[[], Any]) -> None:
        barrier.wait()
        try:
            call()
            outcomes.append("done")
        except (LastOwner, PermissionRefused, WorkspaceLimitReached) as error:
            outcomes.append(type(error).__name__)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(call,)) for call in calls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sorted(outcomes)


def test_two_owners_demoting_each_other_at_once_keep_one_owner():
    ada = UserFactory.create(email="ada@example.com")
    bob = UserFactory.create(email="bob@example.com")
    workspace = shared_workspace(ada, members={bob: "owner"})
    ada_actor = membership_get(user=ada, workspace_id=workspace.pk)
    bob_actor = membership_get(user=bob, workspace_id=workspace.pk)

    outcomes = at_once(
        lambda: member_set_role(actor=ada_actor, user_id=bob.pk, role="editor"),
        lambda: member_set_role(actor=bob_actor, user_id=ada.pk, role="editor"),
    )

    owners = Membership.objects.filter(workspace=workspace, role=WorkspaceRole.OWNER).count()
    assert owners == 1
    # The second reads its own role again under the workspace's lock: an owner no more.
    assert outcomes == ["PermissionRefused", "done"]


def test_two_creations_at_the_last_place_make_one_workspace(settings):
    settings.WORKSPACES_PER_USER = 1
    ada = UserFactory.create(email="ada@example.com")

    outcomes = at_once(
        lambda: workspace_create(user=ada, name="One"),
        lambda: workspace_create(user=ada, name="Two"),
    )

    assert outcomes == ["WorkspaceLimitReached", "done"]
    assert Membership.objects.filter(user=ada, workspace__personal=False).count() == 1

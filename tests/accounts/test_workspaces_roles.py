"""The one permission table (accounts.roles) is the contract's (workspaces.md section 2), and
its check answers 403 `permission_denied` naming the roles that may."""

import pytest

from accounts.errors import PermissionRefused
from accounts.roles import PERMISSIONS, Action, may, permission_check, roles_allowed

# The contract's table, row by row: (always, only when named).
CONTRACT = {
    Action.READ: ({"owner", "admin", "editor", "viewer"}, set()),
    Action.READ_SHARED: ({"owner", "admin", "editor", "viewer", "client"}, set()),
    Action.WRITE: ({"owner", "admin", "editor"}, set()),
    Action.PUBLISH: ({"owner", "admin", "editor"}, set()),
    Action.APPROVE: ({"owner", "admin"}, {"editor", "client"}),
    Action.MANAGE: ({"owner", "admin"}, set()),
    Action.MEMBERS: ({"owner", "admin"}, set()),
    Action.OWN: ({"owner"}, set()),
    Action.MEMBERS_READ: ({"owner", "admin", "editor", "viewer"}, set()),  # our decision
    Action.ACTIVITY: ({"owner", "admin"}, set()),  # section 1: the activity's "(owner, admin)"
    Action.SHARE: ({"owner", "admin"}, set()),  # section 4: share links' "(owner, admin)"
}


def test_the_table_is_the_contract_s():
    assert {
        action: ({str(role) for role in rule.roles}, {str(role) for role in rule.named})
        for action, rule in PERMISSIONS.items()
    } == CONTRACT


@pytest.mark.parametrize("action", list(Action))
@pytest.mark.parametrize("role", ["owner", "admin", "editor", "viewer", "client"])
def test_the_check_follows_the_table(action, role):
    always, named = CONTRACT[action]
    assert may(role=role, action=action) is (role in always)
    assert may(role=role, action=action, named=True) is (role in always | named)
    if role in always:
        permission_check(role=role, action=action)
        return
    with pytest.raises(PermissionRefused) as refused:
        permission_check(role=role, action=action)
    assert refused.value.status_code == 403
    assert refused.value.code == "permission_denied"
    assert refused.value.details == {"requiredRoles": roles_allowed(action, named=True)}


def test_required_roles_are_listed_in_the_roles_order():
    assert roles_allowed(Action.APPROVE) == ["owner", "admin"]
    assert roles_allowed(Action.APPROVE, named=True) == ["owner", "admin", "editor", "client"]

"""Connections: a user's social accounts from connect to disconnect: the consent flow and the
credentials it stores, their upkeep and health, the daily analytics read
through them, the hub's settings and the erasure of it all. Siblings and the API import from
here only."""

from social.connections.services.accounts import (
    ACCOUNT_PREFERENCES,
    account_disconnect,
    accounts_notify,
    accounts_release,
    connect_states_forget,
)
from social.connections.services.analytics import (
    metrics_collect,
    metrics_refresh,
)
from social.connections.services.connect import (
    account_connect,
    connect_authorize,
    consent_decline,
)
from social.connections.services.credentials import (
    account_mark_expired,
    credentials_keep,
    sessions_open,
)
from social.connections.services.erasure import (
    social_erase,
    workspace_erase,
)
from social.connections.services.health import (
    account_health,
    at_risk_notify,
    preflight_run,
)
from social.connections.services.preferences import (
    SettingsInput,
    settings_update,
)
from social.connections.services.upkeep import (
    accounts_maintain,
)

__all__ = [
    "ACCOUNT_PREFERENCES",
    "SettingsInput",
    "account_connect",
    "account_disconnect",
    "account_health",
    "account_mark_expired",
    "accounts_maintain",
    "accounts_notify",
    "accounts_release",
    "at_risk_notify",
    "connect_authorize",
    "connect_states_forget",
    "consent_decline",
    "credentials_keep",
    "metrics_collect",
    "metrics_refresh",
    "preflight_run",
    "sessions_open",
    "settings_update",
    "social_erase",
    "workspace_erase",
]

"""The social hub's fixtures (its provider stand-ins, Ada's connected accounts), for the
operations tests that publish through them."""

from tests.social.conftest import (  # noqa: F401 (fixtures, by their one name everywhere)
    ada_accounts,
    connect_all,
    cron_secret,
    providers,
)

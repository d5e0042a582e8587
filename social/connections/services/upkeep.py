"""The daily upkeep of connected accounts: sessions kept alive where the provider allows it,
warnings before a connection expires, expired connections marked, Mastodon instances' live
limits refreshed, consent states that ran out purged. Safe to run twice: each warning is sent
once (`expiry_warned_days`)."""

import logging
from collections import Counter
from datetime import datetime, timedelta

from django.db.models import Q
from django.utils import timezone

from core import outbound
from social.conf import scheduler_config
from social.connections.services.credentials import Session, account_mark_expired, sessions_open
from social.lifecycle import account_expiring_emit
from social.models import AccountStatus, ConnectState, SocialAccount
from social.networks import NETWORKS
from social.providers.mastodon import MastodonAdapter

logger = logging.getLogger(__name__)

MASTODON = MastodonAdapter.provider  # connected through an app registered on its instance

WARN_DAYS = (7, 1)  # warnings this many days before a connection expires


def accounts_maintain() -> dict[str, int]:
    done: Counter[str] = Counter()
    now = timezone.now()
    soon = now + timedelta(days=WARN_DAYS[0])
    expiring = list(
        SocialAccount.objects.filter(
            Q(credentials_expire_at__lte=soon) | Q(expires_at__lte=soon),
            status=AccountStatus.CONNECTED,
        ).select_related("user", "app")
    )
    # Credentials that can still be renewed are, a week ahead (sessions_open stores renewed
    # credentials, the connection's new end included, on the account objects too); so are
    # those that ran out where a refresh token renews them after their end (X's access tokens
    # last two hours: an account unused since is renewed, not expired).
    before = {account.pk: account.credentials_expire_at for account in expiring}
    # An OAuth refresh token renews an access token even once it ran out (YouTube's last an
    # hour); a connection that renews itself (a Bluesky session) cannot once its end passed.
    sessions = sessions_open(
        [
            a
            for a in expiring
            if (a.credentials_expire_at and a.credentials_expire_at > now) or _refreshable(a)
        ],
        concurrency=scheduler_config().concurrency,
    )
    for account in expiring:
        session = sessions.get(account.pk)
        if session is not None:
            _renewed(account, session, before[account.pk], done)
        if account.status != AccountStatus.CONNECTED:
            continue
        ended = account.expires_at is not None and account.expires_at <= now
        dead = (  # with an OAuth refresh token, its refresh decides (refused: _renewed expired it)
            account.credentials_expire_at is not None
            and account.credentials_expire_at <= now
            and not _refreshable(account)
        )
        if ended or dead:
            if account_mark_expired(account=account, reason="the connection's time ran out"):
                done["expired"] += 1
            continue
        if account.expires_at is None:
            continue  # renews itself: nothing to warn about
        days = next(
            (d for d in reversed(WARN_DAYS) if account.expires_at - now <= timedelta(days=d)), None
        )
        if days is None or (account.expiry_warned_days or 99) <= days:
            continue
        if SocialAccount.objects.filter(
            Q(expiry_warned_days__isnull=True) | Q(expiry_warned_days__gt=days),
            pk=account.pk,
        ).update(expiry_warned_days=days):
            account_expiring_emit(account, days=days)
            done["warned"] += 1
    done["limitsRefreshed"] = _mastodon_limits_refresh()
    done["statesPurged"], _ = ConnectState.objects.filter(
        expires_at__lt=now - timedelta(days=1)
    ).delete()
    return dict(done)


def _refreshable(account: SocialAccount) -> bool:
    """Its credentials' end is an access token's, which its OAuth refresh token renews: a
    network whose tokens do not renew themselves (YouTube's hour), or whose access token's end
    is not the connection's (X's two hours, its refresh token rotating as it is used)."""
    if not account.refresh_token:
        return False
    network = NETWORKS[account.provider]
    return network.renews_after_expiry or not network.renews_itself


def _renewed(
    account: SocialAccount,
    session: Session,
    previous_credentials_end: datetime | None,
    done: Counter[str],
) -> None:
    """Count the account's renewal, or mark it expired when the provider refused it."""
    if isinstance(session.error, outbound.AuthenticationError):
        if account_mark_expired(account=account, reason=session.error.message):
            done["expired"] += 1
        return
    if session.error is not None:
        logger.info(
            "Could not renew %s account %s: %s", account.provider, account.pk, session.error
        )
        return
    if session.credentials.expires_at != previous_credentials_end:
        done["renewed"] += 1


def _mastodon_limits_refresh() -> int:
    """One `GET /api/v2/instance` per instance, written to every account on it."""
    adapter: MastodonAdapter = NETWORKS[MASTODON].adapter  # type: ignore[assignment]
    instances = (
        SocialAccount.objects.filter(provider=MASTODON)
        .exclude(status=AccountStatus.DISCONNECTED)
        .values_list("instance", flat=True)
        .distinct()
    )
    refreshed = 0
    for instance in instances:
        limits = adapter.limits(instance)  # the defaults when the instance does not answer
        refreshed += SocialAccount.objects.filter(provider=MASTODON, instance=instance).update(
            limits=limits, last_sync=timezone.now()
        )
    return refreshed

"""An account's health and the pre-flight check (social.md section 12): before a post is due,
find what would make it fail, while there is still time to reconnect.

A check is one cheap identity call at the platform (the adapter's `identity`, after a session
refresh where the platform has sessions), its answer categorized like an attempt's
(social.outcomes), plus what we know without asking: the connection's end, the daily cap's use.
Its report is kept on the account's `AccountHealth` row for HEALTH_SECONDS: `GET
/api/social/accounts/{id}/health` answers it from there, and asks again once it is older. A
token the platform refuses marks the account `expired`, as a failed attempt does.

The pre-flight (beat, every PREFLIGHT_INTERVAL_SECONDS) checks each account that has records
due in the next 24 hours, once per PREFLIGHT_EVERY (6 hours), a batch at a time, the calls
side by side. A problem that would stop those records (the token refused or expired, a
permission missing, the account disconnected, the connection ending before they are due, the
daily cap leaving some for tomorrow) emits `post.at_risk` naming the records, once per
problem: the announced problems are kept on the row, and one gone is forgotten, so it is
announced again if it comes back. A reconnect deletes the row (lifecycle.py).
"""

import logging
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID

from django.db import transaction
from django.utils import timezone

from core import outbound
from core.concurrency import bounded_map
from core.times import iso
from notifications import events
from notifications.models import NotificationType
from notifications.services.center import NotificationDraft, notify_many
from social.conf import scheduler_config
from social.connections.services.credentials import (
    account_mark_expired,
    credentials_keep,
    sessions_open,
)
from social.errors import AccountNotFound
from social.models import AccountHealth, AccountStatus, RecordStatus, ScheduledRecord, SocialAccount
from social.networks import NETWORKS
from social.outcomes import RULES, attempt_error, rule_for
from social.planning import cap_use
from social.selectors import preferences_of, workspace_live

logger = logging.getLogger(__name__)

HEALTH_SECONDS = 300  # a check is answered from its row this long
PREFLIGHT_EVERY = timedelta(hours=6)  # an account is checked by the pre-flight this often
PREFLIGHT_AHEAD = timedelta(hours=24)  # records due this soon make their account checked
PREFLIGHT_BATCH = 200  # accounts one pre-flight run checks (the next run takes the rest)
EXPIRING_WITHIN = timedelta(days=7)  # a connection ending this soon is a problem (upkeep warns)
# Problems that stop a due record: announced by the pre-flight (with the permission problems
# of a network's own, such as a LinkedIn page's `not_page_admin`).
BLOCKING = frozenset(
    {
        "account_expired",
        "permission_missing",
        "account_disconnected",
        "token_expiring",
        "daily_cap_reached",
    }
) | {rule.problem for rule in RULES if rule.problem and rule.category == "permission_missing"}


@dataclass(slots=True)
class Probe:
    """One account's answer to the identity call (the calling thread writes what follows)."""

    account: SocialAccount
    error: outbound.OutboundError | None = None
    asked: bool = False
    cap: tuple[int, int] | None = None  # (quota, used) as the platform counts them, if it does


def _problem(code: str, message: str, remedy: str) -> dict[str, str]:
    return {"code": code, "message": message, "remedy": remedy}


def _probe_all(accounts: list[SocialAccount]) -> list[Probe]:
    """The identity call of each connected account, side by side, no database in the calls;
    credentials the platform renewed meanwhile are stored."""
    probes = [Probe(account) for account in accounts]
    live = [probe for probe in probes if probe.account.status == AccountStatus.CONNECTED]
    if not live:
        return probes
    concurrency = scheduler_config().concurrency
    sessions = sessions_open([probe.account for probe in live], concurrency=concurrency)

    def ask(probe: Probe) -> outbound.OutboundError | None:
        session = sessions[probe.account.pk]
        if session.error is not None:
            return session.error
        adapter = NETWORKS[probe.account.provider].adapter
        try:
            adapter.identity(session.credentials)
            probe.cap = adapter.daily_cap(session.credentials)
        except outbound.OutboundError as error:
            return error
        except Exception as error:  # an answer we did not expect: this account only
            logger.exception(
                "Checking %s account %s failed", probe.account.provider, probe.account.pk
            )
            return outbound.TransientError(f"Unexpected error ({type(error).__name__}).")
        return None

    for probe, error in zip(live, bounded_map(ask, live, limit=concurrency), strict=True):
        probe.error, probe.asked = error, True
        credentials_keep(probe.account, sessions[probe.account.pk].credentials)
    return probes


def _report(probe: Probe, now: datetime) -> dict[str, Any]:
    """The health report of a probed account (marks it expired when the token was refused)."""
    account = probe.account
    name = NETWORKS[account.provider].name
    problems: list[dict[str, str]] = []
    scopes_missing: list[str] = []
    reachable: bool | None = None
    error = probe.error
    if probe.asked:
        reachable = error is None or not isinstance(error, outbound.TransientError)
    if error is not None:
        category = attempt_error(account.provider, error)["category"]
        if category == "auth_expired" and isinstance(error, outbound.AuthenticationError):
            account_mark_expired(account=account, reason=error.message)  # as an attempt does
        elif category == "auth_expired":
            problems.append(
                _problem(
                    "account_expired",
                    f"{name} refused the account's credentials: {error.message}",
                    f"Reconnect your {name} account.",
                )
            )
        elif category == "permission_missing":
            rule = rule_for(account.provider, error)
            if rule is not None and rule.problem:  # a problem of its own (a page's role lost)
                problems.append(_problem(rule.problem, error.message, rule.remedy))
            else:
                said = f"{error.message} {error.excerpt}"
                named = [scope for scope in NETWORKS[account.provider].scopes if scope in said]
                scopes_missing = named or list(NETWORKS[account.provider].scopes)
                problems.append(
                    _problem(
                        "permission_missing",
                        f"{name} refused a permission this app needs: {error.message}",
                        f"Reconnect {name} and grant every permission it asks for.",
                    )
                )
        elif isinstance(error, outbound.TransientError):
            problems.append(
                _problem(
                    "platform_unreachable",
                    f"{name} did not answer: {error.message}",
                    "Nothing to do now: posts due meanwhile are retried.",
                )
            )
        else:
            problems.append(
                _problem(
                    "account_unavailable",
                    f"{name} refused to describe the account: {error.message}",
                    f"Check the account on {name}, then reconnect it.",
                )
            )
    if account.status == AccountStatus.EXPIRED:
        problems.insert(
            0,
            _problem(
                "account_expired",
                f"{name} no longer accepts the connection of {account.username or name}.",
                f"Reconnect your {name} account.",
            ),
        )
    elif account.status == AccountStatus.DISCONNECTED:
        problems.insert(
            0,
            _problem(
                "account_disconnected",
                f"{account.username or name} was disconnected.",
                f"Connect your {name} account again.",
            ),
        )
    elif account.expires_at is not None and account.expires_at - now <= EXPIRING_WITHIN:
        problems.append(
            _problem(
                "token_expiring",
                f"The connection to {account.username or name} ends at {iso(account.expires_at)}.",
                f"Reconnect your {name} account before then.",
            )
        )
    use = cap_use(account, now=now)
    if use is not None and probe.cap is not None:  # the platform's own count rules
        use = replace(use, limit=probe.cap[0], used=probe.cap[1])
    if use is not None and use.used >= use.limit:
        problems.append(
            _problem(
                "daily_cap_reached",
                f"{name} takes {use.limit} posts a day from an app; {use.used} in the last 24 "
                "hours.",
                "Nothing to do: posts due meanwhile wait for the next window.",
            )
        )
    platform = NETWORKS[account.provider]
    return {
        "status": account.status,
        "checkedAt": iso(now),
        "tokenExpiresAt": iso(account.credentials_expire_at or account.expires_at),
        "renewable": platform.renews_itself
        or bool(account.refresh_token)
        or account.credentials_expire_at is None,
        "scopesMissing": scopes_missing,
        "reachable": reachable,
        "dailyCap": None
        if use is None
        else {"limit": use.limit, "used": use.used, "resetsAt": iso(use.resets_at)},
        "problems": problems,
    }


def _keep(account: SocialAccount, report: dict[str, Any], now: datetime, **more: Any) -> None:
    AccountHealth.objects.update_or_create(
        account=account, defaults={"checked_at": now, "report": report, **more}
    )


def account_health(*, workspace_id: UUID, account_id: UUID) -> dict[str, Any]:
    """The workspace's account's health: the last report while younger than HEALTH_SECONDS,
    else one fresh check. Another workspace's account: 404."""
    account = (
        SocialAccount.objects.select_related("app", "user")
        .filter(pk=account_id, workspace_id=workspace_id)
        .first()
    )
    if account is None:
        raise AccountNotFound()
    now = timezone.now()
    kept = AccountHealth.objects.filter(account=account).first()
    if (
        kept is not None
        and kept.checked_at is not None
        and (now - kept.checked_at).total_seconds() < HEALTH_SECONDS
        and kept.report
    ):
        return dict(kept.report)
    (probe,) = _probe_all([account])
    report = _report(probe, now)
    _keep(account, report, now)
    return report


# --- The pre-flight -----------------------------------------------------------------------------


def _due_soon(now: datetime) -> dict[UUID, list[ScheduledRecord]]:
    """Waiting records due in the next PREFLIGHT_AHEAD, by account."""
    found: dict[UUID, list[ScheduledRecord]] = {}
    for record in (
        ScheduledRecord.objects.filter(
            workspace_live(), status=RecordStatus.SCHEDULED, due_at__lte=now + PREFLIGHT_AHEAD
        )
        .only("id", "account_id", "post_id", "scheduled_time", "due_at")
        .order_by("due_at", "id")
    ):
        found.setdefault(record.account_id, []).append(record)
    return found


def preflight_run(*, now: datetime | None = None) -> dict[str, int]:
    """Check the accounts with records due soon (each once per PREFLIGHT_EVERY) and announce
    each new problem once (`post.at_risk`); what it did."""
    now = now or timezone.now()
    due = _due_soon(now)
    recent = set(
        AccountHealth.objects.filter(
            account_id__in=list(due), preflight_at__gt=now - PREFLIGHT_EVERY
        ).values_list("account_id", flat=True)
    )
    accounts = list(
        SocialAccount.objects.select_related("app", "user")
        .filter(pk__in=[pk for pk in due if pk not in recent])
        .order_by("pk")[:PREFLIGHT_BATCH]
    )
    done = {"checked": 0, "announced": 0}
    preferences = preferences_of(account.user_id for account in accounts)
    for probe in _probe_all(accounts):
        account = probe.account
        report = _report(probe, now)
        records = due[account.pk]
        problems = _blocking(account, report, records)
        with transaction.atomic():
            row, _ = AccountHealth.objects.select_for_update().get_or_create(account=account)
            announced = {
                code: at
                for code, at in row.announced.items()
                if code in {p["code"] for p in problems}
            }
            new = [problem for problem in problems if problem["code"] not in announced]
            if new:
                events.emit(
                    user=account.user_id,
                    workspace=account.workspace_id,
                    actor=events.SYSTEM,  # the pre-flight check found it
                    payload=events.post_at_risk(
                        account_id=str(account.pk),
                        platform=account.provider,
                        problems=new,
                        records=[
                            {
                                "recordId": str(r.pk),
                                "postId": str(r.post_id),
                                "scheduledAt": iso(r.scheduled_time),
                            }
                            for r in records
                        ],
                        context={"notify": preferences[account.user_id].wants("postFailed")},
                    ),
                )
                announced.update({problem["code"]: iso(now) for problem in new})
                done["announced"] += 1
            row.checked_at, row.report, row.preflight_at = now, report, now
            row.announced = announced
            row.save()
        done["checked"] += 1
    return done


def _blocking(
    account: SocialAccount, report: dict[str, Any], records: list[ScheduledRecord]
) -> list[dict[str, str]]:
    """The report's problems that stop these records: a connection ending before the last of
    them is due, a cap that leaves some of them for tomorrow, the others as they are."""
    problems = []
    for problem in report["problems"]:
        code = problem["code"]
        if code not in BLOCKING:
            continue
        if code == "token_expiring" and not (
            account.expires_at is not None and any(r.due_at >= account.expires_at for r in records)
        ):
            continue
        if code == "daily_cap_reached":
            continue  # judged below, with the records
        problems.append(problem)
    cap = report["dailyCap"]
    if cap is not None and cap["used"] + len(records) > cap["limit"]:
        name = NETWORKS[account.provider].name
        waiting = cap["used"] + len(records) - cap["limit"]
        problems.append(
            _problem(
                "daily_cap_reached",
                f"{name} takes {cap['limit']} posts a day from an app: {waiting} of the posts due "
                "in the next 24 hours will wait for the next window.",
                "Nothing to do: they publish as soon as the window allows; move them to spread "
                "them out.",
            )
        )
    return problems


def at_risk_notify(emitted: list[events.Event]) -> None:
    """The event channel's subscriber for `post.at_risk`: a notification naming the problem
    and how many posts it threatens, as the user's preferences say (`postFailed`)."""
    drafts = []
    for event in emitted:
        user_id, payload = event.user_id, event.payload
        if not payload.context.get("notify", True):
            continue
        data = payload.data
        name = NETWORKS[data["platform"]].name
        count = len(data["records"])
        posts = "1 scheduled post" if count == 1 else f"{count} scheduled posts"
        problem = data["problems"][0]
        drafts.append(
            NotificationDraft(
                user_id=user_id,
                type=NotificationType.POST_AT_RISK,
                title=f"{posts.capitalize()} on {name} at risk",
                message=f"{problem['message']} {problem['remedy']}",
                metadata={
                    "accountId": data["accountId"],
                    "platform": data["platform"],
                    "problems": [p["code"] for p in data["problems"]],
                    "recordIds": [r["recordId"] for r in data["records"]],
                },
            )
        )
    notify_many(drafts=drafts)

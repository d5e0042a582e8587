"""The lease engine: work kept in table rows, taken by one worker at a time, never lost.

A leased row waits (its `waiting` status, due at `next_attempt_at` or another due field); a
worker claims it with one conditional UPDATE that stamps the row with the claim's token and a
lease (`lease_expires_at`), and moves it to the `leased` status where the kind has one
(webhook deliveries keep theirs: the lease alone marks them). Concurrent claimers cannot both
win: each gets the rows carrying its own token (candidates are read with FOR UPDATE SKIP
LOCKED on PostgreSQL, so concurrent runs take disjoint rows instead of waiting; on SQLite the
conditional UPDATE is the claim, one writer at a time). The worker does its work outside any
transaction, then settles each row with an UPDATE fenced by its token: a result arriving after
the lease was reaped and the row claimed again is not written. A row whose worker died is
found by its expired lease and reaped (handed back, or failed, as its kind decides).

Four kinds run on it: AI generations (aitools), outbox consumptions and webhook deliveries
(notifications), scheduled records (social). Each declares its `Lease` next to its model, with
its lease length and its `Backoff`.
"""

import math
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Generic, TypeVar

from django.db import connection, models, transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from core.bulk import allow_any, update_rows


class Leased(models.Model):
    """The columns of a row the lease engine works on; a kind may redeclare one (a default)."""

    attempts = models.PositiveSmallIntegerField(default=0)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    # The token of the claim that holds the row: a result is written only under it.
    claim = models.UUIDField(null=True, blank=True, editable=False)

    class Meta:
        abstract = True


M = TypeVar("M", bound=Leased)


@dataclass(frozen=True, slots=True)
class Backoff:
    """The wait before the next attempt after `attempts` failed ones: doubling from `base`
    up to `cap`, or the fixed `schedule` (its n-th entry after the n-th failure; past its end
    there is no next attempt). A provider's Retry-After is a floor, never shortened."""

    base: float | Callable[[], float] = 30.0
    cap: float = math.inf
    schedule: Callable[[], Iterable[float]] | None = None

    def delay(self, attempts: int, *, at_least: float = 0.0) -> timedelta:
        if self.schedule is not None:
            seconds = list(self.schedule())[attempts - 1]
        else:
            base = self.base() if callable(self.base) else self.base
            seconds = min(base * 2 ** (attempts - 1), self.cap)
        return timedelta(seconds=max(seconds, at_least))

    def allows(self, attempts: int) -> bool:
        """Whether a schedule has an attempt after `attempts` failed ones."""
        return self.schedule is None or attempts <= len(list(self.schedule()))


@dataclass(frozen=True, slots=True)
class Lease(Generic[M]):
    """How one kind of row is claimed, held and reaped."""

    model: type[M]
    seconds: Callable[[], float]  # the lease's length, read when claiming (a setting)
    waiting: str  # the status of a row that waits for its (next) attempt
    leased: str | None = None  # the status while claimed; None: the status does not change
    backoff: Backoff = field(default_factory=Backoff)

    def __post_init__(self) -> None:
        allow_any(self.model, "pk")  # claims and held rows read a batch by its keys

    def free(self, now: datetime) -> Q:
        """Rows that may be claimed now (whatever their due time: the caller's filter)."""
        free = Q(status=self.waiting)
        if self.leased is None:
            free &= Q(lease_expires_at__isnull=True) | Q(lease_expires_at__lt=now)
        return free

    def claim(
        self,
        rows: QuerySet[M],
        *,
        now: datetime,
        limit: int | None = None,
        order_by: tuple[str, ...] = (),
        **changes: Any,
    ) -> uuid.UUID | None:
        """Claim those of `rows` that are free, the first `limit` of them in `order_by` order
        when a limit is given; the claim's token, or None when nothing was won. `changes` are
        written with the claim. Call it inside a transaction to do more in the same one."""
        token, _ = self.claim_some(rows, now=now, limit=limit, order_by=order_by, **changes)
        return token

    def claim_some(
        self,
        rows: QuerySet[M],
        *,
        now: datetime,
        limit: int | None = None,
        order_by: tuple[str, ...] = (),
        **changes: Any,
    ) -> tuple[uuid.UUID | None, list[Any]]:
        """`claim`, and the primary keys of the rows it may have won when a limit is given
        (a superset on a database without row locks: `held(token, pks)` reads the won ones by
        their keys, not by the token, which no index covers); [] without a limit."""
        token = uuid.uuid4()
        values: dict[str, Any] = {
            "claim": token,
            "lease_expires_at": now + timedelta(seconds=self.seconds()),
            **changes,
        }
        if self.leased is not None:
            values["status"] = self.leased
        free = rows.filter(self.free(now))
        if limit is None:
            return (token if free.update(**values) else None), []
        # One transaction, the caller's when it has one (no savepoint: a claim fails whole).
        with transaction.atomic(savepoint=False):
            candidates = free.order_by(*order_by)
            if connection.features.has_select_for_update_skip_locked:
                # Only this table's rows: a join in `rows` (to users, say) locks nothing more.
                candidates = candidates.select_for_update(skip_locked=True, of=("self",))
            ids = list(candidates.values_list("pk", flat=True)[:limit])
            if not ids:
                return None, []
            won = self.model._default_manager.filter(pk__any=ids).filter(self.free(now))
            return (token, ids) if won.update(**values) else (None, [])

    def held(self, token: uuid.UUID | None, pks: list[Any] | None = None) -> QuerySet[M]:
        """The rows a claim holds (none for no claim); among `pks` when given (claim_some's:
        read by the primary key)."""
        if token is None:
            return self.model._default_manager.none()
        held = self.model._default_manager.filter(claim=token)
        return held if pks is None else held.filter(pk__any=pks)

    def expired(self, now: datetime) -> QuerySet[M]:
        """Claimed rows whose lease ran out: their worker died or hangs."""
        rows = self.model._default_manager.filter(lease_expires_at__lt=now)
        return rows.filter(status=self.leased) if self.leased is not None else rows

    def reap(self, now: datetime, **changes: Any) -> int:
        """Hand every expired row back to `waiting`, due now; the number handed back."""
        return self.expired(now).update(
            status=self.waiting, lease_expires_at=None, claim=None, **changes
        )

    def renew(self, row: M, *, seconds: float, **changes: Any) -> bool:
        """Keep a claimed row for `seconds` more (its work goes on elsewhere: a platform
        processing a video), writing `changes`, only if its claim still holds it."""
        rows = self.model._default_manager.filter(pk=row.pk, claim=row.claim)
        if self.leased is not None:
            rows = rows.filter(status=self.leased)
        expires = timezone.now() + timedelta(seconds=seconds)
        return bool(rows.update(lease_expires_at=expires, **changes))

    def settle(self, row: M, **changes: Any) -> bool:
        """Write a claimed row's result and release it, only if its claim still holds it."""
        return bool(
            self.model._default_manager.filter(pk=row.pk, claim=row.claim).update(
                lease_expires_at=None, claim=None, **changes
            )
        )

    def settle_each(self, results: Sequence[tuple[M, dict[str, Any]]]) -> set[Any]:
        """Write each claimed row's own result and release it, each only if its claim still
        holds it; the primary keys of the rows written. On PostgreSQL one statement for them
        all (core.bulk.update_rows: joined on the key and the claim); elsewhere a `settle`
        each. A field one result changes and another does not is written from the other row's
        value in memory: a claimed row is changed by its claimer only."""
        if not results:
            return set()
        if connection.vendor != "postgresql":
            return {row.pk for row, changes in results if self.settle(row, **changes)}
        meta = self.model._meta
        key = meta.pk.name
        names = sorted(set().union(*(changes.keys() for _, changes in results)))
        attnames = {field.name: field.attname for field in meta.concrete_fields}
        rows = [
            {
                key: row.pk,
                "claim": row.claim,
                **{
                    name: changes[name] if name in changes else getattr(row, attnames[name])
                    for name in names
                },
            }
            for row, changes in results
        ]
        return set(
            update_rows(self.model, rows, match=(key, "claim"), nulls=("lease_expires_at", "claim"))
        )

    def settle_many(self, rows: Iterable[M], **changes: Any) -> int:
        """The same for rows that end alike (each under its own claim)."""
        by_claim: dict[Any, list[Any]] = {}
        for row in rows:
            by_claim.setdefault(row.claim, []).append(row.pk)
        return sum(
            self.model._default_manager.filter(pk__in=pks, claim=claim).update(
                lease_expires_at=None, claim=None, **changes
            )
            for claim, pks in by_claim.items()
        )

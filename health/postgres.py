"""A PostgreSQL probe with a hard deadline: libpq's non-blocking API on the calling thread.

libpq will not give up on a connect in under 2 s and a query on a frozen server blocks for
as long as TCP lets it. Driving libpq through its non-blocking calls and `poll()` bounds the
whole probe (connect and SELECT 1) by one deadline, with no helper thread to wake.
"""

import select
import threading
import time
from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg import pq
from psycopg.conninfo import make_conninfo
from psycopg.pq.abc import PGconn

# Keys of Django's OPTIONS that configure the Django backend, not libpq.
_NOT_LIBPQ = {"pool", "server_side_binding", "isolation_level", "assume_role", "context"}
_local = threading.local()


class ProbeTimeout(Exception):
    pass


def _conninfo(settings_dict: dict[str, Any]) -> str:
    params: dict[str, Any] = {
        "dbname": settings_dict.get("NAME") or "postgres",
        "user": settings_dict.get("USER") or None,
        "password": settings_dict.get("PASSWORD") or None,
        "host": settings_dict.get("HOST") or None,
        "port": settings_dict.get("PORT") or None,
        "application_name": "health-probe",
    }
    for key, value in (settings_dict.get("OPTIONS") or {}).items():
        if key not in _NOT_LIBPQ and isinstance(value, str | int):
            params[key] = value
    return make_conninfo(**{k: v for k, v in params.items() if v is not None})


def _wait(fileno: int, *, write: bool, deadline: float) -> None:
    poller = select.poll()
    poller.register(fileno, select.POLLOUT if write else select.POLLIN)
    remaining_ms = (deadline - time.monotonic()) * 1000
    if remaining_ms <= 0 or not poller.poll(remaining_ms):
        raise ProbeTimeout


def _connect(conninfo: str, deadline: float) -> PGconn:
    pgconn = pq.PGconn.connect_start(conninfo.encode())
    try:
        while True:
            if pgconn.status == pq.ConnStatus.BAD:
                raise psycopg.OperationalError(pgconn.get_error_message())
            state = pgconn.connect_poll()
            if state == pq.PollingStatus.OK:
                break
            if state == pq.PollingStatus.FAILED:
                raise psycopg.OperationalError(pgconn.get_error_message())
            # The socket can change between polls (another host, an SSL retry).
            _wait(pgconn.socket, write=state == pq.PollingStatus.WRITING, deadline=deadline)
        pgconn.nonblocking = 1
    except BaseException:
        pgconn.finish()
        raise
    return pgconn


def _send(pgconn: PGconn, deadline: float) -> None:
    pgconn.send_query(b"SELECT 1")
    while pgconn.flush():
        _wait(pgconn.socket, write=True, deadline=deadline)


def _receive(pgconn: PGconn, deadline: float) -> None:
    while True:
        pgconn.consume_input()
        if not pgconn.is_busy():
            break
        _wait(pgconn.socket, write=False, deadline=deadline)
    result = pgconn.get_result()
    while pgconn.get_result() is not None:  # drain, so the connection can be reused
        pass
    if result is None or result.status != pq.ExecStatus.TUPLES_OK:
        raise psycopg.OperationalError(pgconn.get_error_message())


def _kept(conninfo: str) -> PGconn | None:
    pgconn: PGconn | None = getattr(_local, "pgconn", None)
    if pgconn is not None and getattr(_local, "conninfo", None) == conninfo:
        return pgconn
    close()
    return None


def _open(conninfo: str, deadline: float) -> PGconn:
    pgconn = _connect(conninfo, deadline)
    _local.pgconn, _local.conninfo = pgconn, conninfo
    return pgconn


@dataclass
class Query:
    """A SELECT 1 on its way: the caller does other work before `finish()` reads the answer."""

    conninfo: str
    deadline: float
    reused: bool
    error: BaseException | None = None


def start(settings_dict: dict[str, Any], *, deadline: float) -> Query:
    """Send SELECT 1 on this thread's kept probe connection (connecting first if needed)."""
    conninfo = _conninfo(settings_dict)
    kept = _kept(conninfo)
    query = Query(conninfo=conninfo, deadline=deadline, reused=kept is not None)
    try:
        _send(kept or _open(conninfo, deadline), deadline)
    except BaseException as exc:
        query.error = exc
    return query


def finish(query: Query) -> None:
    """Read the answer; raises the failure, or ProbeTimeout past the deadline.

    A kept connection that went bad since the last probe (a server restart) is replaced
    once, fresh, within the same deadline.
    """
    try:
        try:
            if query.error is not None:
                raise query.error
            _receive(_local.pgconn, query.deadline)
        except psycopg.OperationalError:
            if not query.reused:
                raise
            close()
            pgconn = _open(query.conninfo, query.deadline)
            _send(pgconn, query.deadline)
            _receive(pgconn, query.deadline)
    except BaseException:
        close()
        raise


def close() -> None:
    pgconn: PGconn | None = getattr(_local, "pgconn", None)
    if pgconn is not None:
        pgconn.finish()
    _local.pgconn = None

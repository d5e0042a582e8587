"""The smoke stage's checks through HTTP (standard library only).

`smoke_check.py BASE_URL signup EMAIL`: health reports every dependency connected, and a new
user signs up. `smoke_check.py BASE_URL ai EMAIL`: that user signs in and an AI call queued
with `Prefer: respond-async` is picked up by the worker through the broker and completed
(production grants starting credits only to verified addresses, so scripts/smoke.sh grants
some with the operators' command in between).
"""

import json
import sys
import time
import urllib.error
import urllib.request
from email.message import Message
from typing import Any

READY_SECONDS = 60
TASK_SECONDS = 60


def call(
    base: str, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
) -> tuple[int, Message, Any]:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(base + path, data=data, method=method)  # noqa: S310
    request.add_header("Content-Type", "application/json")
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:  # noqa: S310
            return response.status, response.headers, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, error.headers, json.loads(error.read() or b"null")


def wait_until_up(base: str) -> None:
    deadline = time.monotonic() + READY_SECONDS
    while True:
        try:
            if call(base, "GET", "/api/v1/health")[0] == 200:
                return
        except OSError:
            pass
        if time.monotonic() > deadline:
            sys.exit(f"smoke: the server did not answer within {READY_SECONDS} s")
        time.sleep(0.5)


def check(condition: bool, what: str, detail: Any = "") -> None:
    print(f"smoke: {'ok  ' if condition else 'FAIL'} {what}")
    if not condition:
        sys.exit(f"smoke: {what} failed: {detail}")


PASSWORD = "Sm0ke-test-passphrase"  # noqa: S105 (a throwaway account of the smoke run)


def signup(base: str, email: str) -> None:
    wait_until_up(base)
    status, _, health = call(base, "GET", "/api/health")
    check(
        status == 200
        and health["services"]["database"] == "connected"
        and health["services"]["cache"] == "connected",
        "GET /api/health: database and cache connected",
        health,
    )
    status, _, login = call(base, "POST", "/api/auth/login", {"email": email, "password": PASSWORD})
    check(status == 200 and login["data"]["token"], "POST /api/auth/login creates a user", login)


def ai(base: str, email: str) -> None:
    status, _, login = call(base, "POST", "/api/auth/login", {"email": email, "password": PASSWORD})
    check(status == 200, "POST /api/auth/login signs the user in", login)
    auth = {"Authorization": f"Bearer {login['data']['token']}"}
    status, headers, queued = call(
        base,
        "POST",
        "/api/proposal/generate",
        {"jobDescription": "Build a small REST API for a bakery's online orders, in Django."},
        {**auth, "Prefer": "respond-async"},
    )
    check(status == 202, "POST /api/proposal/generate (respond-async) is queued", queued)
    location = headers.get("Location", "")
    deadline = time.monotonic() + TASK_SECONDS
    entry: Any = None
    while time.monotonic() < deadline:
        status, _, entry = call(base, "GET", location, headers=auth)
        if status == 200 and entry["data"]["status"] in ("succeeded", "failed"):
            break
        time.sleep(0.5)
    check(
        entry is not None and entry["data"]["status"] == "succeeded",
        "the worker completed the queued generation (Celery round trip)",
        entry,
    )


if __name__ == "__main__":
    base_url, step, address = sys.argv[1].rstrip("/"), sys.argv[2], sys.argv[3]
    {"signup": signup, "ai": ai}[step](base_url, address)

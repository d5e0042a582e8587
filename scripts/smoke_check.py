"""The smoke stage's checks through HTTP (standard library only): python smoke_check.py BASE_URL.

Health reports every dependency connected; a new user signs in; an AI call queued with
`Prefer: respond-async` is picked up by the worker through the broker and completed.
"""

import json
import sys
import time
import urllib.error
import urllib.request
import uuid
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


def main(base: str) -> None:
    wait_until_up(base)
    status, _, health = call(base, "GET", "/api/health")
    check(
        status == 200
        and health["services"]["database"] == "connected"
        and health["services"]["cache"] == "connected",
        "GET /api/health: database and cache connected",
        health,
    )

    email = f"smoke-{uuid.uuid4().hex[:12]}@example.com"
    status, _, login = call(
        base, "POST", "/api/auth/login", {"email": email, "password": "Sm0ke-test-passphrase"}
    )
    check(status == 200 and login["data"]["token"], "POST /api/auth/login creates a user", login)
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
        if status == 200 and entry["data"]["status"] != "pending":
            break
        time.sleep(0.5)
    check(
        entry is not None and entry["data"]["status"] == "succeeded",
        "the worker completed the queued generation (Celery round trip)",
        entry,
    )


if __name__ == "__main__":
    main(sys.argv[1].rstrip("/"))

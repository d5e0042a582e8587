"""`make sandbox` (scripts/sandbox.py): the stand-ins on fixed ports and the server pointed at
them, walked through as the README's quick start tells a web-client developer to."""

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
import requests

from social.networks import NETWORKS
from tests.servers import ROOT, free_port, migrate
from tests.social.standins import BLUESKY_APP_PASSWORD, BLUESKY_HANDLE

# Fixed ports, as the sandbox's are; another run (or another checkout) may pick others.
BASE_PORT = int(os.environ.get("SANDBOX_TEST_PORT") or 18900)
REDIRECT_URI = "http://localhost:3000/callback"


def sandbox_env(port: int, tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    env.update(
        VENV=str(Path(sys.executable).parent.parent),
        HOST="127.0.0.1",
        PORT=str(port),
        SANDBOX_PORT=str(BASE_PORT),
        DJANGO_SETTINGS_MODULE="config.settings.local",
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
        CELERY_DATA_DIR=str(tmp_path / "celery"),
    )
    return env


def refused(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) != 0


@pytest.mark.server
def test_sandbox_connects_an_oauth_and_a_credentials_network_and_publishes(tmp_path):
    port = free_port()
    env = sandbox_env(port, tmp_path)
    migrate(env)
    log_path = tmp_path / "sandbox.log"
    log = log_path.open("w")
    process = subprocess.Popen(
        [sys.executable, "scripts/sandbox.py"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}/api"
    linkedin, bluesky = f"http://127.0.0.1:{BASE_PORT}", f"http://127.0.0.1:{BASE_PORT + 2}"
    try:
        deadline = time.monotonic() + 90
        while "Sandbox: the networks' stand-ins" not in log_path.read_text():
            assert process.poll() is None, log_path.read_text()
            assert time.monotonic() < deadline, log_path.read_text()
            time.sleep(0.3)
        printed = log_path.read_text()
        for provider in NETWORKS:
            assert f" {provider} " in printed
        assert f'identifier "{BLUESKY_HANDLE}"' in printed
        assert f'(app password) "{BLUESKY_APP_PASSWORD}"' in printed

        login = requests.post(
            f"{base}/auth/login",
            timeout=30,
            json={"email": "dev@example.com", "password": "Correct-horse-7"},
        )
        assert login.status_code == 200, login.text
        auth = {"Authorization": f"Bearer {login.json()['data']['token']}"}

        # OAuth: the consent page the API names approves by itself, back to our redirect URI.
        named = requests.get(
            f"{base}/social/connect/linkedin/authorize",
            headers=auth,
            params={"redirectUri": REDIRECT_URI},
            timeout=30,
        )
        assert named.status_code == 200, named.text
        consent = requests.get(named.json()["data"]["url"], allow_redirects=False, timeout=10)
        assert consent.status_code == 302
        back = urlsplit(consent.headers["Location"])
        assert f"{back.scheme}://{back.netloc}{back.path}" == REDIRECT_URI
        query = {name: values[0] for name, values in parse_qs(back.query).items()}
        connected = requests.post(
            f"{base}/social/connect",
            headers=auth,
            timeout=30,
            json={
                "provider": "linkedin",
                "code": query["code"],
                "state": query["state"],
                "redirectUri": REDIRECT_URI,
            },
        )
        assert connected.status_code == 200, connected.text
        accounts = [connected.json()["data"]["id"]]

        # Credentials: the app password the table names.
        connected = requests.post(
            f"{base}/social/connect",
            headers=auth,
            timeout=30,
            json={
                "provider": "bluesky",
                "identifier": BLUESKY_HANDLE,
                "code": BLUESKY_APP_PASSWORD,
            },
        )
        assert connected.status_code == 200, connected.text
        accounts.append(connected.json()["data"]["id"])

        published = requests.post(
            f"{base}/social/publish",
            headers=auth,
            timeout=60,
            json={"content": "Hello from the sandbox", "accountIds": accounts},
        )
        assert published.status_code == 200, published.text
        assert all(entry["success"] for entry in published.json()["data"]), published.text

        posts = requests.get(f"{linkedin}/_standin/received", timeout=10).json()
        assert [c["body"]["commentary"] for c in posts if c["path"] == "/rest/posts"] == [
            "Hello from the sandbox"
        ]
        records = requests.get(f"{bluesky}/_standin/received", timeout=10).json()
        assert [
            c["body"]["record"]["text"]
            for c in records
            if c["path"] == "/xrpc/com.atproto.repo.createRecord"
        ] == ["Hello from the sandbox"]
        assert "[linkedin] POST /rest/posts -> 201" in log_path.read_text()

        # SIGTERM to the sandbox alone stops the server, workers, beat and the stand-ins.
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=60) == 0, log_path.read_text()
        assert [refused(port), refused(BASE_PORT), refused(BASE_PORT + 7)] == [True] * 3
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=30)
        log.close()

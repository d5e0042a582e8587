"""`python manage.py run_scheduler --loop` (social.md section 5): a process of its own that
publishes a record at its time through its timer, not at its next periodic run, and stops
cleanly on SIGTERM."""

import signal
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta

import pytest

from tests.servers import ROOT, migrate, server_env
from tests.social.standins import DevtoStandIn, serve

pytestmark = pytest.mark.server

SETUP = """
from datetime import datetime
import django
django.setup()
from accounts.services.users import user_create
from social.models import Post, ScheduledRecord, SocialAccount
from tests.social.standins import DEVTO_KEY
user = user_create(email="ada@example.com")
account = SocialAccount.objects.create(user=user, workspace=user.personal_workspace,
                                       provider="devto", provider_user_id="1", username="ada",
                                       access_token=DEVTO_KEY)
post = Post.objects.create(user=user, workspace=account.workspace, title="Loop",
                           content="Published by the loop", status="Scheduled")
when = datetime.fromisoformat({when!r})
ScheduledRecord.objects.create(post=post, user=user, workspace=account.workspace, account=account,
                               provider="devto", scheduled_time=when, due_at=when)
"""


def test_the_loop_publishes_at_the_records_time_and_stops_on_sigterm(tmp_path):
    with serve(DevtoStandIn()) as devto:
        env = server_env(
            DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
            DEVTO_API_URL=f"{devto.url}/api",
            SCHEDULER_INTERVAL_SECONDS="3600",  # the periodic run never gets there first
        )
        migrate(env)
        when = datetime.now(UTC).replace(microsecond=0) + timedelta(seconds=6)
        subprocess.run([sys.executable, "-c", SETUP.format(when=when.isoformat())], cwd=ROOT,
                       env=env, check=True, timeout=60)  # fmt: skip
        loop = subprocess.Popen(
            [sys.executable, "manage.py", "run_scheduler", "--loop"], cwd=ROOT, env=env,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        )  # fmt: skip
        try:
            deadline = time.monotonic() + 20
            while not devto.received("POST", "/api/articles") and time.monotonic() < deadline:
                time.sleep(0.02)
            creates = devto.received("POST", "/api/articles")
        finally:
            loop.send_signal(signal.SIGTERM)
            output, _ = loop.communicate(timeout=30)
    assert len(creates) == 1, output.decode()
    assert 0 <= creates[0].received_at - when.timestamp() < 1.0
    assert loop.returncode == 0, output.decode()

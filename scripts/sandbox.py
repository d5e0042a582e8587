"""`make sandbox`: every network's stand-in on fixed ports and `make run`'s server, workers and
beat pointed at them, for trying the API by hand (README, "Quick start with the sandbox").

Usage (after `manage.py migrate`; `make sandbox` does both):
    python scripts/sandbox.py

The stand-ins (tests/social/standins.py: the request shapes the real APIs take, their consent
pages approving at once) listen on 127.0.0.1 from SANDBOX_PORT (8900) on: LinkedIn, Meta
(Facebook and Instagram), Bluesky, Mastodon, Dev.to, a media CDN, Bluesky's video service,
then Threads, X, YouTube, TikTok, Pinterest, Telegram, Discord, Google Business Profile, Slack
and Reddit (the order of `Providers`' fields); LinkedIn Pages share LinkedIn's, and Google
Business Profile's tokens come from YouTube's (Google's OAuth).
The API listens on HOST:PORT as with `make run`. Once the API answers, a table names each
network, its stand-in and the credentials it accepts; every call a stand-in answers is logged as
`[name] METHOD path -> status`. Ctrl-C (or SIGTERM) stops everything and exits 0.
"""

import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import fields
from functools import partial
from pathlib import Path
from types import FrameType

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.e2e.checks import standin_settings  # noqa: E402
from tests.social.standins import (  # noqa: E402
    BLUESKY_APP_PASSWORD,
    BLUESKY_HANDLE,
    DEVTO_KEY,
    FACEBOOK_PAGES,
    LINKEDIN_ORGANIZATIONS,
    RECEIVED_PATH,
    SANDBOX_VIDEO_OFFSET,
    Providers,
    listen,
    provider_standins,
)
from tests.social.telegram_standin import TELEGRAM_CHANNEL, TELEGRAM_TOKEN  # noqa: E402

BASE_PORT = 8900
STARTUP_SECONDS = 120


def accepted(provider: str, providers: Providers) -> str:
    """What connecting the stand-in's account takes, beyond what the API's authorize step gives."""
    pages = ", ".join(f"{page['name']} (pageId {page['id']})" for page in FACEBOOK_PAGES)
    linkedin_pages = ", ".join(
        f"{page['localizedName']} (pageId {page['id']})"
        for page in LINKEDIN_ORGANIZATIONS
        if (page["role"], page["state"]) == ("ADMINISTRATOR", "APPROVED")
    )
    return {
        "linkedin": "OAuth: code and state from the redirect",
        "facebook": f"OAuth: code and state from the redirect; pages: {pages}",
        "instagram": f"OAuth: code and state from the redirect; business account behind "
        f"{FACEBOOK_PAGES[0]['name']}",
        "bluesky": f'identifier "{BLUESKY_HANDLE}", code (app password) "{BLUESKY_APP_PASSWORD}"',
        "mastodon": f'OAuth: instance "{providers.mastodon.url}" on authorize and connect',
        "devto": f'code (API key) "{DEVTO_KEY}"',
        "threads": "OAuth: code and state from the redirect (it ends in #_, which is dropped)",
        "x": "OAuth (with PKCE): code and state from the redirect",
        "linkedin_page": f"OAuth on the LinkedIn stand-in; pages: {linkedin_pages}",
        "youtube": "OAuth: code and state from the redirect; posts need an uploaded video",
        "tiktok": "OAuth: code and state from the redirect; posts need a video or photos and "
        "variants.tiktok.options.privacyLevel",
        "pinterest": "OAuth; boards Launches (boardId 549755885100, the default), Studio, Drafts",
        "telegram": f'code (bot token) "{TELEGRAM_TOKEN}", identifier "{TELEGRAM_CHANNEL}"',
        "discord": "OAuth: code and state from the redirect (the channel's webhook is the account)",
        "google_business": "OAuth (Google's, at the YouTube stand-in): code and state; locations "
        "3001 (the default) and 3002 (locationId)",
        "slack": "OAuth v2: code and state from the redirect; channelId optional (#general else)",
        "reddit": "OAuth (a permanent grant): code and state; subreddits Freelance, DesignJobs "
        "(flair required)",
    }[provider]


def networks(providers: Providers) -> list[tuple[str, str, str, str]]:
    """(provider, name, stand-in URL, what it accepts) for every registered network: one
    without a stand-in stops the sandbox here (a new network brings its stand-in along)."""
    import django

    django.setup()
    from social.networks import NETWORKS

    rows = []
    for provider, network in NETWORKS.items():
        try:
            standin = providers.by_provider(provider)
            credentials = accepted(provider, providers)
        except (AttributeError, KeyError):
            raise SystemExit(f"The network {provider} has no stand-in in the sandbox.") from None
        rows.append((provider, network.name, standin.url, credentials))
    return rows


def table(rows: list[tuple[str, str, str, str]], providers: Providers, video: str) -> str:
    width = max(len(row[0]) for row in [*rows, ("bluesky video", "", "", "")])
    lines = [f"   {provider:<{width}}  {url:<22}  {credentials}"
             for provider, _, url, credentials in rows]  # fmt: skip
    return "\n".join(
        [
            "",
            "  Sandbox: the networks' stand-ins (consent pages approve by themselves)",
            *lines,
            f"   {'media':<{width}}  {providers.cdn.url:<22}  any {providers.image('<name>.jpg')}"
            " is a JPEG to register as media",
            f"   {'bluesky video':<{width}}  {video}",
            f"  What a stand-in received: GET <stand-in URL>{RECEIVED_PATH}",
            "",
        ]
    )


@contextmanager
def standins(base_port: int) -> Iterator[tuple[Providers, str]]:
    with ExitStack() as stack:
        providers = stack.enter_context(provider_standins(base_port))
        video = stack.enter_context(listen(providers.bluesky, base_port + SANDBOX_VIDEO_OFFSET))
        for name in [field.name for field in fields(Providers)]:
            getattr(providers, name).log = partial(print, flush=True)
        yield providers, video


def answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=1):  # noqa: S310 (loopback)
            return True
    except OSError:
        return False


def main() -> int:
    base_port = int(os.environ.get("SANDBOX_PORT") or BASE_PORT)
    host, port = os.environ.get("HOST", "127.0.0.1"), os.environ.get("PORT", "8000")
    stack = ExitStack()
    try:
        providers, video = stack.enter_context(standins(base_port))
    except OSError as error:
        print(f"A sandbox port from {base_port} on is taken ({error.strerror}): stop what runs "
              f"there, or pick others: SANDBOX_PORT={base_port + 100} make sandbox",
              file=sys.stderr)  # fmt: skip
        return 1
    with stack:
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
        # The checks' settings mechanism: the server, workers and beat read them from the
        # environment they inherit.
        os.environ.update({**standin_settings(providers), "BLUESKY_VIDEO_SERVICE_URL": video})
        rows = networks(providers)
        # run.sh shares our process group: a Ctrl-C in the terminal reaches it as well; a
        # SIGTERM sent to us alone is passed on.
        server = subprocess.Popen([str(ROOT / "scripts" / "run.sh"), "serve"], cwd=ROOT)  # noqa: S603

        def stop(signum: int, frame: FrameType | None) -> None:
            server.send_signal(signal.SIGTERM)

        signal.signal(signal.SIGINT, stop)
        signal.signal(signal.SIGTERM, stop)
        deadline = time.monotonic() + STARTUP_SECONDS
        while server.poll() is None and time.monotonic() < deadline:
            if answers(f"http://{host}:{port}/api/v1/health"):
                # run.sh prints its banner as soon as the API answers: the table comes after it,
                # the last thing on screen.
                time.sleep(1)
                print(table(rows, providers, video), flush=True)
                break
            time.sleep(0.5)
        return server.wait()


if __name__ == "__main__":
    sys.exit(main())

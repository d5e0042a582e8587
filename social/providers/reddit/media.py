"""Reddit's image posts (docs/social.md, "Reddit": why they are made, and made once). Reddit's
media flow: an upload lease (`POST /api/media/asset.json`: the S3 form's address and fields),
the image sent to that address (a signed form, no token), then `/api/submit` with `kind=image`
and the uploaded image's URL. That submit answers only a websocket URL, never the post's id:
the post is found afterwards in the user's submitted posts (by subreddit, title and time), by
the scheduler's looks, as a video's processing is awaited (social.md section 10).

Exactly once: the lease and the upload make no post (a lost one is made again); the submit is
marked as being sent before it goes (`submitting`) and as accepted once answered
(`submitted`), in the state the record keeps. A lost submit is looked up before it is sent
again (absent: sent again); an accepted one is never sent again, only looked for, and ends
Unconfirmed if Reddit never lists it."""

import time
from typing import Any
from urllib.parse import urljoin

from django.conf import settings

from core import outbound
from social.providers.base import Attempt, Content, Credentials
from social.providers.client import classify_upload_refusals, moment
from social.providers.media import media_bytes
from social.providers.reddit import rules
from social.providers.reddit.connection import RedditConnection, agent

UPLOAD_TIMEOUT_SECONDS = 120.0
LISTED_WITHIN_SECONDS = 600  # an accepted image post not listed after this: Unconfirmed


# The lease's address answers 201 (an S3 form): another 4xx refuses the image.
classify_upload = classify_upload_refusals("Reddit", "image")


class RedditMedia(RedditConnection):
    """The image post's lease, upload, submit and looks; the rest of the adapter beside it."""

    _upload = outbound.Client(
        "reddit-upload", read_timeout=UPLOAD_TIMEOUT_SECONDS, classify=classify_upload
    )

    def target(self, credentials: Credentials, content: Content) -> str:
        raise NotImplementedError

    def _requests(self, credentials: Credentials) -> Any:
        raise NotImplementedError

    def submit(
        self, credentials: Credentials, content: Content, subreddit: str, kind: str, **more: str
    ) -> dict[str, Any]:
        raise NotImplementedError

    def find(
        self, credentials: Credentials, *, subreddit: str, title: str, attempt: Attempt
    ) -> Any:
        raise NotImplementedError

    def video_upload(
        self, credentials: Credentials, content: Content, attempt: Attempt
    ) -> dict[str, Any]:
        """The subreddit's requirements checked, the image leased and uploaded (once: a kept
        upload is reused), then submitted; the post is looked for by `video_ready`."""
        state = attempt.state
        subreddit = self.target(credentials, content)
        if not subreddit:
            raise outbound.PermanentError("Reddit needs a subreddit: reconnect the account.")
        rules.subreddit_check(self._requests(credentials), subreddit, content, "image")
        if not state.get("imageUrl"):
            state["imageUrl"] = self._uploaded(credentials, content)
        title = content.title.strip()
        began = attempt.after or attempt.since
        state.update(subreddit=subreddit, title=title, after=began.isoformat())
        state["submitting"] = True  # kept if the answer is lost: looked up before a resubmit
        self.submit(credentials, content, subreddit, "image", url=str(state["imageUrl"]))
        state.update(submitted=True, submittedAt=time.time())
        return {}

    def _uploaded(self, credentials: Credentials, content: Content) -> str:
        """The lease (`asset.json`), then the form to its address with every field it gave
        and the file last; the image's URL at that address."""
        image = content.media[0]
        extension = {"image/png": "png", "image/gif": "gif"}.get(image.mime, "jpg")
        lease = self.call(
            "POST",
            "api/media/asset.json",
            credentials,
            publishing=True,
            data={"filepath": f"image.{extension}", "mimetype": image.mime},
        )
        args = (lease or {}).get("args") or {}
        action = urljoin(settings.REDDIT_API_URL, str(args.get("action") or ""))
        fields = {
            str(field.get("name")): str(field.get("value"))
            for field in args.get("fields") or []
            if isinstance(field, dict)
        }
        if not args.get("action") or "key" not in fields:
            raise outbound.TransientError("Reddit answered in a shape its API does not document.")
        self._upload.request(
            "POST",
            action,
            data=fields,
            files={"file": (f"image.{extension}", media_bytes(image), image.mime)},
            headers=agent(),
            timeout=UPLOAD_TIMEOUT_SECONDS,
            idempotent=False,
        )
        return f"{action.rstrip('/')}/{fields['key']}"

    def video_ready(self, credentials: Credentials, state: dict[str, Any]) -> bool:
        """One look for the image post among the user's submitted posts: found, it is
        published; not yet, another look later; not listed in LISTED_WITHIN_SECONDS, its
        outcome is unknown (never submitted again)."""
        attempt = Attempt(key="", after=moment(state.get("after")), state=state)
        found = self.find(
            credentials,
            subreddit=str(state.get("subreddit") or ""),
            title=str(state.get("title") or ""),
            attempt=attempt,
        )
        if found is not None:
            state.update(postId=found.provider_post_id, url=found.url)
            return True
        if time.time() - float(state.get("submittedAt") or time.time()) > LISTED_WITHIN_SECONDS:
            raise outbound.TransientError(
                "Reddit has not listed the image post it accepted: its outcome could not be "
                "established.",
                maybe_delivered=True,
            )
        return False

"""Threads' containers (`POST /{user}/threads`), their status and `threads_publish`, each
part's container made once and kept (`Attempt.state`) before it is sent, so that a lost answer
is settled by the container's status (social.providers.threads.adapter)."""

import time
from collections.abc import Callable

from django.utils import timezone

from core import outbound
from social.providers.base import Attempt, Credentials, Published, QuotaReached
from social.providers.threads.connection import (
    PUBLISHING_QUOTA_SUBCODE,
    ThreadsConnection,
    graph_error_of,
)

CONTAINER_POLL_SECONDS = (1.0, 2.0, 3.0, 4.0)  # a reply's media container: about 10 s


class ThreadsContainers(ThreadsConnection):
    def _container(self, credentials: Credentials, **fields: str) -> str:
        created = self._post(
            f"{credentials.provider_user_id}/threads",
            credentials.access_token,
            **{name: value for name, value in fields.items() if value},
        )
        return str(created["id"])

    def _status(self, credentials: Credentials, container: str) -> tuple[str, str]:
        found = self._get(container, credentials.access_token, fields="status,error_message")
        return str(found.get("status") or ""), str(found.get("error_message") or "")

    def _finished(self, credentials: Credentials, container: str, *, video: bool) -> bool:
        """One look at a container: FINISHED (or PUBLISHED) is True, IN_PROGRESS False; ERROR
        or EXPIRED fail the media for good, with Threads' reason."""
        status, reason = self._status(credentials, container)
        if status in ("ERROR", "EXPIRED"):
            reason = reason or status
            raise outbound.PermanentError(
                f"Threads could not process the video: {reason}."
                if video
                else f"Threads could not process the image: {reason}."
            )
        return status in ("FINISHED", "PUBLISHED")

    def _wait(self, credentials: Credentials, container: str) -> None:
        """A reply's media container awaited in the call (about 10 s), else tried again."""
        for delay in (0.0, *CONTAINER_POLL_SECONDS):
            time.sleep(delay)
            if self._finished(credentials, container, video=False):
                return
        raise outbound.TransientError("Threads is still processing the media.")

    def _publish_container(self, credentials: Credentials, container: str) -> Published:
        try:
            published = self._post(
                f"{credentials.provider_user_id}/threads_publish",
                credentials.access_token,
                creation_id=container,
            )
        except outbound.TransientError as error:
            if graph_error_of(error) == (4, PUBLISHING_QUOTA_SUBCODE):
                raise QuotaReached(
                    "Threads' daily quota is used up: it refused the post (250 a day)."
                ) from None
            raise
        media_id = str(published["id"])
        return Published(provider_post_id=media_id, url=self._permalink(credentials, media_id))

    def _permalink(self, credentials: Credentials, media_id: str) -> str:
        try:
            found = self._get(media_id, credentials.access_token, fields="permalink,shortcode")
        except outbound.OutboundError:
            return ""  # published all the same; the post's id is kept
        return str(found.get("permalink") or "")

    def _publish_once(
        self,
        credentials: Credentials,
        attempt: Attempt,
        *,
        make: Callable[[], str],
        find: Callable[[], Published | None],
        media: bool,
    ) -> Published:
        """Publish the part's container, made once: a kept container sent before (or still
        processing) is asked first (module docstring); a new one is kept before it is sent."""
        state = attempt.state
        container = str(state.get("container") or "")
        if container and (state.get("sent") or state.get("waiting")):
            status, reason = self._status(credentials, container)
            if status == "PUBLISHED":
                return _listed(find)
            if status == "IN_PROGRESS":
                raise outbound.TransientError("Threads is still processing the media.")
            if status in ("ERROR", "EXPIRED") and media:
                raise outbound.PermanentError(
                    f"Threads could not process the image: {reason or status}."
                )
            if status in ("ERROR", "EXPIRED"):
                container = ""  # a text's container: made again
        if not container:
            container = make()
            state.update(container=container, created=timezone.now().isoformat())
            state.pop("sent", None)
            if media:
                state["waiting"] = True
                self._wait(credentials, container)
        state.pop("waiting", None)
        state["sent"] = True
        return self._publish_container(credentials, container)

    def settled(
        self, credentials: Credentials, attempt: Attempt, find: Callable[[], Published | None]
    ) -> Published | None:
        """What became of the part after a lost answer: the post when its kept container is
        PUBLISHED (found by `find`; not listed yet, the outcome stays unknown: raised), None
        when the container was never published (the create goes on with it). No container
        kept (the attempt that made it died before its result was written): `find` decides."""
        state = attempt.state
        container = str(state.get("container") or "")
        if not container:
            return find()
        if not state.get("sent"):
            return None
        if self._status(credentials, container)[0] != "PUBLISHED":
            return None
        return _listed(find)


def _listed(find: Callable[[], Published | None]) -> Published:
    """The post of a PUBLISHED container; one the lists do not show (yet) leaves the outcome
    unknown: never "not there", so no second container is ever made for it."""
    found = find()
    if found is None:
        raise outbound.TransientError(
            "Threads published this part's container but does not list the post yet: its "
            "outcome could not be established.",
            maybe_delivered=True,
        )
    return found

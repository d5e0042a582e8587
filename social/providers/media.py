"""A file's bytes as a platform needs them: an image read whole (ours from storage, a hosted
one fetched through the outbound guard), a video we store streamed or read by byte range, a
document streamed from storage (or a hosted one fetched whole, capped)."""

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from core import outbound
from social.providers.base import MediaFile

MAX_MEDIA_FETCH_BYTES = 10 * 1024 * 1024  # the largest image a platform takes (Telegram's photos)
_media_client = outbound.Client("media", read_timeout=20.0, retries=1)


def media_bytes(media: MediaFile) -> bytes:
    """The file's bytes: ours as stored, a hosted one fetched through the guard (a user gave
    the URL), at most MAX_MEDIA_FETCH_BYTES."""
    if media.data is not None:
        return media.data
    if media.stored:
        from django.core.files.storage import default_storage

        with default_storage.open(media.stored, "rb") as stored:
            data = bytes(stored.read(MAX_MEDIA_FETCH_BYTES + 1))
        if len(data) > MAX_MEDIA_FETCH_BYTES:
            raise outbound.PermanentError("The media file is too large to publish.")
        return data
    try:
        response = _media_client.request(
            "GET", media.url, guarded=True, max_bytes=MAX_MEDIA_FETCH_BYTES
        )
    except outbound.PermanentError as error:
        if error.message.startswith("The answer is larger"):
            raise outbound.PermanentError("The media file is too large to publish.") from None
        raise
    return response.content


@contextmanager
def stored_file(media: MediaFile) -> Iterator[Any]:
    """A video we store, opened for reading from storage (streamed to the platform in
    chunks, never read whole)."""
    from django.core.files.storage import default_storage

    if not media.stored:
        raise outbound.PermanentError(
            "This network needs the video's bytes: upload it to the media library."
        )
    with default_storage.open(media.stored, "rb") as stored:
        yield stored


def stored_range(media: MediaFile, first: int, last: int) -> bytes:
    """Bytes `first`..`last` (inclusive) of a stored video: one part of a chunked upload."""
    with stored_file(media) as stored:
        stored.seek(first)
        return bytes(stored.read(last - first + 1))


@contextmanager
def document_body(media: MediaFile) -> Iterator[Any]:
    """A document's bytes to send whole: ours streamed from storage (never read into memory),
    a hosted one fetched through the guard, at most MEDIA_MAX_DOCUMENT_BYTES."""
    if media.stored:
        with stored_file(media) as stored:
            yield stored
        return
    from django.conf import settings

    limit = int(settings.MEDIA_MAX_DOCUMENT_BYTES)
    try:
        response = _document_client.request("GET", media.url, guarded=True, max_bytes=limit)
    except outbound.PermanentError as error:
        if error.message.startswith("The answer is larger"):
            raise outbound.PermanentError("The document is too large to publish.") from None
        raise
    yield response.content


_document_client = outbound.Client("media-document", read_timeout=60.0, retries=1)

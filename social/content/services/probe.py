"""A video's duration and size read from its header, through the bounded reader
(social.content.mp4): an uploaded file read in place, a hosted one by a few ranged reads with
a deadline, through the outbound layer. A document's pages, through the bounded PDF reader
(social.content.pdf): an uploaded file read in place, a hosted one fetched whole (capped)."""

import io
import re
import time
from typing import Any

from core import outbound
from core.errors import ValidationFailed
from social.content import mp4, pdf


def video_probe(stream: Any, size: int, mime: str) -> dict[str, Any]:
    """`duration` (seconds), `width`, `height` from the video's own header, read by the
    bounded walker (social.content.mp4: the media data is stepped over, not read); 400 when the
    bytes are not a video of `mime`."""
    try:
        header = mp4.probe(_Uploaded(stream, size), deadline=time.monotonic() + PROBE_SECONDS)
    except mp4.NotAVideo as error:
        raise ValidationFailed(
            details={"file": [f"The file is not a playable {mime} video: {error}."]}
        ) from None
    if header.mime != mime:
        raise ValidationFailed(details={"file": [f"The file is not a playable {mime} video."]})
    return {"duration": header.duration, "width": header.width, "height": header.height}


# The header walk of an upload reads a few dozen small pieces of a local file: this is far
# more than a real video needs, and bounds a crafted one (with social.content.mp4.MAX_BOXES).
PROBE_SECONDS = 2.0
HOSTED_PROBE_SECONDS = 10.0  # all the ranged reads of one hosted file's header together
HEADER_WINDOW_BYTES = 64 * 1024  # one ranged read: the start of the file, or of its moov
MAX_HEADER_READS = 8  # the file's start, its moov (before or after the media data), a few more
_hosted = outbound.Client("media-header", read_timeout=HOSTED_PROBE_SECONDS, retries=0)


class _Uploaded:
    """An uploaded file (in memory or spooled to disk) as the walker's source."""

    def __init__(self, stream: Any, size: int) -> None:
        self.stream = stream
        self.size = size

    def read(self, offset: int, length: int) -> bytes:
        self.stream.seek(offset)
        return bytes(self.stream.read(length))


class _Hosted:
    """A hosted file as the walker's source: ranged GETs through the outbound guard (a user
    gave the URL), HEADER_WINDOW_BYTES at a time, the last window kept; at most
    MAX_HEADER_READS of them, within the probe's deadline."""

    def __init__(self, url: str, deadline: float) -> None:
        self.url = url
        self.deadline = deadline
        self.reads = 0
        self.size = 0
        self.start, self.window = 0, b""
        self._fetch(0)

    def read(self, offset: int, length: int) -> bytes:
        wanted_end = min(offset + length, self.size)
        if offset < self.size and not (
            self.start <= offset and wanted_end <= self.start + len(self.window)
        ):
            self._fetch(offset)
        at = offset - self.start
        return self.window[at : at + length]

    def _fetch(self, offset: int) -> None:
        self.reads += 1
        left = self.deadline - time.monotonic()
        if self.reads > MAX_HEADER_READS or left <= 0:
            raise mp4.NotAVideo("its header could not be read within the bounds")
        response = _hosted.request(
            "GET",
            self.url,
            guarded=True,
            timeout=left,
            max_bytes=HEADER_WINDOW_BYTES,
            headers={"Range": f"bytes={offset}-{offset + HEADER_WINDOW_BYTES - 1}"},
        )
        if response.status_code == 206:
            found = re.fullmatch(
                r"bytes (\d+)-\d+/(\d+)", response.headers.get("Content-Range", "").strip()
            )
            if found is None or int(found[1]) != offset:
                raise mp4.NotAVideo("its server answered the range requests wrongly")
            self.size = int(found[2])
        elif offset == 0:  # the whole file, small enough to be one window
            self.size = len(response.content)
        else:
            raise mp4.NotAVideo("its server does not answer range requests")
        self.start, self.window = offset, response.content


def hosted_video_probe(url: str, mime: str) -> tuple[mp4.Header, int]:
    """The hosted video's header and size; 400 naming `url` when it cannot be read or is not
    a video of `mime`. Its server is user-chosen: the outbound layer bounds calls per host."""
    refused = f"The file at this URL is not a playable {mime} video"
    try:
        source = _Hosted(url, time.monotonic() + HOSTED_PROBE_SECONDS)
        header = mp4.probe(source, deadline=source.deadline)
    except mp4.NotAVideo as error:
        raise ValidationFailed(details={"url": [f"{refused}: {error}."]}) from None
    except outbound.OutboundError as error:
        reason = error.message
        if reason.startswith("The answer is larger"):
            reason = "its server sent the whole file, not the range asked for."
        raise ValidationFailed(details={"url": [f"The file could not be read: {reason}"]}) from None
    if header.mime != mime:
        raise ValidationFailed(details={"url": [f"{refused}: it is a {header.mime} file."]})
    return header, source.size


HOSTED_DOCUMENT_SECONDS = 60.0  # fetching a hosted document whole, at most its size cap
_hosted_documents = outbound.Client(
    "media-document", read_timeout=HOSTED_DOCUMENT_SECONDS, retries=0
)


def document_probe(stream: Any, size: int, mime: str) -> dict[str, Any]:
    """`pages` of an uploaded document (its size was held to the cap before); 400 naming
    `file` when it is not a PDF this product can publish."""
    try:
        return {"pages": pdf.page_count(stream)}
    except pdf.NotADocument as error:
        raise ValidationFailed(
            details={"file": [f"The file is not a usable PDF: {error}."]}
        ) from None


def hosted_document_probe(url: str, *, max_bytes: int) -> tuple[int, int]:
    """The hosted document's pages and size, the file fetched whole through the outbound guard
    (a user gave the URL) and never past `max_bytes`; 400 naming `url` when it cannot be
    fetched or is not a PDF this product can publish."""
    try:
        response = _hosted_documents.request("GET", url, guarded=True, max_bytes=max_bytes)
    except outbound.OutboundError as error:
        reason = error.message
        if reason.startswith("The answer is larger"):
            reason = f"it is larger than {max_bytes} bytes."
        raise ValidationFailed(details={"url": [f"The file could not be read: {reason}"]}) from None
    data = response.content
    try:
        pages = pdf.page_count(io.BytesIO(data))
    except pdf.NotADocument as error:
        raise ValidationFailed(
            details={"url": [f"The file at this URL is not a usable PDF: {error}."]}
        ) from None
    return pages, len(data)

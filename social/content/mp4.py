"""A bounded reader of an MP4 or QuickTime file's header: its duration and picture size.

Only the boxes that say them are read (`ftyp`; in `moov`: `mvhd`, `mvex`/`mehd`, and in each
`trak` until the video one is found: `tkhd`, `mdia` with `mdhd` and `hdlr`, and `minf`/`stbl`/
`stsd` when `tkhd` gives no size); every other box, the media data (`mdat`) and the sample tables
included, is stepped over by its size, never read. The walk is bounded by a count of boxes and a
deadline, whatever the file holds: a file of millions of empty boxes is refused after
MAX_BOXES, not parsed. The bytes come from a `Source`: a local file (an upload) or ranged reads
of a hosted one (social.content.services.media).
"""

import struct
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol

MAX_BOXES = 1000  # boxes looked at, all levels together; a real header has a few dozen
QUICKTIME_BRAND = b"qt  "


class NotAVideo(Exception):
    """The bytes are not a playable MP4 or QuickTime video; the message says why."""


class Source(Protocol):
    """Random access to a file's bytes."""

    @property
    def size(self) -> int: ...

    def read(self, offset: int, length: int) -> bytes:
        """Up to `length` bytes at `offset` (fewer only at the end of the file)."""
        ...


@dataclass(frozen=True, slots=True)
class Header:
    brand: bytes  # `ftyp`'s major brand
    duration: float  # seconds
    width: int | None  # the picture as shown (a rotation in the track's matrix applied)
    height: int | None

    @property
    def mime(self) -> str:
        return "video/quicktime" if self.brand == QUICKTIME_BRAND else "video/mp4"


@dataclass(slots=True)
class _Track:
    handler: bytes = b""
    width: int = 0
    height: int = 0
    timescale: int = 0
    duration: int = 0


class _Walk:
    """One probe's reads, within its box count and deadline."""

    def __init__(self, source: Source, *, deadline: float) -> None:
        self.source = source
        self.deadline = deadline
        self.boxes_left = MAX_BOXES

    def read(self, offset: int, length: int) -> bytes:
        return self.source.read(offset, length)

    def children(self, start: int, end: int) -> Iterator[tuple[bytes, int, int]]:
        """(type, payload start, end) of each box between `start` and `end`."""
        offset = start
        while end - offset >= 8:
            self.boxes_left -= 1
            if self.boxes_left < 0 or time.monotonic() > self.deadline:
                raise NotAVideo("its header has more boxes than a video's")
            head = self.read(offset, 16)
            if len(head) < 8:
                raise NotAVideo("it is cut short")
            size, kind = struct.unpack(">I4s", head[:8])
            header = 8
            if size == 1:  # a 64-bit size follows the type
                if len(head) < 16:
                    raise NotAVideo("it is cut short")
                (size,) = struct.unpack(">Q", head[8:16])
                header = 16
            elif size == 0:  # the box runs to the end of its parent
                size = end - offset
            if size < header or offset + size > end:
                raise NotAVideo("a box runs past the end of what holds it")
            yield kind, offset + header, offset + size
            offset += size


def probe(source: Source, *, deadline: float) -> Header:
    """The video's brand, duration, width and height from its header; NotAVideo otherwise."""
    walk = _Walk(source, deadline=deadline)
    brand = b""
    for kind, start, end in walk.children(0, source.size):
        if not brand:
            if kind != b"ftyp" or end - start < 4:
                raise NotAVideo("it does not start with an ftyp box")
            brand = walk.read(start, 4)
        elif kind == b"moov":
            return _movie(walk, brand, start, end)
    raise NotAVideo("it has no moov box" if brand else "it is empty")


def _movie(walk: _Walk, brand: bytes, start: int, end: int) -> Header:
    timescale = duration = fragments = 0
    video: _Track | None = None
    for kind, child, child_end in walk.children(start, end):
        if kind == b"mvhd":
            timescale, duration = _times(walk.read(child, 32))
        elif kind == b"mvex":
            for inner, at, _ in walk.children(child, child_end):
                if inner == b"mehd":
                    fragments = _fragment_duration(walk.read(at, 12))
        elif kind == b"trak" and video is None:
            track = _track(walk, child, child_end)
            video = track if track.handler == b"vide" else None
        if video is not None and timescale and duration:
            break
    if video is None:
        raise NotAVideo("it has no video track")
    seconds = duration / timescale if timescale and duration else 0.0
    if not seconds and timescale and fragments:
        seconds = fragments / timescale
    if not seconds and video.timescale and video.duration:
        seconds = video.duration / video.timescale
    if seconds <= 0:
        raise NotAVideo("its header gives no duration")
    return Header(
        brand=brand,
        duration=round(seconds, 3),
        width=video.width or None,
        height=video.height or None,
    )


def _track(walk: _Walk, start: int, end: int) -> _Track:
    track = _Track()
    media: tuple[int, int] | None = None
    for kind, child, child_end in walk.children(start, end):
        if kind == b"tkhd":
            track.width, track.height = _shown_size(walk.read(child, 96))
        elif kind == b"mdia":
            media = (child, child_end)
    if media is None:
        return track
    descriptions: tuple[int, int] | None = None
    for kind, child, child_end in walk.children(*media):
        if kind == b"mdhd":
            track.timescale, track.duration = _times(walk.read(child, 32))
        elif kind == b"hdlr":
            track.handler = walk.read(child, 12)[8:12]
        elif kind == b"minf":
            descriptions = (child, child_end)
    if track.handler == b"vide" and not (track.width and track.height) and descriptions:
        track.width, track.height = _coded_size(walk, *descriptions)
    return track


def _coded_size(walk: _Walk, start: int, end: int) -> tuple[int, int]:
    """The first visual sample description's width and height (minf > stbl > stsd)."""
    for name in (b"stbl", b"stsd"):
        found = next(
            (
                (child, child_end)
                for kind, child, child_end in walk.children(start, end)
                if kind == name
            ),
            None,
        )
        if found is None:
            return 0, 0
        start, end = found
    entry = walk.read(start, 8 + 36)  # stsd's version, count, then its first entry
    if len(entry) < 44:
        return 0, 0
    width, height = struct.unpack(">HH", entry[40:44])
    return width, height


def _times(payload: bytes) -> tuple[int, int]:
    """(timescale, duration) of an `mvhd` or `mdhd`, version 0 or 1; (0, 0) when unknown."""
    if payload[:1] == b"\1" and len(payload) >= 32:
        timescale, duration = struct.unpack(">IQ", payload[20:32])
        unknown = duration == 0xFFFFFFFFFFFFFFFF
    elif len(payload) >= 20:
        timescale, duration = struct.unpack(">II", payload[12:20])
        unknown = duration == 0xFFFFFFFF
    else:
        raise NotAVideo("a header box is cut short")
    return (timescale, 0) if unknown else (timescale, duration)


def _fragment_duration(payload: bytes) -> int:
    if payload[:1] == b"\1" and len(payload) >= 12:
        return int(struct.unpack(">Q", payload[4:12])[0])
    return int(struct.unpack(">I", payload[4:8])[0]) if len(payload) >= 8 else 0


def _shown_size(payload: bytes) -> tuple[int, int]:
    """A `tkhd`'s width and height (16.16 fixed point), swapped when its matrix turns the
    picture a quarter turn (a phone held upright records landscape frames and says so)."""
    matrix_at = 52 if payload[:1] == b"\1" else 40
    if len(payload) < matrix_at + 44:
        raise NotAVideo("a track header is cut short")
    a, b, _, c, d = struct.unpack(">iiiii", payload[matrix_at : matrix_at + 20])
    width, height = struct.unpack(">II", payload[matrix_at + 36 : matrix_at + 44])
    width, height = width >> 16, height >> 16
    if a == 0 and d == 0 and b != 0 and c != 0:
        width, height = height, width
    return width, height

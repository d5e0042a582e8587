"""The bounded MP4 header walker (social.content.mp4): what it reads from real layouts, and what it
refuses, within its box budget, without reading the rest."""

import struct
import time

import pytest

from social.content import mp4
from tests.social.videos import MATRIX, _box, _full
from tests.social.videos import mp4 as video


class Counted:
    """Bytes as a source, counting what was read."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.size = len(data)
        self.read_bytes = 0

    def read(self, offset: int, length: int) -> bytes:
        piece = self.data[offset : offset + length]
        self.read_bytes += len(piece)
        return piece


def probe(data: bytes) -> mp4.Header:
    return mp4.probe(Counted(data), deadline=time.monotonic() + 5)


def movie(*boxes: bytes, brand: bytes = b"isom") -> bytes:
    return _box(b"ftyp", brand + b"\0\0\0\0isom") + _box(b"moov", b"".join(boxes))


def mvhd(timescale: int, duration: int, version: int = 0) -> bytes:
    if version:
        times = struct.pack(">QQIQ", 0, 0, timescale, duration)
    else:
        times = struct.pack(">IIII", 0, 0, timescale, duration)
    rest = struct.pack(">IH", 0x00010000, 0x0100) + b"\0" * 10 + MATRIX + b"\0" * 28
    return _box(b"mvhd", bytes([version, 0, 0, 0]) + times + rest)


def tkhd(width: int, height: int, matrix: bytes = MATRIX, version: int = 0) -> bytes:
    head = struct.pack(">QQIIQ" if version else ">IIIII", 0, 0, 1, 0, 0)
    body = head + b"\0" * 16 + matrix + struct.pack(">II", width << 16, height << 16)
    return _box(b"tkhd", bytes([version, 0, 0, 3]) + body)


def trak(handler: bytes, *extra: bytes, header: bytes | None = None) -> bytes:
    hdlr = _full(b"hdlr", struct.pack(">I", 0) + handler + b"\0" * 12 + b"Handler\0")
    mdhd = _full(b"mdhd", struct.pack(">IIIIHH", 0, 0, 1000, 5000, 0, 0))
    return _box(b"trak", (header or tkhd(0, 0)) + _box(b"mdia", mdhd + hdlr + b"".join(extra)))


def test_duration_and_size_whichever_end_the_moov_is_at_reading_only_the_header():
    for moov_last in (False, True):
        data = video(seconds=7.5, width=640, height=360, payload=4_000_000, moov_last=moov_last)
        source = Counted(data)
        header = mp4.probe(source, deadline=time.monotonic() + 5)
        assert (header.mime, header.duration, header.width, header.height) == (
            "video/mp4", 7.5, 640, 360,
        )  # fmt: skip
        assert source.read_bytes < 1024  # the 4 MB of media data stepped over


def test_version_1_boxes_64_bit_sizes_and_a_quarter_turn():
    turned = struct.pack(">9i", 0, 0x00010000, 0, -0x00010000, 0, 0, 0, 0, 0x40000000)
    moov = mvhd(90000, 90000 * 42, version=1) + trak(
        b"vide", header=tkhd(1920, 1080, turned, version=1)
    )
    large = struct.pack(">I4sQ", 1, b"moov", 16 + len(moov)) + moov
    header = probe(_box(b"ftyp", b"qt  \0\0\0\0qt  ") + _box(b"free", b"") + large)
    assert (header.mime, header.duration, header.width, header.height) == (
        "video/quicktime", 42.0, 1080, 1920,
    )  # fmt: skip


def test_the_video_track_after_an_audio_one_and_its_size_from_its_sample_description():
    entry = b"\0" * 6 + struct.pack(">H", 1) + b"\0" * 16 + struct.pack(">HH", 720, 1280)
    stsd = _full(b"stsd", struct.pack(">I", 1) + _box(b"avc1", entry + b"\0" * 50))
    minf = _box(b"minf", _box(b"stbl", stsd + _box(b"stsz", b"\0" * 4096)))
    header = probe(movie(mvhd(1000, 3000), trak(b"soun"), trak(b"vide", minf)))
    assert (header.duration, header.width, header.height) == (3.0, 720, 1280)


def test_the_track_duration_when_the_movie_gives_none():
    header = probe(movie(mvhd(1000, 0), trak(b"vide", header=tkhd(320, 240))))
    assert (header.duration, header.width) == (5.0, 320)


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"", "it is empty"),
        (_box(b"moov", b""), "does not start with an ftyp box"),
        (_box(b"ftyp", b"isom") + _box(b"mdat", b"\0" * 64), "has no moov box"),
        (movie(mvhd(1000, 3000), trak(b"soun")), "has no video track"),
        (movie(mvhd(1000, 0), trak(b"vide", header=tkhd(1, 1))[:-40]), "runs past"),
        (b"\0\0\0\x18ftypisom" + b"x" * 4096, "runs past"),
        (movie(mvhd(0, 0), _box(b"trak", tkhd(1, 1))), "has no video track"),
    ],
)
def test_what_is_not_a_video_is_refused_with_its_reason(data, reason):
    with pytest.raises(mp4.NotAVideo, match=reason):
        probe(data)


def test_a_file_of_countless_empty_boxes_is_refused_after_the_budget_not_parsed():
    empty = _box(b"free", b"")
    for data in (
        _box(b"ftyp", b"isom") + empty * 2_000_000 + video()[-200:],
        movie(empty * 2_000_000, mvhd(1000, 1000)),
    ):
        source = Counted(data)
        started = time.monotonic()
        with pytest.raises(mp4.NotAVideo, match="more boxes than a video"):
            mp4.probe(source, deadline=time.monotonic() + 5)
        assert source.read_bytes <= 16 * (mp4.MAX_BOXES + 1)
        assert time.monotonic() - started < 1


def test_the_deadline_bounds_the_walk():
    with pytest.raises(mp4.NotAVideo):
        mp4.probe(Counted(video()), deadline=time.monotonic() - 1)

"""Small, valid MP4 files for the video tests: an `ftyp` box, a `moov` box whose `mvhd` and
`tkhd` say the duration and the picture's size (what a video's header carries and the
uploads read), and an `mdat` box of `payload` bytes, before the `moov` (as a camera writes
it) or after it (as a file prepared for streaming has it)."""

import struct


def _box(kind: bytes, payload: bytes) -> bytes:
    return struct.pack(">I", 8 + len(payload)) + kind + payload


def _full(kind: bytes, payload: bytes, flags: int = 0) -> bytes:
    return _box(kind, bytes([0]) + flags.to_bytes(3, "big") + payload)


MATRIX = struct.pack(">9I", 0x00010000, 0, 0, 0, 0x00010000, 0, 0, 0, 0x40000000)


def mp4(seconds: float = 3.0, width: int = 1280, height: int = 720, payload: int = 1024,
        brand: bytes = b"isom", moov_last: bool = False) -> bytes:  # fmt: skip
    scale = 1000
    length = int(seconds * scale)
    ftyp = _box(b"ftyp", brand + struct.pack(">I", 512) + b"isomiso2avc1mp41")
    mvhd = _full(b"mvhd", struct.pack(">IIII", 0, 0, scale, length)
                 + struct.pack(">IH", 0x00010000, 0x0100) + b"\0" * 10 + MATRIX + b"\0" * 24
                 + struct.pack(">I", 2))  # fmt: skip
    tkhd = _full(b"tkhd", struct.pack(">IIIII", 0, 0, 1, 0, length) + b"\0" * 8
                 + struct.pack(">hhhh", 0, 0, 0, 0) + MATRIX
                 + struct.pack(">II", width << 16, height << 16), flags=3)  # fmt: skip
    mdhd = _full(b"mdhd", struct.pack(">IIIIHH", 0, 0, scale, length, 0x55C4, 0))
    hdlr = _full(b"hdlr", struct.pack(">I", 0) + b"vide" + b"\0" * 12 + b"VideoHandler\0")
    moov = _box(b"moov", mvhd + _box(b"trak", tkhd + _box(b"mdia", mdhd + hdlr)))
    mdat = _box(b"mdat", b"\0" * payload)
    return ftyp + (mdat + moov if moov_last else moov + mdat)

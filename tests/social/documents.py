"""Small PDF files for the document tests: valid ones of any number of blank pages (written by
pypdf), and crafted ones (a page tree that loops, one of countless empty nodes) written object
by object with a correct cross-reference table, as an attacker would."""

import io

from pypdf import PdfWriter


def pdf(pages: int = 3, *, password: str = "") -> bytes:
    writer = PdfWriter()
    for _ in range(pages):
        writer.add_blank_page(612, 792)
    if password:
        writer.encrypt(user_password=password, owner_password=password, algorithm="AES-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def crafted(objects: list[bytes]) -> bytes:
    """A PDF of these objects (numbered from 1; object 1 is the catalog), with its xref."""
    out = bytearray(b"%PDF-1.7\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


def looping() -> bytes:
    """A page tree whose node names itself among its kids."""
    return crafted([b"<< /Type /Catalog /Pages 2 0 R >>",
                    b"<< /Type /Pages /Count 1 /Kids [2 0 R 3 0 R] >>",
                    b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>"])  # fmt: skip


def nodes(count: int) -> bytes:
    """One page under `count` empty intermediate nodes: few pages, a huge tree."""
    kids = b" ".join(b"%d 0 R" % number for number in range(3, count + 3))
    empty = [b"<< /Type /Pages /Count 0 /Kids [] >>"] * count
    return crafted([b"<< /Type /Catalog /Pages 2 0 R >>",
                    b"<< /Type /Pages /Count 1 /Kids [" + kids + b" %d 0 R] >>" % (count + 3),
                    *empty, b"<< /Type /Page /MediaBox [0 0 612 792] >>"])  # fmt: skip

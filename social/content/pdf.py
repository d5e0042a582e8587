"""A document's page count, read from an untrusted PDF within bounds (social.md section 13).

The caller has already held the file to MEDIA_MAX_DOCUMENT_BYTES, so no parse starts on more
than that. pypdf opens the file (its cross-reference table, and its own decompression limits
on object streams); the page tree is then walked here rather than by pypdf's flattening, so
that the walk stops as soon as the pages pass MAX_PAGES, never visits more than MAX_NODES
nodes, never loops (a node reached twice is a broken file) and ends by a deadline. A file pypdf
cannot read, or whose page tree is broken, is NotADocument: the caller's 400.
"""

import time
from typing import Any, BinaryIO

from pypdf import PdfReader
from pypdf.generic import DictionaryObject, IndirectObject

from social.networks.base import DOCUMENT_MAX_PAGES

MAGIC = b"%PDF-"
MAX_PAGES = DOCUMENT_MAX_PAGES  # LinkedIn's documents (social.md section 13)
# Pages and the intermediate nodes above them: a tree of MAX_PAGES pages needs far fewer.
MAX_NODES = 4 * MAX_PAGES
PARSE_SECONDS = 10.0


class NotADocument(Exception):
    """The bytes are not a PDF this product can publish; the message says why."""


def is_pdf(head: bytes) -> bool:
    return head.startswith(MAGIC)


def page_count(stream: BinaryIO, *, deadline: float | None = None) -> int:
    """The document's pages (1..MAX_PAGES); NotADocument when it has none, more, or cannot be
    read within the bounds."""
    deadline = deadline if deadline is not None else time.monotonic() + PARSE_SECONDS
    stream.seek(0)
    if not is_pdf(stream.read(len(MAGIC))):
        raise NotADocument("it is not a PDF file")
    stream.seek(0)
    try:
        reader = PdfReader(stream, strict=False)
        if reader.is_encrypted and not reader.decrypt(""):
            raise NotADocument("it is protected by a password")
        root = reader.trailer["/Root"].get_object()
        if not isinstance(root, DictionaryObject):
            raise NotADocument("it has no catalog")
        pages = _pages_in(root["/Pages"], deadline)
    except NotADocument:
        raise
    except Exception as error:  # a broken file: whatever pypdf raised, the file is refused
        raise NotADocument(f"it could not be read as a PDF ({type(error).__name__})") from None
    if pages == 0:
        raise NotADocument("it has no pages")
    return pages


def _pages_in(top: Any, deadline: float) -> int:
    """The leaves of the page tree under `top`, walked depth first without recursion."""
    pending = [top]
    seen: set[tuple[int, int]] = set()
    pages = nodes = 0
    while pending:
        node = pending.pop()
        if isinstance(node, IndirectObject):
            key = (node.idnum, node.generation)
            if key in seen:
                raise NotADocument("its page tree loops")
            seen.add(key)
            node = node.get_object()
        nodes += 1
        if nodes > MAX_NODES or time.monotonic() > deadline:
            raise NotADocument(f"it has more than {MAX_PAGES} pages or a page tree too large")
        if not isinstance(node, DictionaryObject):
            raise NotADocument("its page tree is broken")
        kids = node.get("/Kids")
        if node.get("/Type") == "/Pages" or (kids is not None and node.get("/Type") != "/Page"):
            pending.extend(reversed(list(kids.get_object() if kids is not None else [])))
            continue
        pages += 1
        if pages > MAX_PAGES:
            raise NotADocument(f"it has more than {MAX_PAGES} pages")
    return pages

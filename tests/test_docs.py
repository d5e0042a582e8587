"""The docs cite files that exist: every repository path in README.md and docs/ (in backticks
or as a link target), so a moved file cannot leave its docs pointing at nothing."""

import re

from tests.servers import ROOT

TOP = {path.name for path in ROOT.iterdir() if not path.name.startswith(".")} | {".ci"}
# Folders made at run time, never in the repository.
RUNTIME = ("var/", "staticfiles/", "/app/", "db.sqlite3")
CITED = re.compile(r"`([^`\s]+)`|\]\(([^)\s#]+)\)")


def cited_paths(text: str) -> set[str]:
    found = set()
    for match in CITED.finditer(text):
        path = (match.group(1) or match.group(2)).rstrip(".,:;)").split("::")[0]
        path = path.split("#")[0]
        if any(mark in path for mark in ("<", ">", "*", "...", "{", "$", "://")):
            continue
        outside = path.startswith("../")  # beside the repository: not in it
        document = path.endswith(".md")  # a page: here, or beside the citing one
        if outside or document or (path.split("/")[0] in TOP and not path.startswith(RUNTIME)):
            found.add(path)
    return found


def test_every_path_the_docs_cite_exists():
    documents = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    missing = [
        f"{document.relative_to(ROOT)}: {path}"
        for document in documents
        for path in sorted(cited_paths(document.read_text()))
        if path.startswith("../")
        or not ((ROOT / path).exists() or (document.parent / path).exists())
    ]
    assert missing == []

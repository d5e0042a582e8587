"""Libraries through their public APIs: the names of the private internals once reached into
(http.client's response, prometheus_client's value class, Django's JSONField placeholder) are
nowhere in core or config but the one bulk module, the PostgreSQL fast path."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PRIVATE = re.compile(r"_read_status|_check_close|ValueClass|get_placeholder")
ALLOWED = {ROOT / "core" / "bulk.py"}


def test_no_private_internals_outside_the_bulk_module():
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for folder in ("core", "config")
        for path in sorted((ROOT / folder).rglob("*.py"))
        if path not in ALLOWED
        for number, line in enumerate(path.read_text().splitlines(), start=1)
        if PRIVATE.search(line)
    ]
    assert found == []

"""docs/architecture.md's table of modules names every module of the packages it maps, and
only modules that exist."""

import re

import pytest

from tests.servers import ROOT

DOC = ROOT / "docs" / "architecture.md"
# The packages a newcomer looks for a behaviour in, one module per subject.
MAPPED = (
    "social/connections/services",
    "social/content/services",
    "social/planning/services",
    "social/publishing/services",
    "social/networks",
    "social/providers",
    "social/models",
    "notifications/services",
    "agents/mcp",
    "agents/oauth",
)


def table_paths() -> set[str]:
    """Every `path.py` named in the first cell of a table row of the document."""
    rows = [line for line in DOC.read_text().splitlines() if line.startswith("|")]
    return {path for row in rows for path in re.findall(r"`([\w/]+\.py)`", row.split("|")[1])}


@pytest.mark.parametrize("package", MAPPED)
def test_every_module_of_the_package_is_in_the_table(package):
    """Its modules, and those of its sub-packages (an adapter's package), facades included."""
    modules = {
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / package).rglob("*.py")
        if path != ROOT / package / "__init__.py"
    }

    assert modules  # the package is where the table says
    assert sorted(modules - table_paths()) == []


# The social hub's sub-domains: each one's facade and the modules beside its services.
SUB_DOMAINS = ("social/connections", "social/content", "social/planning", "social/publishing")


@pytest.mark.parametrize("package", SUB_DOMAINS)
def test_every_sub_domain_has_its_facade_and_modules_in_the_table(package):
    modules = {path.relative_to(ROOT).as_posix() for path in (ROOT / package).glob("*.py")}

    assert f"{package}/__init__.py" in modules
    assert sorted(modules - table_paths()) == []


def test_every_module_in_the_table_exists():
    named = table_paths()

    assert {"social/content/services/posts.py", "notifications/services/outbox.py"} <= named
    # Repository paths (the rooms table's `models.py`, `tasks.py` name a file of any app).
    paths = {path for path in named if "/" in path}
    assert sorted(path for path in paths if not (ROOT / path).is_file()) == []


# Issue 41: no module of social over 400 lines. A network's adapter that outgrows one module
# becomes a package (its connection, its media, the adapter), the tables a module per
# sub-domain, a service a module per subject. Migrations are Django's to write.
ROOMS = (
    "social/networks",
    "social/providers",
    "social/models",
    "social/connections",
    "social/content",
    "social/planning",
    "social/publishing",
    "social/api",
    "social",
)
MAX_LINES = 400


@pytest.mark.parametrize("package", ROOMS)
def test_no_module_of_social_is_over_400_lines(package):
    sizes = {
        path.relative_to(ROOT).as_posix(): len(path.read_text().splitlines())
        for path in (ROOT / package).rglob("*.py")
        if "migrations" not in path.parts
    }

    assert sizes
    assert {path: lines for path, lines in sizes.items() if lines > MAX_LINES} == {}

"""Every library the code imports is declared in pyproject.toml: the application's in the
runtime dependencies, the tests', benches' and scripts' there or in `dev`. A library that
arrives only as another's dependency can leave with that one's next release."""

import ast
import sys
import tomllib
from importlib.metadata import packages_distributions

from packaging.requirements import Requirement

from tests.servers import ROOT

APPS = ("config", "core", "accounts", "notifications", "billing", "aitools", "social", "health")
DEV = ("tests", "bench", "scripts")


def normalized(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


def declared() -> tuple[set[str], set[str]]:
    with (ROOT / "pyproject.toml").open("rb") as file:
        project = tomllib.load(file)["project"]
    runtime = {normalized(Requirement(r).name) for r in project["dependencies"]}
    dev = {normalized(Requirement(r).name) for r in project["optional-dependencies"]["dev"]}
    return runtime, dev


def imported(folders: tuple[str, ...]) -> dict[str, str]:
    """Top-level modules imported from outside the project and the standard library, each
    with one file that imports it."""
    local = {path.name for path in ROOT.iterdir() if path.is_dir()} | {"manage"}
    local |= {path.stem for folder in DEV for path in (ROOT / folder).glob("*.py")}
    found: dict[str, str] = {}
    for folder in folders:
        for path in sorted((ROOT / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module]
                else:
                    continue
                for name in names:
                    top = name.split(".")[0]
                    if top not in sys.stdlib_module_names and top not in local:
                        found.setdefault(top, str(path.relative_to(ROOT)))
    return found


def undeclared(folders: tuple[str, ...], allowed: set[str]) -> list[str]:
    providers = packages_distributions()
    return [
        f"{module} ({where})"
        for module, where in sorted(imported(folders).items())
        if not {normalized(dist) for dist in providers.get(module, [module])} & allowed
    ]


def test_the_application_imports_only_runtime_dependencies():
    runtime, _ = declared()
    assert undeclared(APPS, runtime) == []


def test_tests_benches_and_scripts_import_only_declared_dependencies():
    runtime, dev = declared()
    assert undeclared(DEV, runtime | dev) == []

"""What a newcomer finds on arrival: `.env.example`, `.python-version`, the pre-commit hooks
and `make help`, each kept in step with what it describes."""

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

from tests.servers import ROOT

# Read in config/ (settings, the server, the ASGI app); TEST_* belong to the test settings, and
# so does what pytest-xdist sets in its workers.
RUNNER_SET = {"PYTEST_XDIST_WORKER"}
ENV_READ = re.compile(
    r"""(?:env\.(?:str|int|bool|float|list|db)\(\s*|os\.environ\.get\()"([A-Z][A-Z0-9_]*)\""""
)
LARGE_FILES = [sys.executable, str(ROOT / "scripts" / "check_large_files.py")]


def settings_read_from_the_environment() -> set[str]:
    names = set()
    for path in (ROOT / "config").rglob("*.py"):
        names |= set(ENV_READ.findall(path.read_text()))
    return {name for name in names if not name.startswith("TEST_") and name not in RUNNER_SET}


def test_env_example_names_every_setting_the_deployment_reads():
    listed = set(re.findall(r"^# ([A-Z][A-Z0-9_]*)=", (ROOT / ".env.example").read_text(), re.M))

    read = settings_read_from_the_environment()

    assert {"SECRET_KEY", "DATABASE_URL", "WEB_CONCURRENCY"} <= read  # the scan finds them
    assert sorted(read - listed) == []
    assert sorted(listed - read) == []


def test_env_example_copied_as_is_sets_nothing():
    """Every assignment is commented out: a copy changes no default and holds no secret."""
    lines = (ROOT / ".env.example").read_text().splitlines()

    assert [line for line in lines if line.strip() and not line.startswith("#")] == []


def test_python_version_is_the_oldest_python_the_project_supports():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())

    assert (ROOT / ".python-version").read_text() == "3.11\n"
    assert pyproject["project"]["requires-python"] == ">=3.11"
    assert pyproject["tool"]["ruff"]["target-version"] == "py311"


def test_pre_commit_runs_the_projects_own_tools_and_nothing_downloaded():
    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text())

    assert [repo["repo"] for repo in config["repos"]] == ["local"]
    hooks = config["repos"][0]["hooks"]
    assert [hook["entry"] for hook in hooks] == [
        ".venv/bin/ruff check --force-exclude",
        ".venv/bin/ruff format --check --force-exclude",
        ".venv/bin/lint-imports",
        ".venv/bin/python scripts/check_large_files.py --max-kb 500",
    ]
    assert {hook["language"] for hook in hooks} == {"system"}


def git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=repo,
        check=True,
        capture_output=True,
    )


@pytest.fixture
def repo(tmp_path):
    git(tmp_path, "init", "-q")
    (tmp_path / "small.txt").write_bytes(b"x" * 1024)
    (tmp_path / "big.bin").write_bytes(b"x" * 600 * 1024)
    return tmp_path


@pytest.mark.server
def test_large_files_check_refuses_a_large_file_added(repo):
    git(repo, "add", "small.txt", "big.bin")

    done = subprocess.run(
        [*LARGE_FILES, "small.txt", "big.bin"], cwd=repo, capture_output=True, text=True
    )

    assert done.returncode == 1
    assert done.stdout == "big.bin: 600 KB, past 500 KB; keep it out of the repository\n"


@pytest.mark.server
def test_large_files_check_passes_small_files_and_large_ones_already_there(repo):
    git(repo, "add", "big.bin")
    git(repo, "commit", "-q", "-m", "a large file from before the hook")
    (repo / "big.bin").write_bytes(b"y" * 700 * 1024)
    git(repo, "add", "small.txt", "big.bin")

    done = subprocess.run(
        [*LARGE_FILES, "small.txt", "big.bin"], cwd=repo, capture_output=True, text=True
    )

    assert (done.returncode, done.stdout) == (0, "")


def makefile_targets() -> list[str]:
    text = (ROOT / "Makefile").read_text()
    return re.findall(r"^([a-z][a-z0-9-]*)\s*:(?!=)", text, re.M)


@pytest.mark.server
def test_make_help_lists_every_target_once_and_is_the_default():
    targets = makefile_targets()

    listed = [
        subprocess.run(
            ["make", "-s", *goal], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.splitlines()
        for goal in (["help"], [])
    ]

    assert {"run", "test", "bench", "help"} <= set(targets)  # the scan finds them
    assert listed[0] == listed[1]  # plain `make` is `make help`
    named = [line.split()[1] for line in listed[0] if line.startswith("make ")]
    assert sorted(named) == sorted(targets)


def test_app_code_is_formatted_by_ruff_with_at_most_ten_exemptions():
    """Issue 41: `# fmt: skip` at most ten times in the apps, and no `# fmt: off` block."""
    apps = ("accounts", "aitools", "billing", "config", "core", "health", "notifications", "social")
    skips = offs = 0
    for app in apps:
        for path in (ROOT / app).rglob("*.py"):
            text = path.read_text()
            skips += text.count("# fmt: skip")
            offs += text.count("# fmt: off")
    assert skips <= 10
    assert offs == 0

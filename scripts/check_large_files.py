"""Refuses a commit that adds a large file (pre-commit's `large-files` hook, stdlib only).

Given the files pre-commit passes, fails (exit 1) on each one the commit adds (staged with
status A) whose size is past `--max-kb` (500 by default, as pre-commit-hooks'
check-added-large-files): data sets, dumps, wheels and media belong outside the repository.
Files already in the repository may change whatever their size.
"""

import argparse
import subprocess
import sys
from pathlib import Path

DEFAULT_MAX_KB = 500


def added_files() -> set[str]:
    """The paths the commit being made adds (the index against HEAD)."""
    command = ["git", "diff", "--cached", "--name-only", "--diff-filter=A", "-z"]
    # git from PATH, as pre-commit itself runs it; fixed arguments.
    names = subprocess.run(command, capture_output=True, check=True, text=True).stdout  # noqa: S603
    return {name for name in names.split("\0") if name}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("filenames", nargs="*")
    parser.add_argument("--max-kb", type=int, default=DEFAULT_MAX_KB)
    args = parser.parse_args(argv)
    added = added_files()
    too_large = [
        (name, size)
        for name in args.filenames
        if name in added and (size := Path(name).stat().st_size) > args.max_kb * 1024
    ]
    for name, size in too_large:
        print(f"{name}: {size // 1024} KB, past {args.max_kb} KB; keep it out of the repository")
    return 1 if too_large else 0


if __name__ == "__main__":
    sys.exit(main())

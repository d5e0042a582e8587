"""Vulnerability audit of the runtime lock (requirements.txt) with pip-audit, offline-tolerant.

Fails (exit 1) when a locked package has a known vulnerability. When the advisory database
cannot be reached (no network, a registry mirror without PyPI's JSON API), it says "not
audited" and exits 0, instead of claiming "no known vulnerabilities". With network access:
`make audit` (PyPI's advisory data), or `python scripts/audit.py --service osv`.
"""

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT_SECONDS = 300


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--service", default="pypi", choices=["pypi", "osv"])
    parser.add_argument("--requirements", default=str(ROOT / "requirements.txt"))
    args = parser.parse_args()
    command = [
        sys.executable, "-m", "pip_audit", "--requirement", args.requirements, "--require-hashes",
        "--disable-pip", "--progress-spinner=off", "--format=json",
        f"--vulnerability-service={args.service}",
    ]  # fmt: skip
    try:
        done = subprocess.run(  # noqa: S603 (our own interpreter, fixed arguments)
            command, capture_output=True, text=True, timeout=TIMEOUT_SECONDS, check=False
        )
    except subprocess.TimeoutExpired:
        print(f"dependency audit: not audited (no answer within {TIMEOUT_SECONDS} s)")
        return 0
    try:
        report = json.loads(done.stdout)
    except ValueError:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        print(f"dependency audit: not audited (advisory database unreachable: {last[:200]})")
        return 0
    dependencies = report.get("dependencies", [])
    audited = [d for d in dependencies if "skip_reason" not in d]
    vulnerable = [d for d in audited if d.get("vulns")]
    if vulnerable:
        print("dependency audit: KNOWN VULNERABILITIES in the lock:")
        for dep in vulnerable:
            for vuln in dep["vulns"]:
                fixes = ", ".join(vuln.get("fix_versions", [])) or "no fix yet"
                print(f"  {dep['name']} {dep['version']}: {vuln['id']} (fixed in {fixes})")
        return 1
    if not audited:
        print(
            f"dependency audit: not audited ({len(dependencies)} packages; the advisory "
            f"database ({args.service}) could not be reached from here)"
        )
        return 0
    skipped = len(dependencies) - len(audited)
    print(f"dependency audit: {len(audited)} packages audited, none vulnerable ({skipped} skipped)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The fuzz campaign of tests/cli/test_fuzz.py, long, with its counts (issue 15).

    python3 benchmarks/fuzz.py              # hypothesis profile "long": 2,000 examples a campaign (minutes)
    python3 benchmarks/fuzz.py --profile default    # what CI runs: 100 a campaign

Prints, per campaign (league files, manifests, command lines, the issue's cases), how many cases ran and
how they ended (exit statuses, or valid / ConfigError for the parsers); the tests themselves fail on any
other status or on a traceback, so a green run means tracebacks: 0.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", default="long", help="hypothesis profile: long (conftest) or default")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        report = Path(scratch) / "fuzz.json"
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                               str(ROOT / "tests" / "cli" / "test_fuzz.py"), f"--hypothesis-profile={args.profile}"],
                              cwd=ROOT, env={**os.environ, "HEXARENA_FUZZ_REPORT": str(report)}, check=False)
        counts = json.loads(report.read_text()) if report.is_file() else {}
    for campaign, outcomes in sorted(counts.items()):
        total = sum(outcomes.values())
        shown = ", ".join(f"{outcome}: {n}" for outcome, n in sorted(outcomes.items()))
        print(f"{campaign:15} {total:6} cases   {shown}")
    print(f"tracebacks: {'0' if done.returncode == 0 else 'see the failures above'}")
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())

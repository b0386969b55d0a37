#!/usr/bin/env python3
"""Regenerate tests/conformance-required.txt from a full (non-quiet) conformance run.

Usage: python3 ../shared/conformance/run --bin target/release/cqlrs > run.txt
       scripts/required-from-run.py run.txt

Whole groups that pass completely are listed as `group/*`; for the others every passing case is
listed. Cases already required stay required (the list only grows): if one of them failed in
this run the script refuses to write.
"""
import fnmatch, re, subprocess, sys
from collections import defaultdict
from pathlib import Path

root = Path(__file__).resolve().parent.parent
runner = root.parent / "shared" / "conformance" / "run"
required_path = root / "tests" / "conformance-required.txt"

run_text = Path(sys.argv[1]).read_text()
failed = set(re.findall(r"^(?:FAIL|ERROR) (\S+?):", run_text, re.M))
ids = subprocess.run([sys.executable, str(runner), "--list"], capture_output=True, text=True, check=True).stdout.split()
old = [l.strip() for l in required_path.read_text().splitlines() if l.strip() and not l.startswith("#")]
broken = [i for i in ids if i in failed and any(fnmatch.fnmatchcase(i, p) for p in old)]
if broken:
    sys.exit("required cases failed in this run: " + ", ".join(broken))
groups = defaultdict(list)
for i in ids:
    groups[i.rsplit("/", 1)[0]].append(i)
whole = [g for g, cases in groups.items() if not any(c in failed for c in cases)]
lines = ["# Conformance cases that must pass (fnmatch patterns over case ids).",
         "# This list only grows. Whole groups first, then single cases of groups not yet complete.",
         "# Regenerate with scripts/required-from-run.py."]
lines += [f"{g}/*" for g in sorted(whole)]
for g in sorted(set(groups) - set(whole)):
    passing = [c for c in groups[g] if c not in failed]
    lines += ["", f"# {g}: {len(passing)} of {len(groups[g])}"] + passing
required_path.write_text("\n".join(lines) + "\n")
print(f"{required_path}: {sum(len(groups[g]) for g in whole) + sum(1 for g in set(groups)-set(whole) for c in groups[g] if c not in failed)} cases")

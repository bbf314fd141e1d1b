#!/usr/bin/env python3
"""Runs clang-tidy (16 or later: the first that parses libstdc++ 12's std::expected) with the checks
of .clang-tidy over floe's sources under src/, using a build's compile database, and fails on any
finding. By default it checks the .cc files changed since the merge base with main (and the .cc
files that include a changed header); --all checks every .cc under src/. Findings in a header are
printed once, however many files include it.

usage: scripts/clang_tidy.py [-p build/release] [--all | --base REF | FILE...] [-j N]
"""

import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import time

# clang 16 spells C++23 c++2b, and its __cpp_concepts (201907) is below the 202002 that
# libstdc++ 12 asks before it declares std::expected; the compile database is GCC's.
EXTRA_ARGS = ["--extra-arg=-std=c++2b", "--extra-arg=-Wno-builtin-macro-redefined",
              "--extra-arg=-D__cpp_concepts=202002L"]

DIAGNOSTIC = re.compile(r"^(.+?):(\d+):(\d+): (warning|error): (.*?)(?: \[([^\]]+)\])?$")


def find_clang_tidy():
    for name in (os.environ.get("CLANG_TIDY"), "clang-tidy-16", "clang-tidy-17", "clang-tidy-18",
                 "clang-tidy"):
        if not name or not shutil.which(name):
            continue
        out = subprocess.run([name, "--version"], capture_output=True, text=True).stdout
        m = re.search(r"version (\d+)", out)
        if m and int(m.group(1)) >= 16:
            return name
    return None


def git(root, *args):
    p = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True)
    return p.stdout if p.returncode == 0 else None


def changed_files(root, base, sources):
    """The sources changed since the merge base with BASE (committed, staged, unstaged or new), and
    the sources that include a changed header."""
    merge_base = git(root, "merge-base", "HEAD", base)
    if merge_base is None:
        return None
    names = set()
    for args in (["diff", "--name-only", merge_base.strip()], ["ls-files", "--others",
                                                               "--exclude-standard"]):
        out = git(root, *args) or ""
        names |= {n for n in out.splitlines() if n.startswith("src/")}
    picked = {s for s in sources if os.path.relpath(s, root) in names}
    headers = [n[len("src/"):] for n in names if n.endswith(".h")]
    if headers:
        for s in sources:
            if s in picked:
                continue
            with open(s, encoding="utf-8", errors="replace") as f:
                text = f.read()
            if any(f'#include "{h}"' in text for h in headers):
                picked.add(s)
    return sorted(picked)


def run_one(clang_tidy, build, path, timeout, checks, deadline):
    """(path, exit code, output, seconds) of clang-tidy on one file; the code is None when it ran
    out of time and "late" when the run's deadline had passed before it started."""
    start = time.monotonic()
    if start > deadline:
        return path, "late", "", 0.0
    cmd = [clang_tidy, "--quiet", "-p", build, *EXTRA_ARGS]
    if checks:
        cmd.append(f"--checks={checks}")
    try:
        p = subprocess.run([*cmd, path], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:  # subprocess.run has killed it
        return path, None, "", time.monotonic() - start
    return path, p.returncode, p.stdout + p.stderr, time.monotonic() - start


def parse(output, root):
    """(key, text) per diagnostic: its first line (path made relative) and its context lines."""
    found = []
    current = None
    for line in output.splitlines():
        m = DIAGNOSTIC.match(line)
        if m and m.group(4) in ("warning", "error"):
            path = os.path.relpath(os.path.realpath(m.group(1)), root)
            head = f"{path}:{m.group(2)}:{m.group(3)}: {m.group(4)}: {m.group(5)}"
            if m.group(6):
                head += f" [{m.group(6)}]"
            current = [head]
            found.append(current)
        elif current is not None and not re.match(r"^\d+ (warnings?|errors?)( and \d+ errors?)? "
                                                  r"generated", line):
            if line.startswith("Suppressed ") or line.startswith("Use -header-filter"):
                continue
            current.append(line)
    return [(lines[0], "\n".join(lines)) for lines in found]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(here)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-p", dest="build", default=os.path.join(root, "build", "release"),
                        help="build directory holding compile_commands.json (default build/release)")
    parser.add_argument("--all", action="store_true", help="every .cc under src/")
    parser.add_argument("--base", default="main", help="compare with this ref (default main)")
    parser.add_argument("-j", type=int, default=int(os.environ.get("FLOE_JOBS", os.cpu_count())))
    parser.add_argument("--timeout", type=float, default=float(os.environ.get("FLOE_TIDY_TIMEOUT", 180)),
                        help="fail a file whose clang-tidy run takes longer than this many seconds "
                        "(default 180; most take under 15)")
    parser.add_argument("--budget", type=float, default=float(os.environ.get("FLOE_TIDY_BUDGET", 900)),
                        help="start no file after this many seconds of the whole run, and fail "
                        "(default 900; all of src/ takes about 5 minutes on two cores)")
    parser.add_argument("--checks", help="clang-tidy --checks, added to .clang-tidy's (to try a check)")
    parser.add_argument("--times", action="store_true", help="print each file's seconds, slowest first")
    parser.add_argument("files", nargs="*", help="check only these files")
    args = parser.parse_args()

    clang_tidy = find_clang_tidy()
    if clang_tidy is None:
        print("clang_tidy: clang-tidy 16 or later is needed (scripts/setup.sh installs "
              "clang-tidy-16)", file=sys.stderr)
        return 2
    db = os.path.join(args.build, "compile_commands.json")
    try:
        with open(db, encoding="utf-8") as f:
            entries = json.load(f)
    except (OSError, ValueError) as e:
        print(f"clang_tidy: cannot read {db} ({e}); build first: ./floe.sh build release",
              file=sys.stderr)
        return 2
    src = os.path.join(os.path.realpath(root), "src") + os.sep
    sources = sorted({os.path.realpath(os.path.join(e["directory"], e["file"])) for e in entries})
    sources = [s for s in sources if s.startswith(src) and s.endswith(".cc")]

    if args.files:
        wanted = {os.path.realpath(f) for f in args.files}
        unknown = sorted(wanted - set(sources))
        if unknown:
            print(f"clang_tidy: not a source under src/ in {db}: {', '.join(unknown)}",
                  file=sys.stderr)
            return 2
        files = sorted(wanted)
        what = f"{len(files)} named files"
    elif args.all:
        files = sources
        what = f"all {len(files)} files under src/"
    else:
        files = changed_files(os.path.realpath(root), args.base, sources)
        if files is None:
            print(f"clang_tidy: no merge base with '{args.base}'; name files or use --all",
                  file=sys.stderr)
            return 2
        what = f"{len(files)} files changed since the merge base with {args.base}"
    if not files:
        print(f"clang_tidy: nothing to check ({what})")
        return 0

    start = time.monotonic()
    seen = {}
    failed = []
    times = []
    with concurrent.futures.ThreadPoolExecutor(max(1, args.j)) as pool:
        deadline = start + args.budget
        runs = pool.map(
            lambda f: run_one(clang_tidy, args.build, f, args.timeout, args.checks, deadline), files)
        for path, code, output, seconds in runs:
            times.append((seconds, path))
            if code == "late":
                failed.append((path, f"not checked: the run passed its {args.budget:.0f} s budget"))
                continue
            if code is None:
                failed.append((path, f"timed out after {args.timeout:.0f} s (killed); time single "
                               "checks with --checks=-*,CHECK to find the slow one"))
                continue
            found = parse(output, os.path.realpath(root))
            for key, text in found:
                seen.setdefault(key, text)
            if code != 0 and not found:
                failed.append((path, output.strip()))
    for key in sorted(seen):
        print(seen[key])
    for path, output in failed:
        print(f"{os.path.relpath(path, root)}: clang-tidy failed: {output}")
    if args.times:
        for seconds, path in sorted(times, reverse=True):
            print(f"{seconds:7.1f} s  {os.path.relpath(path, root)}")
    elapsed = time.monotonic() - start
    verdict = f"{len(seen)} findings, {len(failed)} files failed" if seen or failed else "clean"
    print(f"clang_tidy: {verdict}, {what}, {elapsed:.0f} s ({clang_tidy}, -j{args.j})",
          file=sys.stderr if seen or failed else sys.stdout)
    return 1 if seen or failed else 0


if __name__ == "__main__":
    sys.exit(main())

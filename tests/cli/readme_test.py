#!/usr/bin/env python3
"""Runs every command block of the README as written, in order, in one fresh directory.

Usage: readme_test.py README.md FLOE_BINARY [--python-path DIR]

A ```sh block runs in one bash session with the blocks before it (so `floe=build/release/floe`
and the files earlier blocks made carry over); a ```python block runs in this interpreter's
environment from the same directory (with DIR on PYTHONPATH, where the build assembles the floe
package). The directory holds build/release/floe (the binary under test) and scripts/ and .venv
from the repository, as a clone would. A block the test cannot run -- it needs a JVM peer, an S3
server, minutes of benchmark -- is preceded by `<!-- readme-test: skip -- REASON -->`, and the
reason must say what runs it instead. Any command that exits non-zero fails the test, naming its
README line. Other fences (yaml, text) are not commands and are left alone.
"""
import glob
import os
import re
import signal
import subprocess
import sys
import tempfile

SKIP = re.compile(r"^<!-- readme-test: skip -- (.+) -->$")
FENCE = re.compile(r"^```(\w*)\s*$")
RUNNABLE = {"sh", "bash", "python"}


def blocks(lines):
    """(language, first line number of the body, body lines, skip reason or None) per fence."""
    out, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m or not m.group(1):
            i += 1
            continue
        lang, start, body = m.group(1), i + 1, []
        i += 1
        while i < len(lines) and not lines[i].startswith("```"):
            body.append(lines[i])
            i += 1
        if i == len(lines):
            sys.exit(f"README line {start}: a ``` block never ends")
        prev = start - 2
        while prev >= 0 and not lines[prev].strip():
            prev -= 1
        skip = SKIP.match(lines[prev]) if prev >= 0 else None
        if prev >= 0 and lines[prev].startswith("<!-- readme-test") and not skip:
            sys.exit(f"README line {prev + 1}: a readme-test marker must read "
                     "'<!-- readme-test: skip -- REASON -->'")
        out.append((lang, start + 1, body, skip.group(1) if skip else None))
        i += 1
    return out


def main():
    args = sys.argv[1:]
    python_path = None
    if "--python-path" in args:
        k = args.index("--python-path")
        python_path = os.path.abspath(args[k + 1])
        del args[k:k + 2]
    if len(args) != 2:
        sys.exit(__doc__)
    readme, floe = os.path.abspath(args[0]), os.path.abspath(args[1])
    repo = os.path.dirname(readme)
    lines = open(readme, encoding="utf-8").read().split("\n")

    script = ["set -euo pipefail", "shopt -s inherit_errexit",
              'trap \'echo "@@failed-at $LINENO" >&2\' ERR']
    where = {}  # script line -> README line
    ran = skipped = 0
    for lang, first, body, reason in blocks(lines):
        if lang not in RUNNABLE:
            if reason:
                sys.exit(f"README line {first - 1}: a skip marker on a {lang} block, which never runs")
            continue
        if reason is not None:
            if len(reason.split()) < 4:
                sys.exit(f"README line {first - 2}: say why the block is skipped and what runs it")
            skipped += 1
            continue
        ran += 1
        script.append(f"echo '@@block {first}' >&2")
        if lang == "python":
            if "import floe" in "\n".join(body) and not python_path:
                sys.exit(f"README line {first}: a block importing floe needs --python-path")
            script.append(f'LD_PRELOAD="$README_PRELOAD" "$README_PYTHON" - <<\'FLOE_README_PY\'')
            where[len(script)] = first
            script.extend(body)
            script.append("FLOE_README_PY")
        else:
            for n, text in enumerate(body):
                script.append(text)
                where[len(script)] = first + n
    if ran == 0:
        sys.exit("README: no runnable block found")

    with tempfile.TemporaryDirectory(prefix="floe-readme-") as work:
        os.makedirs(os.path.join(work, "build", "release"))
        os.symlink(floe, os.path.join(work, "build", "release", "floe"))
        for name in ("scripts", ".venv", ".venv-tpch"):
            if os.path.exists(os.path.join(repo, name)):
                os.symlink(os.path.join(repo, name), os.path.join(work, name))
        path = os.path.join(work, "readme.sh")
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(script) + "\n")
        # HOME is the fresh directory's (no history or settings of the user's), but the project's
        # cache of built servers is the user's. A sanitizer runtime preloaded for the floe
        # package (under ASan) goes to the Python blocks only: curl and the like hang under it.
        cache = os.environ.get("FLOE_CACHE_DIR") or os.path.expanduser("~/.cache/floe")
        env = dict(os.environ, HOME=work, COLUMNS="100", README_PYTHON=sys.executable,
                   FLOE_CACHE_DIR=cache, README_PRELOAD=os.environ.get("LD_PRELOAD", ""))
        env.pop("LD_PRELOAD", None)
        env.pop("FLOE_WAREHOUSE", None)
        env.pop("FLOE_CATALOG", None)
        if python_path:
            env["PYTHONPATH"] = python_path
        try:
            proc = subprocess.run(["bash", path], cwd=work, env=env, stdin=subprocess.DEVNULL,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                  timeout=1200)
        finally:
            # A server a failed block started is stopped: the project's scripts leave DIR/pid.
            for pidfile in glob.glob(os.path.join(work, "*", "pid")):
                try:
                    os.kill(int(open(pidfile).read().strip()), signal.SIGTERM)
                except (OSError, ValueError):
                    pass
        if proc.returncode != 0:
            failed = re.findall(r"@@failed-at (\d+)", proc.stdout)
            line = where.get(int(failed[-1])) if failed else None
            tail = "\n".join(proc.stdout.splitlines()[-40:])
            if line:
                print(f"{tail}\nREADME line {line} failed (exit {proc.returncode}): "
                      f"{lines[line - 1].strip()}")
            else:
                print(f"{tail}\nthe README's blocks failed (exit {proc.returncode})")
            return 1
    print(f"README: {ran} blocks ran, {skipped} skipped with a reason")
    return 0


if __name__ == "__main__":
    sys.exit(main())

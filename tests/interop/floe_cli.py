"""Shared by the interop scripts: run the floe binary (argv[1]) on a warehouse, report checks."""
import subprocess
import sys

FLOE = sys.argv[1] if len(sys.argv) > 1 else "floe"


def floe(warehouse, *args):
    r = subprocess.run([FLOE, "--warehouse", warehouse, "--quiet", *args], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"floe {' '.join(args)} failed ({r.returncode}): {r.stderr.strip()}")
    return r.stdout


def check(cond, what):
    if not cond:
        raise SystemExit(f"FAIL: {what}")
    print(f"ok: {what}")

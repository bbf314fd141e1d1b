#!/usr/bin/env python3
"""Checks that every C/C++ source file under the given directories is compiled by some target: a
.cc that no glob or list picks up (a new subfolder, a module without its floe_module line, a
directory CMake never looks in) would otherwise drop out of the build without a word. Reads the
compile database CMake writes (CMAKE_EXPORT_COMPILE_COMMANDS); prints one line per file it lacks.

usage: scripts/check_sources.py --compile-commands build/release/compile_commands.json DIR...
"""

import argparse
import json
import os
import sys

SOURCE_EXTENSIONS = (".c", ".cc", ".cpp", ".cxx")
SKIP_DIRS = {"build", ".git", ".venv", "node_modules", "__pycache__"}


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", default=os.path.dirname(here), help="the repository (default: ..)")
    parser.add_argument("--compile-commands", required=True, help="compile_commands.json")
    parser.add_argument("dirs", nargs="+", help="directories of ROOT whose sources must be built")
    args = parser.parse_args()
    root = os.path.realpath(args.root)

    try:
        with open(args.compile_commands, encoding="utf-8") as f:
            entries = json.load(f)
    except (OSError, ValueError) as e:
        print(f"check_sources: cannot read {args.compile_commands}: {e}", file=sys.stderr)
        return 2
    compiled = set()
    for entry in entries:
        path = entry["file"]
        if not os.path.isabs(path):
            path = os.path.join(entry.get("directory", ""), path)
        compiled.add(os.path.realpath(path))

    missing = []
    checked = 0
    for top in args.dirs:
        base = os.path.join(root, top)
        if not os.path.isdir(base):
            continue
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS and not d.startswith(".")]
            for name in filenames:
                if not name.endswith(SOURCE_EXTENSIONS):
                    continue
                path = os.path.realpath(os.path.join(dirpath, name))
                checked += 1
                if path not in compiled:
                    missing.append(os.path.relpath(path, root).replace(os.sep, "/"))
    for rel in sorted(missing):
        print(f"{rel}: compiled by no target (not in {args.compile_commands}); add it to a "
              f"module's folder or list it in CMake")
    if missing:
        print(f"check_sources: {len(missing)} source files are not built", file=sys.stderr)
        return 1
    print(f"check_sources: all {checked} source files under {' '.join(args.dirs)} are built")
    return 0


if __name__ == "__main__":
    sys.exit(main())

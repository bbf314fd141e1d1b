#!/usr/bin/env python3
"""Checks that every `#include "floe/<module>/..."` in the tree, and every floe_<module> a module
links in CMakeLists.txt, respects the layer table (scripts/layers.txt). Prints one line per
violation naming the file, the line, what was included and the rule it breaks; exits 1 if any.

usage: scripts/check_layers.py [--root DIR] [--table FILE]
"""

import argparse
import os
import re
import sys

SOURCE_EXTENSIONS = (".h", ".hh", ".hpp", ".c", ".cc", ".cpp", ".cxx", ".ipp", ".inc")
SKIP_DIRS = {"build", ".git", ".venv", "node_modules", "__pycache__"}
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
MODULE_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


class Table:
    """The parsed layer table: module -> listed lower modules, and the directories that may
    include every module."""

    def __init__(self):
        self.deps = {}  # module -> list of modules it lists
        self.lines = {}  # module -> line number in the table
        self.open_dirs = []  # "tools/", ... (each may include every module)
        self.closure = {}  # module -> set of modules it may include (itself included)


def parse_table(path, rel):
    table = Table()
    errors = []
    with open(path, encoding="utf-8") as f:
        for number, raw in enumerate(f, 1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            if ":" not in line:
                errors.append(f"{rel}:{number}: expected 'module: lower modules' or 'dir/: *'")
                continue
            key, _, rest = line.partition(":")
            key, names = key.strip(), rest.split()
            if key.endswith("/"):
                if names != ["*"]:
                    errors.append(f"{rel}:{number}: directory '{key}' takes '*' (every module)")
                table.open_dirs.append(key)
                continue
            if not MODULE_NAME.match(key):
                errors.append(f"{rel}:{number}: '{key}' is not a module name")
                continue
            if key in table.deps:
                errors.append(f"{rel}:{number}: module '{key}' is listed twice "
                              f"(first on line {table.lines[key]})")
                continue
            table.deps[key] = names
            table.lines[key] = number
    for module, names in table.deps.items():
        for name in names:
            if name not in table.deps:
                errors.append(f"{rel}:{table.lines[module]}: module '{module}' lists '{name}', "
                              f"which has no line of its own")
    if errors:
        return table, errors

    state = {}  # module -> "visiting" | "done"

    def close(module, path):
        if state.get(module) == "done":
            return table.closure[module]
        if state.get(module) == "visiting":
            cycle = path[path.index(module):] + [module]
            raise ValueError(" -> ".join(cycle))
        state[module] = "visiting"
        below = {module}
        for name in table.deps[module]:
            below |= close(name, path + [module])
        state[module] = "done"
        table.closure[module] = below
        return below

    for module in table.deps:
        try:
            close(module, [])
        except ValueError as cycle:
            return table, [f"{rel}:{table.lines[module]}: the table has a cycle: {cycle}"]
    return table, []


def allowed_list(table, module):
    below = sorted(table.closure[module] - {module})
    return ", ".join(below) if below else "nothing but itself"


def owner_of(rel_path, table):
    """(kind, name): ("module", m) for src/floe/<m>/..., ("dir", d) for an open directory (tests of
    a module also carry the module's name for the _internal.h rule), or ("stray", None)."""
    parts = rel_path.split("/")
    if parts[0] == "src":
        if len(parts) >= 4 and parts[1] == "floe":
            return "module", parts[2]
        return "stray", None
    for d in table.open_dirs:
        if rel_path.startswith(d):
            return "dir", d
    return None, None


def walk(root, top):
    base = os.path.join(root, top)
    if not os.path.isdir(base):
        return []
    found = []
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS and not d.startswith(".")]
        for name in filenames:
            if name.endswith(SOURCE_EXTENSIONS):
                found.append(os.path.relpath(os.path.join(dirpath, name), root).replace(os.sep, "/"))
    return sorted(found)


def check_includes(root, table, table_rel):
    violations = []
    includes = 0
    files = 0
    seen_modules = set()
    tops = ["src/"] + table.open_dirs
    for top in tops:
        for rel in walk(root, top):
            kind, owner = owner_of(rel, table)
            if kind is None:
                continue
            if kind == "module":
                if owner not in table.deps and owner not in seen_modules:
                    violations.append(f"src/floe/{owner}/: module '{owner}' has no line in "
                                      f"{table_rel}")
                seen_modules.add(owner)
            files += 1
            with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
                lines = f.readlines()
            for number, text in enumerate(lines, 1):
                m = INCLUDE.match(text)
                if not m:
                    continue
                delimiter, target = m.groups()
                closing = ">" if delimiter == "<" else '"'
                where = f"{rel}:{number}: #include {delimiter}{target}{closing}"
                if not target.startswith("floe/"):
                    if kind in ("module", "stray") and delimiter == '"':
                        violations.append(f"{where}: files under src/ include floe's headers by "
                                          f"their full path, \"floe/<module>/...\"")
                    continue
                includes += 1
                parts = target.split("/")
                if len(parts) < 3:
                    violations.append(f"{where}: not a header of a module (floe/<module>/<file>)")
                    continue
                module = parts[1]
                if module not in table.deps:
                    violations.append(f"{where}: '{module}' is not a module of {table_rel}")
                    continue
                if kind == "stray":
                    violations.append(f"{where}: {rel} lies outside src/floe/<module>/, so no "
                                      f"layer may include from it")
                    continue
                if kind == "module" and owner in table.deps and module not in table.closure[owner]:
                    violations.append(f"{where}: {owner} may not include {module} ({table_rel}: "
                                      f"{owner} may include {allowed_list(table, owner)})")
                    continue
                if parts[-1].endswith("_internal.h"):
                    own = owner if kind == "module" else tests_module(rel)
                    if own != module:
                        violations.append(f"{where}: an _internal.h header is included only from "
                                          f"its own module, {module} (src/floe/{module}/, "
                                          f"tests/{module}/)")
    return violations, includes, files


def tests_module(rel):
    parts = rel.split("/")
    if parts[0] == "tests" and len(parts) >= 3:
        return parts[1]
    return None


CMAKE_CALL = re.compile(r"\b(floe_module|target_link_libraries)\s*\(([^)]*)\)", re.S)


def check_cmake(root, table, table_rel):
    path = os.path.join(root, "CMakeLists.txt")
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        text = f.read()
    violations = []
    for m in CMAKE_CALL.finditer(text):
        command, body = m.groups()
        line = text.count("\n", 0, m.start()) + 1
        words = re.sub(r"#[^\n]*", "", body).split()
        if not words:
            continue
        if command == "floe_module":
            module = words[0]
            if module not in table.deps:
                violations.append(f"CMakeLists.txt:{line}: floe_module({module}) has no line in "
                                  f"{table_rel}")
                continue
        else:
            if not words[0].startswith("floe_"):
                continue
            module = words[0][len("floe_"):]
            if module not in table.deps:
                continue  # an executable or a test library: it may link every module
        for word in words[1:]:
            if not word.startswith("floe_"):
                continue
            dep = word[len("floe_"):]
            if dep in table.deps and dep not in table.closure[module]:
                violations.append(f"CMakeLists.txt:{line}: floe_{module} links {word}: {module} "
                                  f"may not depend on {dep} ({table_rel}: {module} may include "
                                  f"{allowed_list(table, module)})")
    return violations


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", default=os.path.dirname(here), help="the repository (default: ..)")
    parser.add_argument("--table", help="the layer table (default: ROOT/scripts/layers.txt)")
    args = parser.parse_args()
    root = os.path.abspath(args.root)
    table_path = args.table or os.path.join(root, "scripts", "layers.txt")
    table_rel = os.path.relpath(table_path, root).replace(os.sep, "/")
    if table_rel.startswith(".."):
        table_rel = table_path
    if not os.path.exists(table_path):
        print(f"check_layers: no layer table at {table_path}", file=sys.stderr)
        return 2

    table, errors = parse_table(table_path, table_rel)
    if errors:
        for e in errors:
            print(e)
        print(f"check_layers: the layer table is not valid ({len(errors)} errors)", file=sys.stderr)
        return 1
    violations, includes, files = check_includes(root, table, table_rel)
    violations += check_cmake(root, table, table_rel)
    for v in violations:
        print(v)
    if violations:
        print(f"check_layers: {len(violations)} violations of {table_rel}", file=sys.stderr)
        return 1
    print(f"check_layers: {includes} includes in {files} files respect {table_rel}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""scripts/check_sources.py on a small tree and a compile database written by the test: a source
file no compile command names is reported by path, and a fully built tree passes."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHECKER = os.path.join(REPO, "scripts", "check_sources.py")


class CheckSourcesTest(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="check_sources_")
        for rel in ("src/floe/base/result.cc", "src/floe/base/result.h",
                    "src/floe/layout/otree/cube.cc", "tools/floe/main.cc",
                    "tests/base/result_test.cc", "build/release/gen/x.cc", "bench/io/main.cc"):
            path = os.path.join(self.root, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            open(path, "w").close()
        self.db = os.path.join(self.root, "build", "release", "compile_commands.json")

    def tearDown(self):
        shutil.rmtree(self.root)

    def write_db(self, files):
        build = os.path.join(self.root, "build", "release")
        entries = [{"directory": build, "file": f if os.path.isabs(f) else os.path.join(self.root, f),
                    "command": "c++ -c"} for f in files]
        # Relative to the entry's directory, as some generators write them.
        entries.append({"directory": build, "file": "../../tools/floe/main.cc", "command": "c++"})
        with open(self.db, "w") as f:
            json.dump(entries, f)

    def run_checker(self, *dirs):
        p = subprocess.run([sys.executable, CHECKER, "--root", self.root, "--compile-commands",
                            self.db, *dirs], capture_output=True, text=True)
        return p.returncode, p.stdout.splitlines(), p.stderr.strip()

    def test_a_source_in_a_subfolder_that_no_target_compiles_is_named(self):
        self.write_db(["src/floe/base/result.cc"])
        code, out, err = self.run_checker("src", "tools", "tests")
        self.assertEqual(code, 1)
        self.assertEqual(out, [
            f"src/floe/layout/otree/cube.cc: compiled by no target (not in {self.db}); add it to "
            "a module's folder or list it in CMake",
            f"tests/base/result_test.cc: compiled by no target (not in {self.db}); add it to "
            "a module's folder or list it in CMake",
        ])
        self.assertEqual(err, "check_sources: 2 source files are not built")

    def test_every_source_built_passes_and_unlisted_directories_are_not_looked_at(self):
        self.write_db(["src/floe/base/result.cc", "src/floe/layout/otree/cube.cc",
                       "tests/base/result_test.cc"])
        code, out, err = self.run_checker("src", "tools", "tests", "python")
        self.assertEqual((code, err), (0, ""))
        self.assertEqual(out, ["check_sources: all 4 source files under src tools tests python "
                               "are built"])


if __name__ == "__main__":
    unittest.main()

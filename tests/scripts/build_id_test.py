#!/usr/bin/env python3
"""scripts/build_id.cmake, the build-time writer of created_by's build id, run as the floe_build_id
target runs it, in a git repository made by the test: the header names the checked-out commit,
names the next commit after one is made, is left untouched (same bytes, same mtime) when nothing
changed, and says "unknown" outside git."""

import os
import shutil
import subprocess
import tempfile
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(REPO, "scripts", "build_id.cmake")
OLD = 1_000_000_000  # an mtime long past, so "rewritten" cannot hide in the clock's resolution


def header(build_id):
    return ("// The commit this build of floe was made from, written at build time by\n"
            "// scripts/build_id.cmake (Parquet's created_by names it).\n"
            "#pragma once\n"
            f'#define FLOE_BUILD_ID "{build_id}"\n')


class BuildIdTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="build_id_")
        self.source = os.path.join(self.dir, "source")
        self.out = os.path.join(self.dir, "build", "gen", "floe", "parquet", "build_id.h")
        os.makedirs(self.source)

    def tearDown(self):
        shutil.rmtree(self.dir)

    def git(self, *args):
        env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.invalid",
                   GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.invalid")
        return subprocess.run(["git", "-C", self.source, *args], check=True, env=env,
                              capture_output=True, text=True).stdout.strip()

    def commit(self, text):
        with open(os.path.join(self.source, "file.txt"), "w") as f:
            f.write(text)
        self.git("add", "file.txt")
        self.git("commit", "-q", "-m", text)
        return self.git("rev-parse", "--short=12", "HEAD")

    def run_script(self):
        subprocess.run(["cmake", f"-DSOURCE_DIR={self.source}", f"-DOUTPUT={self.out}", "-P",
                        SCRIPT], check=True)
        with open(self.out) as f:
            return f.read()

    def test_the_header_follows_the_commit_and_is_rewritten_only_when_it_changes(self):
        self.git("init", "-q")
        first = self.commit("one")
        self.assertRegex(first, "^[0-9a-f]{12}$")
        self.assertEqual(self.run_script(), header(first))

        os.utime(self.out, (OLD, OLD))
        self.assertEqual(self.run_script(), header(first))
        self.assertEqual(os.stat(self.out).st_mtime, OLD)

        second = self.commit("two")
        self.assertNotEqual(second, first)
        self.assertEqual(self.run_script(), header(second))
        self.assertNotEqual(os.stat(self.out).st_mtime, OLD)

    def test_outside_git_the_id_is_unknown(self):
        env_ceiling = os.environ.get("GIT_CEILING_DIRECTORIES")
        os.environ["GIT_CEILING_DIRECTORIES"] = self.dir
        try:
            self.assertEqual(self.run_script(), header("unknown"))
        finally:
            if env_ceiling is None:
                del os.environ["GIT_CEILING_DIRECTORIES"]
            else:
                os.environ["GIT_CEILING_DIRECTORIES"] = env_ceiling


if __name__ == "__main__":
    unittest.main()

#!/usr/bin/env python3
"""scripts/check_layers.py on small trees built in a temporary directory, under the repository's own
layer table: what it accepts, and the exact line it prints for each kind of violation."""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHECKER = os.path.join(REPO, "scripts", "check_layers.py")
TABLE = os.path.join(REPO, "scripts", "layers.txt")


class CheckLayersTest(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="check_layers_")
        os.makedirs(os.path.join(self.root, "scripts"))
        shutil.copy(TABLE, os.path.join(self.root, "scripts", "layers.txt"))
        self.write("src/floe/base/result.h", "#pragma once\n")
        self.write("src/floe/columnar/column.h", '#include "floe/base/result.h"\n')

    def tearDown(self):
        shutil.rmtree(self.root)

    def write(self, rel, text):
        path = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)

    def run_checker(self, *extra):
        p = subprocess.run([sys.executable, CHECKER, "--root", self.root, *extra],
                           capture_output=True, text=True)
        return p.returncode, p.stdout.splitlines(), p.stderr.strip()

    def test_includes_below_and_transitively_below_pass(self):
        self.write("src/floe/layout/row_order.cc",
                   '#include "floe/layout/row_order.h"\n#include "floe/columnar/column.h"\n'
                   '#include "floe/base/result.h"\n#include <vector>\n')
        self.write("src/floe/iceberg/data_writer.cc",
                   '#include "floe/layout/row_order.h"\n#include "floe/io/object_store.h"\n'
                   '#include "floe/parquet/writer.h"\n')
        self.write("src/floe/sql/engine.cc", '#include "floe/exec/sort.h"\n')
        self.write("tools/floe/main.cc", '#include "cli.h"\n#include "floe/sql/engine.h"\n')
        self.write("bench/query/main.cc", '#include "floe/bench/runner.h"\n')
        self.write("tests/parquet/thrift_test.cc", '#include "floe/parquet/thrift_internal.h"\n')
        code, out, err = self.run_checker()
        self.assertEqual((code, err), (0, ""))
        self.assertEqual(out, ["check_layers: 11 includes in 8 files respect scripts/layers.txt"])

    def test_an_include_of_a_module_not_below_names_file_line_include_and_rule(self):
        self.write("src/floe/parquet/writer.cc",
                   '#include "floe/parquet/writer.h"\n\n#include "floe/layout/file_cut.h"\n')
        self.write("src/floe/layout/row_order.cc", '  #  include <floe/parquet/schema.h>\n')
        self.write("src/floe/iceberg/scan.cc", '#include "floe/exec/filter.h"\n')
        code, out, err = self.run_checker()
        self.assertEqual(code, 1)
        self.assertEqual(out, [
            'src/floe/iceberg/scan.cc:1: #include "floe/exec/filter.h": iceberg may not include '
            'exec (scripts/layers.txt: iceberg may include avro, base, catalog, columnar, io, '
            'layout, parquet)',
            "src/floe/layout/row_order.cc:1: #include <floe/parquet/schema.h>: layout may not "
            "include parquet (scripts/layers.txt: layout may include base, columnar)",
            'src/floe/parquet/writer.cc:3: #include "floe/layout/file_cut.h": parquet may not '
            'include layout (scripts/layers.txt: parquet may include base, columnar, io)',
        ])
        self.assertEqual(err, "check_layers: 3 violations of scripts/layers.txt")

    def test_internal_headers_stay_in_their_module_and_its_tests(self):
        self.write("src/floe/iceberg/scan_reader.cc", '#include "floe/parquet/thrift_internal.h"\n')
        self.write("tools/floe/parquet.cc", '#include "floe/parquet/bit_util_internal.h"\n')
        self.write("tests/iceberg/scan_test.cc", '#include "floe/parquet/thrift_internal.h"\n')
        self.write("src/floe/parquet/footer.cc", '#include "floe/parquet/thrift_internal.h"\n')
        self.write("tests/parquet/footer_test.cc", '#include "floe/parquet/thrift_internal.h"\n')
        code, out, _ = self.run_checker()
        self.assertEqual(code, 1)
        rule = ("an _internal.h header is included only from its own module, parquet "
                "(src/floe/parquet/, tests/parquet/)")
        self.assertEqual(out, [
            f'src/floe/iceberg/scan_reader.cc:1: #include "floe/parquet/thrift_internal.h": {rule}',
            f'tools/floe/parquet.cc:1: #include "floe/parquet/bit_util_internal.h": {rule}',
            f'tests/iceberg/scan_test.cc:1: #include "floe/parquet/thrift_internal.h": {rule}',
        ])

    def test_unknown_modules_relative_includes_and_stray_files(self):
        self.write("src/floe/otree/cube.h", "#pragma once\n")
        self.write("src/floe/exec/sort.cc", '#include "floe/otree/cube.h"\n#include "../io/x.h"\n')
        self.write("src/floe/helpers.h", '#include "floe/base/result.h"\n')
        self.write("tools/floe/main.cc", '#include "floe/widgets.h"\n')
        code, out, _ = self.run_checker()
        self.assertEqual(code, 1)
        self.assertEqual(out, [
            'src/floe/exec/sort.cc:1: #include "floe/otree/cube.h": \'otree\' is not a module '
            'of scripts/layers.txt',
            'src/floe/exec/sort.cc:2: #include "../io/x.h": files under src/ include floe\'s '
            'headers by their full path, "floe/<module>/..."',
            'src/floe/helpers.h:1: #include "floe/base/result.h": src/floe/helpers.h lies outside '
            'src/floe/<module>/, so no layer may include from it',
            "src/floe/otree/: module 'otree' has no line in scripts/layers.txt",
            'tools/floe/main.cc:1: #include "floe/widgets.h": not a header of a module '
            '(floe/<module>/<file>)',
        ])

    def test_cmake_links_follow_the_table(self):
        self.write("CMakeLists.txt",
                   "floe_module(base DEPS fmt::fmt)\n"
                   "floe_module(layout DEPS floe_base floe_columnar)\n"
                   "floe_module(parquet DEPS floe_base floe_columnar floe_io\n"
                   "            floe_layout ZLIB::ZLIB)  # a comment naming floe_sql\n"
                   "target_link_libraries(floe_parquet PRIVATE PkgConfig::XXHASH floe_iceberg)\n"
                   "target_link_libraries(floe PRIVATE floe_sql floe_bench)\n"
                   "floe_module(otree DEPS floe_layout)\n")
        code, out, _ = self.run_checker()
        self.assertEqual(code, 1)
        self.assertEqual(out, [
            "CMakeLists.txt:3: floe_parquet links floe_layout: parquet may not depend on layout "
            "(scripts/layers.txt: parquet may include base, columnar, io)",
            "CMakeLists.txt:5: floe_parquet links floe_iceberg: parquet may not depend on iceberg "
            "(scripts/layers.txt: parquet may include base, columnar, io)",
            "CMakeLists.txt:7: floe_module(otree) has no line in scripts/layers.txt",
        ])

    def test_a_table_with_a_cycle_or_an_unknown_module_is_refused(self):
        self.write("scripts/layers.txt", "base:\nio: base\nparquet: io iceberg\niceberg: parquet\n")
        code, out, err = self.run_checker()
        self.assertEqual(code, 1)
        self.assertEqual(out, ["scripts/layers.txt:3: the table has a cycle: "
                               "parquet -> iceberg -> parquet"])
        self.assertEqual(err, "check_layers: the layer table is not valid (1 errors)")
        self.write("scripts/layers.txt", "base:\nio: base\nio: columnar\nparquet: columnar\n"
                   "tools/: base\n")
        code, out, _ = self.run_checker()
        self.assertEqual(code, 1)
        self.assertEqual(out, [
            "scripts/layers.txt:3: module 'io' is listed twice (first on line 2)",
            "scripts/layers.txt:5: directory 'tools/' takes '*' (every module)",
            "scripts/layers.txt:4: module 'parquet' lists 'columnar', which has no line of its own",
        ])


if __name__ == "__main__":
    unittest.main()

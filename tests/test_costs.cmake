# Included by ctest after the GoogleTest suites are discovered (tests/CMakeLists.txt): the
# longest of their tests with their seconds under the sanitizers as COST, so that `ctest -j`
# starts them first even without an earlier run's timings (CI tests a fresh clone): a long
# test started last runs alone at the end. A name that no longer exists is ignored.
set_tests_properties(parquet.CorruptFileTest.ParquetMrFileWithTinyPages PROPERTIES COST 330)
set_tests_properties(parquet.CorruptFileTest.FloeFileWithV2Pages PROPERTIES COST 160)
set_tests_properties(parquet.CorruptFileTest.FloeFileWithV1Pages PROPERTIES COST 165)
set_tests_properties(sql.ChapterTest.Dimension PROPERTIES COST 130)
set_tests_properties(iceberg.FileSize.EveryFileButTheLastIsWithinTenPercentOfTheTarget
                     PROPERTIES COST 35)

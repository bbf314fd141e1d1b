# Included by ctest after the GoogleTest suites are discovered (tests/CMakeLists.txt): the
# longest of their tests with their seconds under the sanitizers as COST, so that `ctest -j`
# starts them first even without an earlier run's timings (CI tests a fresh clone): a long
# test started last runs alone at the end. A name that no longer exists is ignored.
set_tests_properties(parquet.CorruptFileTest.ParquetMrFileWithTinyPages PROPERTIES COST 400)
set_tests_properties(parquet.CorruptFileTest.FloeFileWithV2Pages PROPERTIES COST 270)
set_tests_properties(parquet.CorruptFileTest.FloeFileWithV1Pages PROPERTIES COST 270)
set_tests_properties(sql.ChapterTest.Dimension PROPERTIES COST 180)
set_tests_properties(iceberg.FileSize.EveryFileButTheLastIsWithinTenPercentOfTheTarget
                     PROPERTIES COST 75)

# Writes OUTPUT, a header defining FLOE_BUILD_ID as the commit SOURCE_DIR has checked out (12 hex
# digits; "unknown" outside a git checkout), the id a Parquet file's created_by names. Run at build
# time by the floe_build_id target, so a rebuild after a new commit names the new one; the header
# is rewritten only when the id changes, so a build with nothing new recompiles nothing.
#   cmake -DSOURCE_DIR=DIR -DOUTPUT=FILE [-DGIT=git] -P scripts/build_id.cmake
if(NOT GIT)
  set(GIT git)
endif()
execute_process(COMMAND ${GIT} rev-parse --short=12 HEAD WORKING_DIRECTORY ${SOURCE_DIR}
                RESULT_VARIABLE status OUTPUT_VARIABLE id OUTPUT_STRIP_TRAILING_WHITESPACE
                ERROR_QUIET)
if(NOT status EQUAL 0 OR NOT id MATCHES "^[0-9a-f]+$")
  set(id "unknown")
endif()
string(CONCAT text "// The commit this build of floe was made from, written at build time by\n"
         "// scripts/build_id.cmake (Parquet's created_by names it).\n"
         "#pragma once\n"
         "#define FLOE_BUILD_ID \"${id}\"\n")
set(old "")
if(EXISTS ${OUTPUT})
  file(READ ${OUTPUT} old)
endif()
if(NOT old STREQUAL text)
  file(WRITE ${OUTPUT} "${text}")
endif()

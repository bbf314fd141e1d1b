// Re-running the test binary as a child process, for tests of what happens across processes (two
// writers racing on one store or one table): the child runs one (disabled) test, selected by its
// filter, with one extra environment variable telling it what to do; stdout goes to /dev/null.
#pragma once

#include <sys/types.h>

#include <string>

namespace floe::testing {

// Starts this binary with `--gtest_filter=<test> --gtest_also_run_disabled_tests` and `env_name`
// set to `env_value` (replacing any value it had). The child's pid, or -1 when it cannot start.
pid_t SpawnSelf(const std::string& test, const std::string& env_name, const std::string& env_value);

}  // namespace floe::testing

#include "support/child_process.h"

#include <fcntl.h>
#include <spawn.h>
#include <unistd.h>

#include <string_view>
#include <vector>

extern char** environ;

namespace floe::testing {

pid_t SpawnSelf(const std::string& test, const std::string& env_name,
                const std::string& env_value) {
  const std::string prefix = env_name + "=";
  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) {
    if (!std::string_view(*e).starts_with(prefix)) env_strings.emplace_back(*e);
  }
  env_strings.push_back(prefix + env_value);
  std::vector<char*> envp;
  envp.reserve(env_strings.size() + 1);
  for (auto& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::string exe = "/proc/self/exe";
  std::string filter = "--gtest_filter=" + test;
  std::string also = "--gtest_also_run_disabled_tests";
  std::vector<char*> argv = {exe.data(), filter.data(), also.data(), nullptr};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, exe.c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  return rc == 0 ? pid : -1;
}

}  // namespace floe::testing

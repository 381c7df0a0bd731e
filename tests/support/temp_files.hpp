// Files for tests: a fresh folder per test case, and reading a file back whole.
#pragma once

#include <filesystem>
#include <string>

namespace isoflop::test {

// An empty folder <temp>/<prefix>-<pid>-<name>, emptied first if a crashed run left it: the pid keeps test
// processes that ctest runs side by side apart. Removed with its contents when the test process exits.
std::filesystem::path fresh_temp_dir(const std::string& prefix, const std::string& name);

// The file's bytes; "" when it cannot be read.
std::string read_file(const std::filesystem::path& path);

}  // namespace isoflop::test

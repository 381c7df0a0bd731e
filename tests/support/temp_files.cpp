// Files for tests (see temp_files.hpp).
#include "support/temp_files.hpp"

#include <unistd.h>

#include <fstream>
#include <sstream>
#include <system_error>
#include <vector>

namespace isoflop::test {

namespace {

// The folders this test process made, removed when it exits (a crashed process leaves its own behind, and the
// next run with the same pid empties them first). Test code only: the tool itself keeps no globals.
struct MadeFolders {
  std::vector<std::filesystem::path> paths;
  ~MadeFolders() {
    std::error_code ignored;
    for (const auto& p : paths) std::filesystem::remove_all(p, ignored);
  }
};

MadeFolders& made_folders() {
  static MadeFolders folders;
  return folders;
}

}  // namespace

std::filesystem::path fresh_temp_dir(const std::string& prefix, const std::string& name) {
  const std::filesystem::path p =
      std::filesystem::temp_directory_path() / (prefix + "-" + std::to_string(::getpid()) + "-" + name);
  std::filesystem::remove_all(p);
  std::filesystem::create_directories(p);
  made_folders().paths.push_back(p);
  return p;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace isoflop::test

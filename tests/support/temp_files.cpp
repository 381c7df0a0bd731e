// Files for tests (see temp_files.hpp).
#include "support/temp_files.hpp"

#include <unistd.h>

#include <fstream>
#include <sstream>

namespace isoflop::test {

std::filesystem::path fresh_temp_dir(const std::string& prefix, const std::string& name) {
  const std::filesystem::path p =
      std::filesystem::temp_directory_path() / (prefix + "-" + std::to_string(::getpid()) + "-" + name);
  std::filesystem::remove_all(p);
  std::filesystem::create_directories(p);
  return p;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace isoflop::test

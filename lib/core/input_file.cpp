// Reading whole inputs: files and standard input.
#include "core/input_file.hpp"

#include <glob.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <iterator>

#include "core/error.hpp"
#include "core/output_path.hpp"

namespace isoflop {

std::vector<std::string> expand_input_patterns(const std::vector<std::string>& patterns) {
  std::vector<std::string> paths;
  for (const auto& p : patterns) {
    std::error_code ec;
    if (p.find_first_of("*?[") == std::string::npos || std::filesystem::exists(p, ec)) {
      paths.push_back(p);
      continue;
    }
    glob_t found{};
    const int status = ::glob(p.c_str(), 0, nullptr, &found);  // sorted, as the shell sorts
    if (status == 0)
      for (size_t i = 0; i < found.gl_pathc; ++i) paths.emplace_back(found.gl_pathv[i]);
    ::globfree(&found);
    if (status != 0) throw InputError(p + ": matches no file");
  }
  return paths;
}

std::string input_name(const std::string& path) { return path == "-" ? "<stdin>" : path; }

std::string read_input_text(const std::string& path) {
  if (path.empty()) throw InputError("empty file name");
  auto too_large = [](const std::string& name) {
    return InputError(name + ": more than " + std::to_string(kMaxInputBytes >> 20) +
                      " MiB; isoflop reads documents, proposals, run tables and launch configs of at most that");
  };
  if (path == "-") {
    note_input_fd(0);
    std::string text;
    char buffer[1 << 16];
    while (std::cin.read(buffer, sizeof buffer) || std::cin.gcount() > 0) {
      text.append(buffer, static_cast<size_t>(std::cin.gcount()));
      if (text.size() > kMaxInputBytes) throw too_large("<stdin>");
    }
    if (std::cin.bad()) throw InputError("<stdin>: cannot read");
    return text;
  }
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw InputError(path + ": cannot read: is a directory");
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw InputError(path + ": cannot read: " + std::strerror(errno));
  note_input(path);
  std::string text;
  char buffer[1 << 16];
  size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, f)) > 0) {
    text.append(buffer, n);
    if (text.size() > kMaxInputBytes) {  // an endless device (/dev/zero) or a file that is not an input
      std::fclose(f);
      throw too_large(path);
    }
  }
  const bool failed = std::ferror(f) != 0;
  std::fclose(f);
  if (failed) throw InputError(path + ": cannot read: " + std::strerror(errno));
  return text;
}

}  // namespace isoflop

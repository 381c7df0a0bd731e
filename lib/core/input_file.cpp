// Reading whole inputs: files and standard input.
#include "core/input_file.hpp"

#include <glob.h>
#include <sys/stat.h>

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
  auto too_large = [](const std::string& name, size_t limit) {
    return InputError(name + ": more than " + std::to_string(limit >> 20) +
                      " MiB; isoflop reads documents, proposals, run tables and launch configs of at most that");
  };
  if (path == "-") {
    note_input_fd(0);
    std::string text;
    char buffer[1 << 16];
    while (std::cin.read(buffer, sizeof buffer) || std::cin.gcount() > 0) {
      text.append(buffer, static_cast<size_t>(std::cin.gcount()));
      if (text.size() > kMaxStreamBytes) throw too_large("<stdin>", kMaxStreamBytes);
    }
    if (std::cin.bad()) throw InputError("<stdin>: cannot read");
    return text;
  }
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw InputError(path + ": cannot read: is a directory");
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw InputError(path + ": cannot read: " + std::strerror(errno));
  note_input(path);
  // A regular file ends where its size says (a long run's results.json, one curve point per step, may pass
  // 64 MiB); a device, FIFO or pipe may never end.
  struct stat st {};
  const size_t limit = ::fstat(::fileno(f), &st) == 0 && S_ISREG(st.st_mode) ? kMaxFileBytes : kMaxStreamBytes;
  std::string text;
  char buffer[1 << 16];
  size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, f)) > 0) {
    text.append(buffer, n);
    if (text.size() > limit) {  // an endless device (/dev/zero) or a file that is not an input
      std::fclose(f);
      throw too_large(path, limit);
    }
  }
  const bool failed = std::ferror(f) != 0;
  std::fclose(f);
  if (failed) throw InputError(path + ": cannot read: " + std::strerror(errno));
  return text;
}

}  // namespace isoflop

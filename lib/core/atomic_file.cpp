// Atomic file writes: write to "<path>.tmp.<pid>", flush, rename.
#include "core/atomic_file.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "core/error.hpp"

namespace isoflop {

void write_file_atomically(const std::string& path, const std::string& content, const std::string& what) {
  const std::string temp = path + ".tmp." + std::to_string(::getpid());
  std::FILE* f = std::fopen(temp.c_str(), "wb");
  if (!f) throw InputError(what + ": cannot write '" + path + "': " + std::strerror(errno));
  const bool written = std::fwrite(content.data(), 1, content.size(), f) == content.size();
  const bool flushed = std::fflush(f) == 0 && ::fsync(::fileno(f)) == 0;
  const bool closed = std::fclose(f) == 0;
  if (!written || !flushed || !closed) {
    const std::string reason = std::strerror(errno);
    std::remove(temp.c_str());
    throw InputError(what + ": cannot write '" + path + "': " + reason);
  }
  std::error_code ec;
  std::filesystem::rename(temp, path, ec);
  if (ec) {
    std::remove(temp.c_str());
    throw InputError(what + ": cannot write '" + path + "': " + ec.message());
  }
}

}  // namespace isoflop

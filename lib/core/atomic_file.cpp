// Atomic file writes: an exclusive temporary file beside the target, written, synced, renamed.
#include "core/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "core/error.hpp"

namespace isoflop {
namespace {

std::string cannot_write(const std::string& what, const std::string& path, const std::string& reason) {
  return what + ": cannot write '" + path + "': " + reason;
}

}  // namespace

std::string write_temporary_beside(const std::string& path, const std::string& content, const std::string& what,
                                   unsigned mode) {
  static std::atomic<unsigned> counter{0};
  const std::filesystem::path target(path);
  const std::filesystem::path dir = target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
  int fd = -1;
  std::string temp;
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    temp = (dir / ("." + target.filename().string() + ".isoflop-tmp." + std::to_string(::getpid()) + "." +
                   std::to_string(counter++)))
               .string();
    fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, static_cast<mode_t>(mode));
    if (fd < 0 && errno != EEXIST) throw InputError(cannot_write(what, path, std::strerror(errno)));
  }
  if (fd < 0) throw InputError(cannot_write(what, path, "no free temporary name in its folder"));
  const char* data = content.data();
  size_t left = content.size();
  int error = 0;
  while (left > 0 && error == 0) {
    const ssize_t n = ::write(fd, data, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error = n < 0 ? errno : EIO;
      break;
    }
    data += n;
    left -= static_cast<size_t>(n);
  }
  if (error == 0 && ::fsync(fd) != 0) error = errno;
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error != 0) {
    ::unlink(temp.c_str());
    throw InputError(cannot_write(what, path, std::strerror(error)));
  }
  return temp;
}

void write_file_atomically(const std::string& path, const std::string& content, const std::string& what) {
  const std::string temp = write_temporary_beside(path, content, what, 0666);
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    const int error = errno;
    ::unlink(temp.c_str());
    throw InputError(cannot_write(what, path, std::strerror(error)));
  }
}

}  // namespace isoflop

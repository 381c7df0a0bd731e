// Atomic file writes: an exclusive temporary file beside the target, written, synced, renamed.
#include "core/atomic_file.hpp"

#include <fcntl.h>
#include <signal.h>
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

constexpr const char* kTemporaryMark = ".isoflop-tmp.";

// The writer's pid in a temporary file's name, or 0 when the name is not one of ours.
long long temporary_writer(const std::string& filename) {
  const size_t mark = filename.find(kTemporaryMark);
  if (filename.empty() || filename[0] != '.' || mark == std::string::npos || mark < 2) return 0;
  const std::string rest = filename.substr(mark + std::char_traits<char>::length(kTemporaryMark));
  const size_t dot = rest.find('.');
  if (dot == 0 || dot == std::string::npos || dot + 1 == rest.size() || dot > 10) return 0;
  if (rest.find_first_not_of("0123456789.") != std::string::npos || rest.find('.', dot + 1) != std::string::npos)
    return 0;
  return std::stoll(rest.substr(0, dot));
}

bool process_running(long long pid) {
  if (pid <= 0 || pid > 0x7fffffff) return false;
  return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;
}

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
    temp = (dir / ("." + target.filename().string() + kTemporaryMark + std::to_string(::getpid()) + "." +
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

bool is_temporary_name(const std::string& filename) { return temporary_writer(filename) > 0; }

std::vector<std::string> remove_stale_temporaries(const std::string& folder) {
  std::vector<std::string> removed;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(folder, ec)) {
    const long long writer = temporary_writer(entry.path().filename().string());
    if (writer <= 0 || writer == ::getpid() || process_running(writer)) continue;
    std::error_code type_ec;
    if (!entry.is_regular_file(type_ec) || entry.is_symlink(type_ec)) continue;
    if (std::filesystem::remove(entry.path(), type_ec)) removed.push_back(entry.path().string());
  }
  return removed;
}

}  // namespace isoflop

// Folder locks: flock on a lock file that names its holder.
#include "core/folder_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <utility>

#include "core/error.hpp"

namespace isoflop {
namespace {

// The pid the holder wrote into the lock file, or "" when it cannot be read.
std::string holder_pid(int fd) {
  char buffer[32] = {};
  const ssize_t n = ::pread(fd, buffer, sizeof buffer - 1, 0);
  if (n <= 0) return "";
  std::string text(buffer, static_cast<size_t>(n));
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) return "";
  return text;
}

}  // namespace

FolderLock::FolderLock(const std::string& folder, const std::string& what) : folder_(folder) {
  const std::string path = (std::filesystem::path(folder) / kFolderLockName).string();
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd_ < 0)
    throw InputError(what + " '" + folder + "': cannot open its lock file '" + path + "': " + std::strerror(errno));
  int rc;
  do rc = ::flock(fd_, LOCK_EX | LOCK_NB);
  while (rc != 0 && errno == EINTR);
  if (rc != 0) {
    const int error = errno;
    const std::string pid = holder_pid(fd_);
    ::close(fd_);
    fd_ = -1;
    if (error == EWOULDBLOCK)
      throw InputError(what + " '" + folder + "' is in use by " + (pid.empty() ? std::string("another process") : "pid " + pid) +
                       "; wait for it to finish or use another folder");
    throw InputError(what + " '" + folder + "': cannot lock '" + path + "': " + std::strerror(error));
  }
  // The holder's pid, for the message the next process prints; the lock itself is the flock.
  const std::string pid = std::to_string(::getpid()) + "\n";
  const bool recorded =
      ::ftruncate(fd_, 0) == 0 && ::pwrite(fd_, pid.data(), pid.size(), 0) == static_cast<ssize_t>(pid.size());
  (void)recorded;  // without it the lock still holds; a second process then says "another process"
}

FolderLock::FolderLock(FolderLock&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), folder_(std::move(other.folder_)) {}

FolderLock& FolderLock::operator=(FolderLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    folder_ = std::move(other.folder_);
  }
  return *this;
}

FolderLock::~FolderLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the last descriptor releases the flock
}

}  // namespace isoflop

// An exclusive lock on a folder for as long as a process works in it (a training run's output folder), so
// that a second process refuses to start instead of overwriting the first one's files.
#pragma once

#include <string>

namespace isoflop {

// The lock file a FolderLock holds in its folder.
inline constexpr const char* kFolderLockName = ".isoflop.lock";

// flock(2) on <folder>/.isoflop.lock, which records the holder's pid. The kernel releases the lock when the
// holder exits, however it exits (a kill -9 leaves no stale lock); the file itself stays.
class FolderLock {
 public:
  FolderLock() = default;
  // Takes the lock on `folder` (which must exist). Throws InputError "output folder 'x' is in use by pid N"
  // (`what` names the folder's role) when another process holds it, or naming the reason when the lock file
  // cannot be opened.
  FolderLock(const std::string& folder, const std::string& what);
  FolderLock(FolderLock&& other) noexcept;
  FolderLock& operator=(FolderLock&& other) noexcept;
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;
  ~FolderLock();

  bool held() const { return fd_ >= 0; }
  const std::string& folder() const { return folder_; }

 private:
  int fd_ = -1;
  std::string folder_;
};

}  // namespace isoflop

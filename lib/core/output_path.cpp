// The rules for output paths: refuse inputs, folders, devices and (unless allowed) existing files; write
// through an exclusive temporary file; say where a symbolic link leads.
#include "core/output_path.hpp"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <utility>
#include <vector>

#include "core/atomic_file.hpp"
#include "core/error.hpp"

namespace isoflop {
namespace {

// A file the command reads, by identity. Its path (empty for standard input) is checked again before the
// identity is trusted: once the file is deleted its inode number may be given to a new file, which is then no
// input at all (a long command such as `validate run` deletes and creates many files).
struct InputFile {
  dev_t device;
  ino_t inode;
  std::string path;
  bool same(const struct stat& st) const { return device == st.st_dev && inode == st.st_ino; }
  bool still_there() const {
    struct stat now {};
    return path.empty() || (::stat(path.c_str(), &now) == 0 && same(now));
  }
};

struct Inputs {
  std::mutex mutex;
  std::vector<InputFile> files;
};

Inputs& inputs() {
  static Inputs registry;
  return registry;
}

void remember(const struct stat& st, const std::string& path) {
  if (!S_ISREG(st.st_mode)) return;
  Inputs& r = inputs();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::erase_if(r.files, [&](const InputFile& f) { return f.same(st); });
  r.files.push_back({st.st_dev, st.st_ino, path});
}

bool is_input(const struct stat& st) {
  Inputs& r = inputs();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::erase_if(r.files, [](const InputFile& f) { return !f.still_there(); });
  return std::any_of(r.files.begin(), r.files.end(), [&](const InputFile& f) { return f.same(st); });
}

std::string in_quotes(const std::string& path) { return "'" + path + "'"; }

// Renames `temp` to `target` without replacing a file that exists by then.
int rename_no_replace(const std::string& temp, const std::string& target) {
#ifdef RENAME_NOREPLACE
  if (::renameat2(AT_FDCWD, temp.c_str(), AT_FDCWD, target.c_str(), RENAME_NOREPLACE) == 0) return 0;
  if (errno != EINVAL && errno != ENOSYS) return errno;
#endif
  if (::link(temp.c_str(), target.c_str()) != 0) return errno;
  ::unlink(temp.c_str());
  return 0;
}

}  // namespace

void note_input(const std::string& path) {
  struct stat st {};
  if (path.empty() || path == "-" || ::stat(path.c_str(), &st) != 0) return;
  std::error_code ec;
  const std::filesystem::path absolute = std::filesystem::absolute(path, ec);
  remember(st, ec ? path : absolute.string());
}

void note_folder_inputs(const std::string& folder) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(folder, ec)) note_input(entry.path().string());
}

void forget_input(const std::string& path) {
  struct stat st {};
  if (path.empty() || ::stat(path.c_str(), &st) != 0) return;
  Inputs& r = inputs();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::erase_if(r.files, [&](const InputFile& f) { return f.same(st); });
}

void note_input_fd(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) == 0) remember(st, "");
}

OutputTarget check_output_path(const std::string& path, const std::string& what, const OutputRules& rules) {
  namespace fs = std::filesystem;
  if (path.empty()) throw InputError(what + ": empty file name");
  // "-" reads standard input where a command reads; these outputs are files, never standard output.
  if (path == "-")
    throw InputError(what +
                     ": '-' would be a file named '-' (this output is a file, standard output is for -o); "
                     "name a file, or ./- for that name");
  OutputTarget out{path, path, false};
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno != ENOENT) throw InputError(what + ": cannot write " + in_quotes(path) + ": " + std::strerror(errno));
    const fs::path parent = fs::path(path).has_parent_path() ? fs::path(path).parent_path() : fs::path(".");
    std::error_code ec;
    if (!fs::is_directory(parent, ec))
      throw InputError(what + ": cannot write " + in_quotes(path) + ": folder " + in_quotes(parent.string()) +
                       " does not exist");
    return out;
  }
  if (S_ISLNK(st.st_mode)) {
    std::error_code ec;
    const fs::path link_to = fs::read_symlink(path, ec);
    if (::stat(path.c_str(), &st) != 0)
      throw InputError(what + ": " + in_quotes(path) + " is a symbolic link to " + in_quotes(link_to.string()) +
                       ", which does not exist; name the file itself");
    // /dev/stdout into a pipe links to "pipe:[…]", which no path names: said as what it is, not as a bad link.
    if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
      throw InputError(what + ": " + in_quotes(path) + " is a link to a device, FIFO or socket (a pipe, where the " +
                       "output is piped), not a file; name a file");
    out.target = fs::canonical(path, ec).string();
    if (ec) throw InputError(what + ": cannot resolve the symbolic link " + in_quotes(path) + ": " + ec.message());
    out.via_link = true;
  }
  const std::string named = out.via_link ? in_quotes(path) + " (a link to " + in_quotes(out.target) + ")" : in_quotes(path);
  if (S_ISDIR(st.st_mode)) throw InputError(what + ": " + named + " is a directory; name a file");
  if (!S_ISREG(st.st_mode))
    throw InputError(what + ": " + named + " is not a regular file (a device, FIFO or socket); name a file");
  if (is_input(st)) throw InputError(what + ": " + named + " is one of this command's inputs; name another file");
  if (!rules.replace) throw InputError(what + ": " + path + " exists; " + rules.replace_hint);
  return out;
}

OutputTarget write_output(const std::string& path, const std::string& content, const std::string& what,
                          const OutputRules& rules) {
  const OutputTarget t = check_output_path(path, what, rules);
  struct stat st {};
  const bool exists = ::stat(t.target.c_str(), &st) == 0;
  const unsigned mode = exists ? static_cast<unsigned>(st.st_mode & 07777) : 0666u;
  const std::string temp = write_temporary_beside(t.target, content, what, mode);
  if (exists) (void)::chmod(temp.c_str(), static_cast<mode_t>(mode));  // keep the replaced file's mode
  int error = 0;
  if (rules.replace) {
    if (std::rename(temp.c_str(), t.target.c_str()) != 0) error = errno;
  } else {
    error = rename_no_replace(temp, t.target);
  }
  if (error != 0) {
    ::unlink(temp.c_str());
    if (error == EEXIST) throw InputError(what + ": " + path + " exists; " + rules.replace_hint);
    throw InputError(what + ": cannot write " + in_quotes(path) + ": " + std::strerror(error));
  }
  return t;
}

void require_distinct_outputs(const std::vector<PlannedOutput>& outputs) {
  std::vector<std::pair<std::filesystem::path, const PlannedOutput*>> seen;
  for (const PlannedOutput& o : outputs) {
    std::error_code ec;
    const std::filesystem::path absolute = std::filesystem::absolute(o.path, ec);
    const std::filesystem::path canonical =
        std::filesystem::weakly_canonical(ec ? std::filesystem::path(o.path) : absolute, ec);
    const std::filesystem::path file = ec ? std::filesystem::path(o.path).lexically_normal() : canonical;
    for (const auto& [other, first] : seen)
      if (other == file)
        throw InputError(o.what + ": " + in_quotes(o.path) + " is also the " + first->what +
                         " file; name a file of its own");
    seen.emplace_back(file, &o);
  }
}

OutputTarget NamedOutputs::check(const std::string& path, std::string_view field) const {
  return check_output_path(path, spelled(spell, field), rules);
}

OutputTarget NamedOutputs::write(const std::string& path, const std::string& content, std::string_view field) const {
  const OutputTarget t = write_output(path, content, spelled(spell, field), rules);
  if (on_written) on_written(t);
  return t;
}

bool check_output_folder(const std::string& path, const std::string& what) {
  namespace fs = std::filesystem;
  if (path.empty()) throw InputError(what + ": empty folder name");
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (fs::is_directory(st)) return true;
  if (fs::exists(st)) throw InputError(what + ": " + in_quotes(path) + " is not a folder; name a folder");
  const fs::path trimmed = fs::path(path).lexically_normal();  // "out/" → "out/", whose parent is "out"
  const fs::path own = trimmed.has_filename() ? trimmed : trimmed.parent_path();
  const fs::path parent = own.has_parent_path() ? own.parent_path() : fs::path(".");
  if (!fs::is_directory(parent, ec))
    throw InputError(what + ": cannot create " + in_quotes(path) + ": folder " + in_quotes(parent.string()) +
                     " does not exist");
  return false;
}

void make_output_folder(const std::string& path, const std::string& what) {
  if (check_output_folder(path, what)) return;
  std::error_code ec;
  if (!std::filesystem::create_directory(path, ec) && ec)
    throw InputError(what + ": cannot create " + in_quotes(path) + ": " + ec.message());
}

}  // namespace isoflop

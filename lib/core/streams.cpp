// Guarding and checking the standard streams.
#include "core/streams.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>

namespace isoflop {

void guard_standard_streams() {
  std::signal(SIGPIPE, SIG_DFL);
  for (int fd = 0; fd <= 2; ++fd)
    if (::fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
      const int opened = ::open("/dev/null", O_RDONLY);
      if (opened >= 0 && opened != fd) {
        ::dup2(opened, fd);
        ::close(opened);
      }
    }
}

namespace {

[[noreturn]] void write_failed(std::FILE* stream, const std::string& name, int error) {
  std::clearerr(stream);
  throw OutputError("cannot write results to " + name +
                    (error != 0 ? std::string(": ") + std::strerror(error) : std::string()));
}

}  // namespace

void check_written(std::FILE* stream, const std::string& name) {
  errno = 0;
  const bool flushed = std::fflush(stream) == 0;
  if (flushed && !std::ferror(stream)) return;
  write_failed(stream, name, errno);
}

void check_stdout() { check_written(stdout, "standard output"); }

void write_stdout(const std::string& text) {
  // A text longer than the stream's buffer fails in fwrite, not in the flush: its reason is taken there.
  errno = 0;
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size()) write_failed(stdout, "standard output", errno);
  check_stdout();
}

}  // namespace isoflop

// Tests for lib/core/streams: a closed standard descriptor is taken by /dev/null, and a failed stream is an
// OutputError naming the stream and the reason.
#include "core/streams.hpp"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <string>

using namespace isoflop;

TEST_CASE("a closed standard descriptor is given /dev/null, read-only, so no later file takes its number") {
  const int saved = ::dup(0);
  REQUIRE(saved >= 0);
  ::close(0);
  guard_standard_streams();
  const int flags = ::fcntl(0, F_GETFL);
  const bool guarded = flags >= 0 && (flags & O_ACCMODE) == O_RDONLY;
  char byte = 'x';
  errno = 0;
  const bool write_failed = ::write(0, &byte, 1) < 0 && errno == EBADF;
  const int next = ::open("/dev/null", O_RDONLY);  // the lowest free number: not 0 any more
  ::dup2(saved, 0);
  ::close(saved);
  if (next >= 0) ::close(next);
  CHECK(guarded);
  CHECK(write_failed);
  CHECK(next > 2);
}

TEST_CASE("a stream whose writes failed is an OutputError with the stream's name and the reason") {
  std::FILE* full = std::fopen("/dev/full", "w");
  REQUIRE(full != nullptr);
  std::fputs("results\n", full);
  std::string message;
  try {
    check_written(full, "the test stream");
  } catch (const OutputError& e) {
    message = e.what();
  }
  CHECK(message == "cannot write results to the test stream: No space left on device");
  std::fputs("again\n", full);
  CHECK_THROWS_AS(check_written(full, "the test stream"), OutputError);  // the error was cleared, not hidden
  std::fclose(full);
  std::FILE* null = std::fopen("/dev/null", "w");
  REQUIRE(null != nullptr);
  std::fputs("results\n", null);
  CHECK_NOTHROW(check_written(null, "/dev/null"));
  std::fclose(null);
}

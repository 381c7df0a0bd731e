// The process's standard streams: kept from lending their numbers to files opened later, and checked that the
// results written to them reached their reader.
#pragma once

#include <cstdio>
#include <string>

#include "core/error.hpp"

namespace isoflop {

// Results on a stream that could not be written (a closed stdout, a full disk): exit 3.
class OutputError : public Error {
 public:
  using Error::Error;
};

// A closed standard descriptor (`>&-`) is given /dev/null opened read-only, so that no file opened later takes
// its number (results would land in it) and writes to it still fail, which check_stdout reports. SIGPIPE gets
// its default action: piped into `head`, the process ends quietly, as the coreutils do. Call it first in main().
void guard_standard_streams();

// Flushes `stream` and throws OutputError "cannot write results to <name>: <reason>" when it has failed.
void check_written(std::FILE* stream, const std::string& name);

// check_written for standard output.
void check_stdout();

// Writes `text` to standard output and checks that it went out (check_stdout).
void write_stdout(const std::string& text);

}  // namespace isoflop

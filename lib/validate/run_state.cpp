// A run's state from its folder.
#include "validate/run_state.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/atomic_file.hpp"
#include "core/error.hpp"

namespace isoflop::validate {
namespace {

namespace fs = std::filesystem;

fs::path in_run(const std::string& dir, const doc::SweepRun& run, const char* name) {
  return fs::path(dir) / run.folder / name;
}

}  // namespace

RunStatus run_status(const std::string& dir, const doc::SweepRun& run) {
  RunStatus s;
  std::error_code ec;
  s.has_checkpoint = fs::exists(in_run(dir, run, "checkpoint.bin"), ec);
  const fs::path results = in_run(dir, run, "results.json");
  if (fs::exists(results, ec)) {
    try {
      const doc::SourceDocument d = doc::read_document(results.string());
      doc::require_kind(d, {"train"});
      auto t = doc::decode<doc::TrainDocument>(d);
      if (!t.result.interrupted && t.result.steps == t.result.steps_total && t.result.steps > 0) {
        s.state = RunState::kFinished;
        s.results = std::move(t);
        return s;
      }
    } catch (const InputError& e) {
      s.state = RunState::kFailed;
      s.message = std::string("unreadable results: ") + e.what();
      return s;
    }
  }
  std::ifstream failed(in_run(dir, run, kFailedFile));
  if (failed) {
    std::getline(failed, s.message);
    s.state = RunState::kFailed;
    return s;
  }
  s.state = s.has_checkpoint ? RunState::kInterrupted : RunState::kPending;
  return s;
}

void record_failure(const std::string& dir, const doc::SweepRun& run, const std::string& message) {
  write_file_atomically(in_run(dir, run, kFailedFile).string(), message + "\n", "failed");
}

void clear_failure(const std::string& dir, const doc::SweepRun& run) {
  std::error_code ec;
  fs::remove(in_run(dir, run, kFailedFile), ec);
}

}  // namespace isoflop::validate

// Where each run of a sweep folder stands, from its run folder alone: finished (results.json of every step),
// interrupted (a checkpoint to resume), failed (the runner's failed.txt: the exit status and the last error
// line), or not started. The runner decides from it what to run; the report reads it so that a failed run is
// reported as failed, never silently dropped.
#pragma once

#include <optional>
#include <string>

#include "doc/sweep_document.hpp"
#include "doc/train_document.hpp"

namespace isoflop::validate {

ISOFLOP_NAMED_ENUM(RunState, (kPending, "pending"), (kInterrupted, "interrupted"), (kFailed, "failed"),
                   (kFinished, "finished"));

inline constexpr const char* kFailedFile = "failed.txt";  // in the run folder, written by the runner
inline constexpr const char* kLogFile = "train.log";      // the train process's standard error

struct RunStatus {
  RunState state = RunState::kPending;
  std::string message;                        // failed: why ("exit 2: train.lr: must be positive")
  bool has_checkpoint = false;                // a checkpoint to resume from
  std::optional<doc::TrainDocument> results;  // finished: the train document
};

// The state of `run` in the sweep folder `dir`.
RunStatus run_status(const std::string& dir, const doc::SweepRun& run);

// Records a failed run (its failed.txt), or clears that record before a new attempt.
void record_failure(const std::string& dir, const doc::SweepRun& run, const std::string& message);
void clear_failure(const std::string& dir, const doc::SweepRun& run);

}  // namespace isoflop::validate

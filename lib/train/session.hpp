// One training session as an object: set up (every check before anything is written, then the backend,
// the data and the initial or resumed state), step, evaluate, checkpoint, finish. run_training drives it.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <vector>

#include "train/backend.hpp"
#include "train/data.hpp"
#include "train/layout.hpp"
#include "train/optimizer.hpp"
#include "train/rng.hpp"
#include "train/run_folder.hpp"
#include "train/trainer.hpp"

namespace isoflop::train {

class TrainingSession {
 public:
  // Checks the job (InputError before anything is written: the memory it needs, the data, the checkpoint
  // and the changes since it, the output paths), holds the output folder, builds the backend, loads the data,
  // and initialises the parameters or restores them from the checkpoint (options.resume).
  TrainingSession(const Job& job, const RunOptions& options);

  bool finished() const { return state_.step >= steps_total_; }
  // A resume of a run that had finished: no backend was built and nothing may be written.
  bool already_finished() const { return already_finished_; }
  // One optimiser step on the next batch, then an evaluation when one is due; reports progress.
  const CurvePoint& step();
  // The mean loss over the validation batches.
  double evaluate();
  bool checkpoint_due() const;
  // Saves parameters, optimiser state, data cursor and curve to job.checkpoint.path (atomically).
  void checkpoint();
  long long session_steps() const { return session_steps_; }
  // The result; evaluates once more when a complete run has no evaluation yet.
  TrainResult finish(bool interrupted);

 private:
  using Clock = std::chrono::steady_clock;
  void check_resume();
  void describe_run();
  void resolve_peak();
  void restore_or_initialise();
  void report(const CurvePoint& point);
  double now_s() const;

  Job job_;
  RunOptions options_;
  std::optional<RunFolder> own_folder_;  // when the caller holds none
  RunFolder* folder_ = nullptr;
  bool already_finished_ = false;
  Clock::time_point start_ = Clock::now();
  Dataset data_;
  ParameterLayout layout_;
  long long steps_total_ = 0, span_ = 0;
  std::optional<CheckpointState> resumed_;
  std::unique_ptr<Backend> backend_;
  TrainResult result_;
  CheckpointState state_;
  Rng rng_;
  LrSchedule schedule_;
  std::vector<int32_t> inputs_, targets_;
  long long val_batches_ = 1;
  double elapsed_before_s_ = 0, train_s_ = 0, first_step_s_ = 0;
  long long session_steps_ = 0;
  // Steady-state seconds per step of this session: its steps after the first (TrainResult::first_step_s).
  double steady_step_s() const;
  std::optional<double> last_eval_;
};

}  // namespace isoflop::train

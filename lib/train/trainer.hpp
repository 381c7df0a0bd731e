// Running a job: backend choice, data, initialisation or resume, the training loop with evaluation and
// checkpoints, FLOP accounting in the project's conventions, and the result the command reports.
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.hpp"
#include "core/enum_names.hpp"
#include "train/checkpoint.hpp"
#include "train/job.hpp"

namespace isoflop::train {

// The trainer's model in the planner's vocabulary, so parameters and FLOPs are counted by lib/model.
model::Architecture architecture_of(const ModelConfig& config);

// Reported after every step (and after every evaluation, with eval_loss set).
struct Progress {
  long long step = 0;           // steps completed
  long long steps = 0;          // planned steps
  double tokens = 0;            // training tokens so far
  double total_tokens = 0;      // planned training tokens
  double train_loss = 0;        // this step's loss
  std::optional<double> eval_loss;
  double lr = 0;
  double tokens_per_s = 0;      // this session's training throughput
  double eta_s = 0;             // estimated time to the last step
};

class RunFolder;  // train/run_folder.hpp

struct RunOptions {
  bool resume = false;                       // continue from job.checkpoint.path
  bool allow_changes = false;                // resume although the job changed (train/job_changes.hpp)
  double max_memory_bytes = 0;               // refuse a job that needs more host memory (0: what the machine has)
  RunFolder* folder = nullptr;               // the caller's hold on job.output (none: the run holds it itself)
  const std::atomic<bool>* stop = nullptr;   // when it becomes true: checkpoint after the current step, return
  long long stop_after_steps = 0;            // behave as if interrupted once this call has done this many steps (0: never)
  std::function<void(const Progress&)> on_progress;
  std::function<void(const std::string&)> on_note;  // one-line notices ("backend auto: using CUDA on …")
  const catalog::Catalog* catalog = nullptr;        // for the device's peak (MFU); none: mfu unreported
  bool keep_parameters = false;                     // copy the final parameters into the result
  bool measure_cpu_peak = true;                     // CPU without a catalog peak: time sgemm for MFU's peak
};

// Where the peak MFU is measured against comes from.
ISOFLOP_NAMED_ENUM(PeakSource, (kNone, "none"), (kCatalog, "catalog"), (kMeasuredSgemm, "measured_sgemm"));

struct TrainResult {
  bool interrupted = false;  // stopped early; a checkpoint was saved
  bool resumed = false;
  bool already_finished = false;  // a resume of a complete run: nothing was trained, nothing written
  std::vector<JobChange> job_changes;  // changes resumed runs made to the job (with RunOptions::allow_changes)
  long long steps = 0;        // steps completed
  long long steps_total = 0;  // planned steps
  double tokens = 0;          // training tokens processed (steps · batch · seq)
  double final_train_loss = 0;
  std::optional<double> eval_loss;     // the last validation loss
  std::optional<double> entropy_floor;  // markov: the exact entropy rate; quanta: the expected window floor
  std::optional<double> entropy_floor_stderr;  // quanta: standard error of entropy_floor (a large sample)
  std::optional<double> val_floor;      // markov, quanta: the true source's loss on the evaluated tokens
  std::optional<double> val_floor_stderr;  // quanta: standard error of val_floor as an estimate of the floor
  double params = 0;                    // total parameters (model::count_params, tied head counted once)
  double non_embedding_params = 0;
  double flops_per_token = 0;           // Hoffmann et al. 2022 App. F (fwd + 2×fwd), embeddings and logits included
  double flops = 0;                     // flops_per_token · tokens
  double flops_6nd = 0;                 // 6 · params · tokens
  double wall_s = 0;                    // over all resumed segments
  double train_s = 0;                   // this session's time inside training steps
  // This session's first step, in train_s: it also builds the GEMM plans and touches the buffers, a one-time
  // cost (about 0.19 s per run on the H200) that would make a short run look slow. None when the session took
  // no step, or in a result written before 2026-12-05 evening, whose tokens_per_s still includes that step.
  std::optional<double> first_step_s;
  // This session's training throughput in steady state: its steps after the first (all of them when it took one).
  double tokens_per_s = 0;
  double achieved_tflops = 0;           // this session, the same steps: App. F FLOPs per second / 1e12
  std::optional<double> mfu;            // achieved / peak_flops (bf16: 16-bit tensor peak, fp32: fp32 peak)
  std::string device;                   // "cpu (2 threads, OpenBLAS SkylakeX)", "NVIDIA H200"
  std::string accelerator;              // catalog id used for the peak ("" when none)
  double peak_flops = 0;                // 0 when no peak is known
  PeakSource peak_source = PeakSource::kNone;
  BackendKind backend = BackendKind::kCpu;
  Precision precision = Precision::kFp32;
  double memory_bytes = 0;              // what the backend allocated
  double peak_rss_bytes = 0;            // the process's peak resident memory
  std::string data_description;
  std::string checkpoint_path;          // where the last checkpoint went ("" when none was written)
  std::vector<CurvePoint> curve;
  std::vector<float> parameters;        // with RunOptions::keep_parameters
  bool operator==(const TrainResult&) const = default;
};

// Runs the job through a TrainingSession (train/session.hpp). Throws InputError for anything wrong with it (before writing anything), including
// "seq > data" (a batch does not fit in a split), a corrupt or mismatched checkpoint on resume, a changed job
// on resume (unless allowed), an existing checkpoint at checkpoint.path without resume (it would be
// overwritten), more memory than the machine has, an output folder another run holds, and a cuda backend
// without a device. Writes only the checkpoint (atomically): every checkpoint.every steps, on a stop, and
// after the last step; a resume of a finished run writes nothing and returns it with already_finished.
TrainResult run_training(const Job& job, const RunOptions& options);

// The catalog accelerator for a device name as the CUDA driver reports it ("NVIDIA H100 80GB HBM3" →
// h100-sxm5-80gb), or nullptr when the catalog has none.
const catalog::Accelerator* accelerator_for_device(const std::string& device_name, const catalog::Catalog& catalog);

// The loss curve as CSV: step,tokens,lr,train_loss,eval_loss,grad_norm,elapsed_s (eval_loss empty when absent).
std::string curve_csv(const std::vector<CurvePoint>& curve);

}  // namespace isoflop::train

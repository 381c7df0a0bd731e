// Everything a launch configuration says, derived once from a plan: the model, the layout, the batch, the
// training length, the learning-rate schedule, precision, intervals, environment and the plan's predictions.
// Each target (megatron.cpp, deepspeed.cpp, nemo.cpp, slurm.cpp) only spells it in its trainer's words.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "emit/launch_data.hpp"
#include "parallel/layout.hpp"
#include "parallel/search.hpp"
#include "plan/plan.hpp"

namespace isoflop::emit {

struct Schedule {
  double peak_lr = 0;            // learning rate at the end of the warm-up
  double min_lr = 0;             // at the end of the cosine
  long long warmup_samples = 0;  // linear warm-up, sequences
  long long decay_samples = 0;   // the cosine ends here: the planned end of training, sequences
  long long warmup_iters = 0;    // the same in iterations (global batches)
  long long decay_iters = 0;
};

struct Prediction {
  double step_time_s = 0;
  double memory_gib = 0;    // most loaded GPU
  double mfu = 0;
  double run_time_s = 0;    // the plan's training time
};

struct LaunchSpec {
  std::string isoflop_version;
  std::string plan_hash;       // "fnv1a64:<16 hex digits>" of the plan document's JSON
  std::string model_name;      // the plan's family or given model (free text: never pasted into a shell line)
  model::Architecture arch;
  long long seq = 0;
  parallel::Layout layout;
  parallel::JobSpec job;       // trainer, attention kernel, precision, optimizer
  parallel::ClusterSpec cluster;
  parallel::SearchOptions search;  // the plan's search (its pins): a target whose trainer refuses the layout re-ranks
  int gpus = 0, gpus_per_node = 0, nodes = 0;  // per node: the processes started on each (all GPUs within one)
  long long global_batch = 0;  // sequences per iteration
  long long grad_accum = 0;    // micro-batches per data-parallel rank per iteration: B / (b · DP)
  double tokens = 0;           // the plan's training tokens
  long long train_samples = 0; // round(tokens / seq)
  long long train_iters = 0;   // ceil(train_samples / global_batch)
  Schedule schedule;
  Prediction predicted;
  double time_limit_s = 0;     // predicted run time plus the margin (data/launch/defaults.yaml)
  std::string substitution;    // one line when the target spells another positional encoding; empty otherwise
  std::string relayout;        // one line when the target's trainer runs another layout than the plan's
  std::string layout_options;  // the layout options given with the plan ("--tp 2"), as the manifest records them
  // The catalog node's host: its physical CPU cores and its GPUs (0: not in the catalog, or no count given), so a
  // scheduler is asked for the cores that node has (SLURM refuses more than a node's CPUs).
  int host_cpu_cores = 0, host_gpus = 0;
  const LaunchData* data = nullptr;
};

// The CPUs for one task that drives `gpus_per_node` GPUs on a node: the host's cores in proportion, when the
// catalog gives them, else data/launch/defaults.yaml's cores per GPU (a DGX A100's).
int cpus_per_task(const LaunchSpec& spec);

// Derives the launch spec from a feasible plan (its best layout). Throws InputError naming the plan's field when
// the plan has no layout or its batch does not divide (B % (b · DP)).
LaunchSpec make_launch_spec(const plan::PlanResult& plan, const LaunchData& data, const std::string& plan_hash,
                            const std::string& isoflop_version);

// The layout search's prediction for `best`: step time, memory of the most loaded GPU and MFU (run_time_s
// is left 0 for the caller, which knows the training length).
Prediction prediction_of(const parallel::RankedLayout& best);

// The time and memory models' prediction for the spec's own model (arch), job, layout and settings: search.time
// with what it leaves open taken from search.trainer's defaults (under_rules resolves it for the target's trainer
// first). A plan's spec gives back its best layout's prediction; a spec a target changed (another trainer's
// settings or gradients, a substituted positional encoding) gets what that target runs. run_time_s is left 0. None
// where the accelerator carries no step-time constants (a spec built without the catalog's record): nothing to recount
// with.
std::optional<Prediction> predict(const LaunchSpec& spec);

// Puts `p` in `spec` as what it now runs: the same tokens at p's step time, so the run time is `before`'s scaled
// by the step times' ratio (the plan's run time is its step time's, or the days budgeted), and the time limit
// with it.
void restate_prediction(LaunchSpec& spec, const LaunchSpec& before, Prediction p);

// FNV-1a 64 of `text`, as "fnv1a64:<16 hex digits>".
std::string document_hash(const std::string& text);

// Peak learning rate for `params`, interpolated log-log between the data's anchors (clamped at the ends).
double peak_learning_rate(const LaunchData& data, double params);

// The comment every emitted file starts with, each line prefixed with `prefix` ("# "): isoflop's version, the
// plan's hash, the trainer version, the predicted step time, memory and MFU.
std::string header_comment(const LaunchSpec& spec, const std::string& trainer_version, const std::string& prefix);

// `text` as a JSON string literal: printable ASCII, so it can sit in a comment without ending it.
std::string escaped(const std::string& text);

// Shortest decimal that reads back as `value` ("6e-05", "0.1").
std::string number(double value);

}  // namespace isoflop::emit

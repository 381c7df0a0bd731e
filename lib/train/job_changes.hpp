// What a checkpoint remembers of its job, and what changed when a resumed job differs: the fields that shape
// the run (model, batch, schedule, optimiser, data) as text, compared one by one.
#pragma once

#include <string>
#include <vector>

#include "train/job.hpp"

namespace isoflop::train {

// One field of the job as the checkpoint records it ("train.lr", "0.003"): numbers in their shortest exact
// decimal form, so that equal text means equal value.
struct JobField {
  std::string name;
  std::string value;
  bool operator==(const JobField&) const = default;
};

// A field that differs between a checkpoint's job and the job resuming it, from `at_step` on.
struct JobChange {
  long long at_step = 0;
  std::string field;
  std::string from;  // "" when the checkpoint's job had no such field (another data source)
  std::string to;    // "" when the resuming job has none
  bool operator==(const JobChange&) const = default;
};

// The fields a resumed run must share with its checkpoint: model.*, train.* (tokens, batch, lr, warmup,
// min_lr_fraction, weight_decay, clip, beta1, beta2, eps, seed) and data.* (source, its options, val_fraction)
// plus data.content, the corpus' fingerprint. Evaluation, checkpoints, threads, backend and output may differ.
std::vector<JobField> job_fields(const Job& job, uint64_t data_fingerprint);

// The fields that differ, in `now`'s order (then fields only `before` has); at_step is `step`.
std::vector<JobChange> job_changes(const std::vector<JobField>& before, const std::vector<JobField>& now, long long step);

// Whether a change to `field` can be carried by a resumed run: the model's shape and train.batch cannot
// (the parameters, the step count and the schedule depend on them), the rest can.
bool change_allowed(const std::string& field);

// "train.lr 0.003 → 0.001, train.warmup 4096 → 8192".
std::string describe(const std::vector<JobChange>& changes);

}  // namespace isoflop::train

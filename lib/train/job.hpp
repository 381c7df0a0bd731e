// A training job file (YAML): the model, the optimisation, the data, where it runs, evaluation, checkpoints
// and where results go. `isoflop train --example` prints a commented example (example_job_text()).
#pragma once

#include <optional>
#include <string>

#include "train/config.hpp"
#include "train/data.hpp"
#include "units/integer_limits.hpp"

namespace isoflop::train {

struct TrainOptions {
  double tokens = 0;             // total training tokens D; the cosine schedule ends exactly here (required)
  int batch = 0;                 // sequences per step (required)
  double lr = 0;                 // peak learning rate (required)
  double warmup_tokens = 0;      // linear warm-up length, in tokens
  double min_lr_fraction = 0.1;  // the cosine decays to this fraction of lr (Chinchilla: 10×)
  double weight_decay = 0.1;     // AdamW decoupled weight decay on matrices and embeddings
  double clip = 1.0;             // global gradient-norm clip; 0 disables
  double beta1 = 0.9;
  double beta2 = 0.95;
  double eps = 1e-8;
  unsigned long long seed = 1;   // initialisation seed
  bool operator==(const TrainOptions&) const = default;
};

struct EvalOptions {
  long long every = 0;      // evaluate every this many steps (0: only after the last step)
  double tokens = 65536;    // validation tokens per evaluation (rounded down to whole batches, at least one)
  bool operator==(const EvalOptions&) const = default;
};

struct CheckpointOptions {
  long long every = 0;  // steps between checkpoints (0: only on interrupt and at the end)
  std::string path;     // default: <output>/checkpoint.bin
  bool operator==(const CheckpointOptions&) const = default;
};

// The most CPU threads a job may ask for (OpenMP's and OpenBLAS's pools are sized by it).
inline constexpr int kMaxThreads = 4096;
// The largest token count a job may name (train.tokens, train.warmup, eval.tokens): any training run's bound.
inline constexpr double kMaxTokens = units::kMaxTrainingTokens;

struct Job {
  std::string file;  // the job file ("" when built in code); relative paths resolve against its folder
  ModelConfig model;
  TrainOptions train;
  DataConfig data;
  BackendKind backend = BackendKind::kAuto;
  std::optional<Precision> precision;  // default: bf16 on CUDA, fp32 on the CPU
  int threads = 0;                     // CPU backend threads (OpenMP and OpenBLAS); 0: every core
  EvalOptions eval;
  CheckpointOptions checkpoint;
  std::string output;       // results folder: results.json, loss_curve.csv, checkpoint.bin
  std::string peak_device;  // catalog accelerator id whose peak MFU is measured against (default: detected)

  long long tokens_per_step() const { return static_cast<long long>(train.batch) * model.seq; }
  long long steps() const { return static_cast<long long>(train.tokens / static_cast<double>(tokens_per_step())); }
  long long warmup_steps() const;

  // Moves the results folder; a checkpoint at its default place (<output>/checkpoint.bin) moves along.
  void set_output(const std::string& folder);

  bool operator==(const Job&) const = default;

  // Cross-field rules (the parser checks each field); throws InputError naming the field.
  void validate() const;
};

// Parses a job from YAML text; `file` names it in messages ("job.yaml:12: …") and anchors relative paths.
// Unknown keys are errors (with a suggestion), missing required fields name the field.
Job parse_job(const std::string& text, const std::string& file);
// Reads and parses a job file; an unreadable file is an InputError naming it.
Job load_job(const std::string& path);

// A complete, commented example job.
std::string example_job_text();

}  // namespace isoflop::train

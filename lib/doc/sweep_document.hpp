// The sweep document (sweep.json, "isoflop/sweep/v2"): a scaled-down IsoFLOP sweep of a plan as `validate
// --emit` designed it — where it came from (the plan's law, full budget and optimum), the FLOP convention
// (C = 6·N·D), the data source, the learning-rate and warm-up rules, the K budgets and every run with its
// shape, tokens, job file and run folder (paths relative to the sweep folder).
//
//   {"schema", "origin": {"plan_file", "law", "law_parameters": {E, A, B, alpha, beta} | null, "law_flags",
//    "law_exponent_a", "law_exponent_b", "full_budget_flops", "n_opt", "d_opt", "tokens_per_param", "family",
//    "accelerator"}, "preset", "backend", "peak_device", "flops_convention": {"name", "statement"},
//    "source": {"name", "seed", "parameters": {the job's data section}}, "rules": {...},
//    "total_flops", "sizes_per_budget", "budgets": [{flops, law_n_opt, law_d_opt}], "runs": [{...}]}
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "catalog/laws.hpp"
#include "doc/fields.hpp"
#include "train/job.hpp"

namespace isoflop::doc {

// The plan (or law flags) the sweep checks.
struct SweepOrigin {
  std::string plan_file;                             // "" when designed from --flops and law flags
  std::string law;                                   // catalog name of the allocation law ("custom" for flags)
  std::optional<catalog::ParametricLaw> parametric;  // E, A, B, α, β (and γ) of a parametric law; empty otherwise
  std::vector<std::string> law_flags;                // the law's command-line words as given, if any
  double law_exponent_a = 0;     // d ln N_opt / d ln C of the law at the full budget (Hoffmann et al. eq. 4: a)
  double law_exponent_b = 0;     // d ln D_opt / d ln C
  double full_budget_flops = 0;  // the plan's budget, FLOPs (6·N·D)
  double n_opt = 0;              // the plan's N_opt at that budget, parameters
  double d_opt = 0;              // the plan's D_opt, tokens
  std::string family;            // shape family the plan (and every run) follows
  std::string accelerator;       // the plan's accelerator ("" when from flags)
  bool operator==(const SweepOrigin&) const = default;
};

// How the peak learning rate follows a run's N (non-embedding parameters) and D.
ISOFLOP_NAMED_ENUM(LrForm, (kLogLinear, "log_linear"), (kPower, "power"));

// The peak learning rate's formula, in one of the two forms:
//   log_linear: lr = intercept + log_slope · ln N          (Kaplan et al. 2020, eq. D.1)
//   power:      lr = scale · N^params_exponent · D^tokens_exponent
struct LrFormula {
  LrForm form = LrForm::kLogLinear;
  double intercept = 0, log_slope = 0;                       // log_linear
  double scale = 0, params_exponent = 0, tokens_exponent = 0;  // power
  // The peak for a run; not positive when a log_linear rule is extrapolated past its zero.
  double peak_lr(double non_embedding_params, double tokens) const;
  bool operator==(const LrFormula&) const = default;
};

// Learning rate and warm-up, the same rule for every run of a sweep.
struct SweepRules {
  std::string lr_rule;  // how the peak learning rate follows the size (stated in words)
  LrFormula lr;         // the peak's formula (JSON: lr_form, lr_intercept, lr_log_slope, lr_scale, …)
  double warmup_fraction = 0;  // warm-up tokens = this fraction of each run's D
  std::string schedule;        // the decay after warm-up ("cosine")
  double min_lr_fraction = 0;  // the cosine decays to this fraction of the peak at D
  int batch = 0;               // sequences per step
  int seq = 0;                 // context length
  int vocab = 0;               // vocabulary
  double eval_tokens = 0;      // validation tokens of each run's one evaluation, after its last step
  bool operator==(const SweepRules&) const = default;
};

// One budget of the sweep and what the law predicts there.
struct SweepBudget {
  double flops = 0;      // C, FLOPs (6·N·D)
  double law_n_opt = 0;  // the law's N_opt(C)
  double law_d_opt = 0;  // the law's D_opt(C)
  bool operator==(const SweepBudget&) const = default;
};

// One training run: a model size at a budget.
struct SweepRun {
  std::string id;                   // "b1-s3": budget 1, size 3
  int budget = 0;                   // index into budgets
  double flops = 0;                 // the budget, FLOPs
  double target_params = 0;         // the size the design asked for
  double params = 0;                // N: the shape's exact total parameters (tied embedding once)
  double non_embedding_params = 0;  // N without the token and position embeddings
  double tokens = 0;                // D = C / (6 N), whole steps
  train::ModelConfig shape;
  double lr = 0;  // peak learning rate (rules)
  double warmup_tokens = 0;
  long long steps = 0;
  std::string job;     // the job file, relative to the sweep folder
  std::string folder;  // the run folder (train's output), relative to the sweep folder
  bool operator==(const SweepRun&) const = default;
};

struct SweepDocument {
  SweepOrigin origin;
  std::string preset;  // "smoke", "cpu", "gpu" or "custom"
  train::BackendKind backend = train::BackendKind::kCpu;
  std::string peak_device;  // catalog accelerator the runs' MFU is measured against ("" = detected)
  int threads = 0;          // CPU threads per run (0: every core)
  train::DataConfig data;   // the source, as each job's data section
  unsigned long long source_seed = 0;
  SweepRules rules;
  double total_flops = 0;  // Σ over runs of 6·N·D
  int sizes_per_budget = 0;
  std::vector<SweepBudget> budgets;
  std::vector<SweepRun> runs;
  bool operator==(const SweepDocument&) const = default;
};

// How every FLOP count of the sweep is made (Hoffmann et al. 2022 §3; Kaplan et al. 2020 eq. 2.1).
inline constexpr const char* kSweepFlopsStatement =
    "C = 6*N*D: N the model's total parameters (tied embedding counted once), D the training tokens";

template <>
inline constexpr auto fields<SweepBudget> =
    std::tuple{field("flops", &SweepBudget::flops), field("law_n_opt", &SweepBudget::law_n_opt),
               field("law_d_opt", &SweepBudget::law_d_opt)};

void to_json(Json& j, const SweepDocument& d);
void from_json(const Json& j, SweepDocument& d);
void to_json(Json& j, const SweepRun& r);
void from_json(const Json& j, SweepRun& r);

// The human page: the origin, the rules and a table of runs.
std::string render_sweep(const SweepDocument& d);

}  // namespace isoflop::doc

// What every sweep shares and how big each preset is, from data/validate/sweep.yaml (compiled in): the
// learning-rate rule (a preset may have its own), the warm-up and decay, and the smoke, cpu and gpu presets;
// and from data/validate/cpu.yaml the CPU trainer's step-time constants.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "doc/sweep_document.hpp"
#include "parallel/efficiency.hpp"
#include "train/job.hpp"

namespace isoflop::validate {

// The peak learning rate of a run of N non-embedding parameters and D tokens (doc::LrFormula, the formula the
// sweep document states), then a linear warm-up over a fraction of D and a cosine to min_lr_fraction of the peak
// at D.
struct LrRule {
  std::string rule;  // the rule in words, as the sweep document states it
  doc::LrFormula formula;
  double warmup_fraction = 0;
  double min_lr_fraction = 0;
  std::string source;
};

struct Preset {
  std::string name;        // "smoke", "cpu", "gpu"
  std::string note;        // what it is sized for
  double total_flops = 0;  // Σ 6·N·D over the runs
  int budgets = 0;         // K
  int sizes = 0;           // M per budget
  double spacing = 3;      // ratio between neighbouring budgets
  double size_span = 16;   // largest / smallest size at a budget
  int batch = 0;           // sequences per step
  int seq = 0;
  int vocab = 0;
  train::BackendKind backend = train::BackendKind::kCpu;
  int threads = 0;         // CPU threads per run (0: every core)
  double eval_tokens = 0;  // validation tokens of the final evaluation
  int min_steps = 0;       // fewest optimizer steps a run may have
  int alphabet = 0;        // the quanta source's body tokens per skill (data.alphabet; 0: all)
  std::optional<LrRule> learning_rate;  // this preset's own rule (tuned for its batch and trainer), else the shared one
};

// The step-time model's efficiency constants for the CPU trainer, from data/validate/cpu.yaml.
struct CpuSpeedConstants {
  parallel::EfficiencyConstants constants;
  std::string source;
};

struct SweepSettings {
  LrRule lr;
  std::vector<Preset> presets;
  CpuSpeedConstants cpu;
  // The preset's own learning-rate rule, else the shared one.
  const LrRule& rule_for(const Preset& p) const;
  // Throws FieldError("preset", …) naming the accepted presets.
  const Preset& preset(const std::string& name) const;
};

// Parsed once from the embedded data/validate/sweep.yaml and cpu.yaml.
const SweepSettings& sweep_settings();

}  // namespace isoflop::validate

// isoflop emit: launch configurations for Megatron-LM, DeepSpeed, NeMo and SLURM/torchrun from a plan, each
// checked the way its trainer checks it before it is handed out, and the same checks for a hand-written file.
#pragma once

#include <string>
#include <vector>

#include "core/enum_names.hpp"
#include "emit/launch_spec.hpp"

namespace isoflop::emit {

enum class Target { kMegatron, kDeepSpeed, kNemo, kSlurm, kAll };
inline constexpr EnumNames<Target, 5> kTargetNames{{{{Target::kMegatron, "megatron"},
                                                     {Target::kDeepSpeed, "deepspeed"},
                                                     {Target::kNemo, "nemo"},
                                                     {Target::kSlurm, "slurm"},
                                                     {Target::kAll, "all"}}}};

struct EmitOptions {
  std::string megatron_version;     // a release in data/launch/megatron_flags.yaml; empty = the newest listed
  std::string job_name = "isoflop"; // SLURM job name: letters, digits, '.', '_', '-', '+'
  bool substitute = true;           // false: refuse a positional encoding the trainer cannot spell
};

struct EmittedFile {
  std::string name;     // "megatron.sh", "ds_config.json", "nemo.yaml", "job.sbatch"
  Target target;
  std::string content;
  std::string substitution;  // the positional encoding the trainer runs instead of the plan's; empty if none
};

// The files of `target` (all four for kAll), each checked by its target's check first: throws FieldError
// naming the plan's field or the option's field ("target_version", "job_name") with the trainer's rule when
// the trainer would reject it, so nothing it would reject is ever returned.
std::vector<EmittedFile> emit_files(Target target, const LaunchSpec& spec, const EmitOptions& options);

// Refuses (FieldError "plan layout", the rule id and reason the layout search uses) a plan whose best layout
// `trainer` (data/trainers.yaml) would not run: a hand-edited document is held to the search's rules.
void require_runnable(const plan::PlanResult& plan, const catalog::TrainerRules& trainer);

inline constexpr const char* kManifestName = "manifest.json";

// The names of the files `target` writes into a folder, the manifest last, known before anything is rendered.
std::vector<std::string> file_names(Target target);

// Checks a configuration file's text as `target`'s trainer would (kAll is not a file's target): the problems,
// empty when it passes. `megatron_version` as in EmitOptions.
std::vector<std::string> check_config(Target target, const std::string& text, const LaunchData& data,
                                      const std::string& megatron_version);

// The manifest of what was written: JSON listing each file with its target and hash, and the plan's hash.
std::string manifest(const std::vector<EmittedFile>& files, const LaunchSpec& spec);

}  // namespace isoflop::emit

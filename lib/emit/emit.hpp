// isoflop emit: launch configurations for Megatron-LM, DeepSpeed, NeMo and SLURM/torchrun from a plan, each
// checked the way its trainer checks it before it is handed out, and the same checks for a hand-written file.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.hpp"
#include "core/enum_names.hpp"
#include "emit/launch_spec.hpp"
#include "parallel/layout_request.hpp"

namespace isoflop::emit {

ISOFLOP_NAMED_ENUM(Target, (kMegatron, "megatron"), (kDeepSpeed, "deepspeed"), (kNemo, "nemo"), (kSlurm, "slurm"),
                   (kAll, "all"));

struct EmitOptions {
  // A Megatron-Core release (data/launch/megatron_flags.yaml) or a NeMo release (data/launch/nemo_keys.yaml),
  // for the targets that have it; empty = the newest listed of each.
  std::string target_version;
  std::string job_name = "isoflop"; // SLURM job name: letters, digits, '.', '_', '-', '+'
  bool substitute = true;           // false: refuse a positional encoding the trainer cannot spell
  // The trainers' runnability rules (data/trainers.yaml), the layout search's own; required.
  const catalog::Catalog* catalog = nullptr;
  // The plan's MFU floor, which every target's file is held to after its trainer's own re-ranking; 0: none.
  double min_mfu = 0;
};

struct EmittedFile {
  std::string name;     // "megatron.sh", "ds_config.json", "nemo.yaml", "job.sbatch"
  Target target;
  std::string content;
  std::string substitution;  // the positional encoding the trainer runs instead of the plan's; empty if none
  std::string relayout;      // the layout the trainer runs instead of the plan's, and why; empty if none
};

// The files of `target` (all four for kAll). Each target's trainer (megatron, deepspeed, nemo; slurm: the plan's)
// holds the plan's layout to its runnability rules (data/trainers.yaml, the layout search's): a layout it refuses
// but the plan's own trainer accepts is re-ranked under the target's rules (under_rules, lib/emit/targets.hpp);
// one both refuse throws FieldError("plan layout") with the target's rule id and reason. Each file is then
// checked by its target's check: throws FieldError naming the plan's field or the option's field
// ("target_version", "job_name") when the trainer would reject it, so nothing it would reject is returned.
std::vector<EmittedFile> emit_files(Target target, const LaunchSpec& spec, const EmitOptions& options);

// The spec with its layout ranked again under its plan's search changed by `request` (pins, trainer, overlaps,
// limits, objective), as `layout --from PLAN` with the same options ranks it: the best layout, its prediction (run
// time scaled by the step ratio), and `relayout` saying what changed when it is not the plan's. The rules of
// `request.trainer` come from `catalog`. Throws InfeasibleError with the search's reason when no layout fits or
// when the first runs under `min_mfu` (the plan's floor), and FieldError naming a pin the search refuses.
LaunchSpec with_layout_request(const LaunchSpec& spec, const parallel::LayoutRequest& request,
                               const catalog::Catalog& catalog, double min_mfu);

inline constexpr const char* kManifestName = "manifest.json";

// The names of the files `target` writes into a folder, the manifest last, known before anything is rendered.
std::vector<std::string> file_names(Target target);

// Checks a configuration file's text as `target`'s trainer would (kAll is not a file's target): the file read into
// layout and batch facts, the same runnability rules as the search (options.catalog's trainer), and the format's
// own identities. The problems, empty when it passes.
std::vector<std::string> check_config(Target target, const std::string& text, const LaunchData& data,
                                      const EmitOptions& options);

// The target whose form the text has: a JSON object (deepspeed), an sbatch script (slurm), a shell script running
// pretrain_gpt.py (megatron), a YAML mapping (nemo); nullopt when none.
std::optional<Target> form_of(const std::string& text);
// The form in words: "a ds_config JSON object".
std::string form_name(Target target);

struct CheckReport {
  Target target;
  bool inferred = false;  // the target was read from the file's form
  std::vector<std::string> problems;
  // What the trainer runs without refusing but likely not as meant: DeepSpeed's unread keys, a NeMo file without
  // the defaults list that loads megatron_gpt_config.
  std::vector<std::string> warnings;
};
// check_config for the file `name`, its target given or read from its form. Throws InputError naming the file,
// the form `target` reads and the form found when they differ.
CheckReport check_file(const std::string& name, std::optional<Target> target, const std::string& text,
                       const EmitOptions& options);

// The manifest of what was written: JSON listing each file with its target and hash, and the plan's hash; the
// entries of `kept` (an earlier manifest's, for files of the same plan still in the folder) first.
std::string manifest(const std::vector<EmittedFile>& files, const LaunchSpec& spec,
                     const std::vector<nlohmann::ordered_json>& kept = {});

}  // namespace isoflop::emit

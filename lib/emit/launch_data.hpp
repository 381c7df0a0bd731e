// What a launch configuration needs beyond the plan, read from data/launch/*.yaml (compiled into the binary):
// Megatron-LM's options per Megatron-Core release, NeMo's config key paths, and the schedule, optimizer,
// interval, environment, DeepSpeed and SLURM defaults, each with its source in the file.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "emit/argv.hpp"

namespace isoflop::emit {

// One option of pretrain_gpt.py's argparse parser.
struct MegatronFlag {
  std::string name;                  // "num-layers" (emit/argv.hpp)
  int nargs = 1;                     // values taken; kAnyValues for '*' and '+'
  bool at_least_one = false;         // '+'
  ArgparseType type = ArgparseType::kString;  // what each value must read as
  std::vector<std::string> choices;  // empty when any value is accepted
  std::vector<std::string> versions; // the releases that have it
  static constexpr int kAnyValues = -1;
};

struct PeakLrAnchor {
  double params = 0;  // model size
  double lr = 0;      // peak learning rate published for it
};

struct EnvironmentVariable {
  std::string name, value;
};

struct LaunchData {
  std::vector<std::string> megatron_versions;          // oldest first; the last is the default
  std::map<std::string, MegatronFlag> megatron_flags;  // by name
  // Megatron-DeepSpeed's pretrain_gpt.py options (one fork, no releases: `versions` is empty).
  std::map<std::string, MegatronFlag> megatron_deepspeed_flags;
  std::vector<std::string> nemo_versions;              // oldest first; the last is the default
  // NeMo's key paths ("model.optim.sched.min_lr") → the releases that have them: megatron_gpt_config.yaml's own,
  // and those the model reads with cfg.get although absent from the file.
  std::map<std::string, std::vector<std::string>> nemo_keys;
  // megatron_gpt_config.yaml's batch, which an override file that leaves the keys out runs with.
  int nemo_micro_batch_size = 0, nemo_global_batch_size = 0;
  std::vector<PeakLrAnchor> peak_lr;                   // ascending in params
  double min_lr_ratio = 0.1;
  double warmup_tokens = 0;
  double warmup_max_fraction = 0;
  double adam_beta1 = 0, adam_beta2 = 0, adam_eps = 0, weight_decay = 0, clip_grad = 0;
  int log_interval = 0, save_interval = 0, eval_interval = 0, eval_iters = 0;
  std::string split;
  std::vector<EnvironmentVariable> environment;
  std::string deepspeed_version;
  std::vector<std::string> deepspeed_optimizers;  // DeepSpeed's own optimizer names, lowercase
  std::vector<std::string> torch_optimizers;      // torch.optim classes DeepSpeed also takes, by exact name
  std::vector<std::string> deepspeed_schedulers;  // DeepSpeed's own learning-rate schedules, by exact name
  std::vector<std::string> torch_schedulers;      // torch.optim.lr_scheduler classes it also takes
  // The keyword arguments of each of DeepSpeed's own schedules, which scheduler.params are passed as.
  struct SchedulerParams {
    std::vector<std::string> required, optional;
  };
  std::map<std::string, SchedulerParams> deepspeed_scheduler_params;
  // data/launch/deepspeed_keys.yaml: the release the keys are of, the top-level keys DeepSpeed reads (it ignores
  // others), and by path ("zero_optimization.offload_param") the keys of each section it validates (it refuses
  // others).
  std::string deepspeed_keys_version;
  std::vector<std::string> deepspeed_top_level_keys;
  std::map<std::string, std::vector<std::string>> deepspeed_section_keys;
  std::vector<std::string> deepspeed_auto_dropped;  // sections whose "auto" values DeepSpeed drops before it validates
  std::map<std::string, std::string> deepspeed_ignored_when;  // section → the section whose presence hides it
  double reduce_bucket_size = 0, allgather_bucket_size = 0;
  double time_margin_fraction = 0;
  int rendezvous_port = 0;
  int cpus_per_gpu = 0;

  const std::string& default_megatron_version() const { return megatron_versions.back(); }
  const std::string& default_nemo_version() const { return nemo_versions.back(); }
  // The flag, or nullptr when no release knows it.
  const MegatronFlag* megatron_flag(const std::string& name) const;
};

// Whether `release` is `floor` or a later one of `releases` (oldest first); a release not listed is not.
bool release_at_least(const std::vector<std::string>& releases, const std::string& release, const std::string& floor);

// The embedded data, parsed once. Throws CatalogError naming the file when it is malformed.
const LaunchData& launch_data();

// Parses the launch data from YAML texts keyed by file name (the embedded files, or a test's).
// data/launch/*.yaml as compiled into the binary (generated at configure time: CMakeLists.txt,
// isoflop_embed_text).
struct EmbeddedText {
  const char* name;  // "data/launch/megatron_flags.yaml"
  const char* text;
};
const std::vector<EmbeddedText>& embedded_launch_files();

LaunchData parse_launch_data(const std::vector<std::pair<std::string, std::string>>& files);

}  // namespace isoflop::emit

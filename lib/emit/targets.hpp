// The four targets: each renders a LaunchSpec in its trainer's words and checks a config the way its trainer
// does (lib/emit/megatron.cpp, deepspeed.cpp, nemo.cpp, slurm.cpp). Internal to lib/emit; emit.hpp is the API.
#pragma once

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "catalog/trainers.hpp"
#include "emit/launch_spec.hpp"

namespace isoflop::emit {

// One command-line option by its name ("num-layers", emit/argv.hpp) and its values, as a launch script passes it.
struct Argument {
  std::string name;
  std::vector<std::string> values;
};

// A command line parsed the way argparse does against a flag list: values by option name, and what was wrong.
struct ParsedArguments {
  std::map<std::string, std::vector<std::string>> values;
  std::vector<std::string> problems;
  bool has(const std::string& name) const { return values.count(name) > 0; }
  std::optional<double> number(const std::string& name) const;  // nullopt when absent or not a literal number
};

// ---- Megatron-LM (megatron.cpp) -------------------------------------------------------------------------
// pretrain_gpt.py's options for the spec.
// Throws FieldError when the model or layout has no spelling in Megatron-LM.
std::vector<Argument> megatron_arguments(const LaunchSpec& spec, const std::string& version);
// Megatron-DeepSpeed's pretrain_gpt.py: Megatron's arguments less its distributed optimizer, plus DeepSpeed's
// (the deepspeed switch, the config at `config_path`, the ZeRO stage), each parsed against Megatron-DeepSpeed's own flag
// list (data/launch/megatron_deepspeed_flags.yaml) first: an option it lacks is an internal error
// (std::logic_error naming the option), never a script the trainer would refuse.
std::vector<Argument> megatron_deepspeed_arguments(const LaunchSpec& spec, const std::string& version,
                                                   const std::string& config_path);
// The option and its values as shell words: "$NAME" values stay variables, the rest are quoted where needed.
std::string argument_words(const Argument& argument);
// A bash array NAME of the arguments' words, one option a line, values shell-quoted.
std::string arguments_array(const std::string& name, const std::vector<Argument>& arguments);
// The environment lines ("export NAME=value") the trainer needs.
std::string environment_lines(const LaunchSpec& spec);
std::string emit_megatron(const LaunchSpec& spec, const std::string& version);
// torchrun over `nodes` (a shell word) × gpus_per_node with a c10d rendezvous at `endpoint` under `run_id`, up to
// the program it starts (the line ends in a continuation and the next line's indent).
std::string torchrun_command(const std::string& nodes, int gpus_per_node, const std::string& endpoint,
                             const std::string& run_id);
// argparse over `flags` as `program` at `version` parses them (empty version: flags without releases): unknown
// options (naming the release that has them), missing or extra values, values outside the choices.
ParsedArguments parse_arguments(const std::vector<std::string>& words, const std::map<std::string, MegatronFlag>& flags,
                                const std::string& program, const std::string& version);
// The words of arguments, as argparse receives them.
std::vector<std::string> argument_list(const std::vector<Argument>& arguments);
// validate_args, the configs' checks and the micro-batch calculator's rules of `version` (a release of
// data.megatron_versions); world_gpus 0 when unknown.
std::vector<std::string> megatron_rule_problems(const ParsedArguments& args, int world_gpus,
                                                const std::map<std::string, std::string>& environment,
                                                const LaunchData& data, const std::string& version);
// Megatron-LM's parser and rules over the script's pretrain_gpt.py arguments, then, where the world size is known,
// the layout they state through `rules` (rule_problems: the interleaved schedule's micro-batches, among others).
std::vector<std::string> check_megatron(const std::string& script, const LaunchData& data, const std::string& version,
                                        const catalog::TrainerRules& rules);

// ---- DeepSpeed (deepspeed.cpp) --------------------------------------------------------------------------
// With pipeline stages, the Megatron-DeepSpeed launch line sits in the JSON under isoflop.launch.
std::string emit_deepspeed(const LaunchSpec& spec, const std::string& megatron_version);
// The ds_config's own identities (train_batch_size = micro × accumulation × DP, ...), its launch line parsed as
// Megatron-DeepSpeed parses it, then the facts it states run through `rules` (rule_problems).
std::vector<std::string> check_deepspeed(const std::string& json_text, const LaunchData& data,
                                         const catalog::TrainerRules& rules);
// What DeepSpeed would run with but ignore: top-level keys it does not read and that misspell none it does, a
// section hidden by another (bfloat16 beside bf16). Empty for a text that is not JSON.
std::vector<std::string> deepspeed_warnings(const std::string& json_text, const LaunchData& data);

// ---- NeMo (nemo.cpp) ------------------------------------------------------------------------------------
// The Hydra override that lets nemo.yaml's defaults list find megatron_gpt_config.yaml in NeMo's checkout ($NEMO):
// one shell word, double-quoted so that $NEMO expands.
inline constexpr const char* kNemoSearchPath =
    "\"hydra.searchpath=[file://$NEMO/examples/nlp/language_modeling/conf]\"";
// Throws FieldError("target_version") naming the releases that have a key `version` lacks.
std::string emit_nemo(const LaunchSpec& spec, const std::string& version);
// The key paths of `version`, precision and learning rates, then the facts through `rules` (rule_problems).
std::vector<std::string> check_nemo(const std::string& yaml_text, const LaunchData& data, const std::string& version,
                                    const catalog::TrainerRules& rules);
// What Hydra would do with the file given as --config-name that is likely not meant: no defaults list loading
// megatron_gpt_config (the file runs alone), or _self_ before it (NeMo's keys over the file's).
std::vector<std::string> nemo_warnings(const std::string& yaml_text);

// ---- Trainer rules (rules.cpp) ---------------------------------------------------------------------------
// What a configuration file states of the layout, the model, the batch and the cluster. A fact it does not state
// stays 0 and is taken as one every rule accepts (heads = TP, layers = PP × VPP, GPUs = TP·PP·CP·DP).
struct LayoutFacts {
  parallel::Layout layout;
  parallel::JobSpec job;
  parallel::ClusterSpec cluster;
};
// The layout search's runnability rules (lib/parallel/trainer_rules: structural, then `rules`'s own) over the
// facts: "rule 'ID': reason", empty when they hold.
std::vector<std::string> rule_problems(const catalog::TrainerRules& rules, LayoutFacts facts);
// The spec `target`'s trainer runs. The plan's layout when `target` accepts it. Otherwise, for a layout the plan's
// own trainer (`own`) accepts, the best layout of the plan's model on its cluster under `target`'s rules as the file
// isoflop writes for it can express them (parallel::as_written) and the
// plan's pins (what `layout --from PLAN` with that trainer ranks first), said in `relayout`. Throws FieldError
// naming `target`'s rule when `own` refuses the layout too (a hand-edited plan) or no layout fits.
LaunchSpec under_rules(const LaunchSpec& spec, const catalog::TrainerRules& target, const catalog::TrainerRules& own);

// ---- SLURM (slurm.cpp) ----------------------------------------------------------------------------------
std::string emit_slurm(const LaunchSpec& spec, const std::string& job_name, const std::string& megatron_version);
std::vector<std::string> check_slurm(const std::string& script);
// The #SBATCH directives sbatch reads (those before the first command), value by option name ("" for a switch).
std::map<std::string, std::string> sbatch_directives(const std::string& script);

// Whether `name` is one of `names`.
inline bool listed(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// The value of a word such as "${NNODES:-420}" or "420": its literal default; nullopt when it has none. A value
// past kLargestLiteral reads as kLargestLiteral.
inline constexpr long long kLargestLiteral = 1'000'000'000;
std::optional<long long> literal_integer(const std::string& word);
// A count read from a file as an int: past an int's range it is clamped, and every rule then refuses it.
inline int clamp_to_int(long long v) {
  return static_cast<int>(std::clamp<long long>(v, std::numeric_limits<int>::min(), std::numeric_limits<int>::max()));
}
// nodes × GPUs per node as an int, clamped to an int's range (literals are at most kLargestLiteral).
inline int world_size(long long nodes, long long gpus_per_node) { return clamp_to_int(nodes * gpus_per_node); }

}  // namespace isoflop::emit

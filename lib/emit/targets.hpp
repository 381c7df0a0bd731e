// The four targets: each renders a LaunchSpec in its trainer's words and checks a config the way its trainer
// does (lib/emit/megatron.cpp, deepspeed.cpp, nemo.cpp, slurm.cpp). Internal to lib/emit; emit.hpp is the API.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "emit/launch_spec.hpp"

namespace isoflop::emit {

// One command-line option and its values, as a launch script passes it.
struct Argument {
  std::string flag;
  std::vector<std::string> values;
};

// A command line parsed the way argparse does against a flag list: values by option, and what was wrong.
struct ParsedArguments {
  std::map<std::string, std::vector<std::string>> values;
  std::vector<std::string> problems;
  bool has(const std::string& flag) const { return values.count(flag) > 0; }
  std::optional<double> number(const std::string& flag) const;  // nullopt when absent or not a literal number
};

// ---- Megatron-LM (megatron.cpp) -------------------------------------------------------------------------
// pretrain_gpt.py's options for the spec.
// Throws FieldError when the model or layout has no spelling in Megatron-LM.
std::vector<Argument> megatron_arguments(const LaunchSpec& spec, const std::string& version);
// Megatron-DeepSpeed's pretrain_gpt.py: Megatron's arguments less its distributed optimizer, plus DeepSpeed's
// (--deepspeed, the config at `config_path`, the ZeRO stage). Megatron-DeepSpeed's own flag list is not checked.
std::vector<Argument> megatron_deepspeed_arguments(const LaunchSpec& spec, const std::string& version,
                                                   const std::string& config_path);
// "--flag value …" as shell words: "$NAME" values stay variables, the rest are quoted where needed.
std::string argument_words(const Argument& argument);
// "NAME=(\n  --flag value\n  …\n)\n", values shell-quoted.
std::string arguments_array(const std::string& name, const std::vector<Argument>& arguments);
// The environment lines ("export NAME=value") the trainer needs.
std::string environment_lines(const LaunchSpec& spec);
std::string emit_megatron(const LaunchSpec& spec, const std::string& version);
// argparse over `version`'s flags: unknown options (naming the release that has them), missing or extra values,
// values outside the choices.
ParsedArguments parse_megatron_arguments(const std::vector<std::string>& words, const LaunchData& data,
                                         const std::string& version);
// validate_args and the micro-batch calculator's rules; world_gpus 0 when unknown.
std::vector<std::string> megatron_rule_problems(const ParsedArguments& args, int world_gpus,
                                                const std::map<std::string, std::string>& environment);
std::vector<std::string> check_megatron(const std::string& script, const LaunchData& data, const std::string& version);

// ---- DeepSpeed (deepspeed.cpp) --------------------------------------------------------------------------
// With pipeline stages, the Megatron-DeepSpeed launch line sits in the JSON under isoflop.launch.
std::string emit_deepspeed(const LaunchSpec& spec, const std::string& megatron_version);
std::vector<std::string> check_deepspeed(const std::string& json_text);

// ---- NeMo (nemo.cpp) ------------------------------------------------------------------------------------
std::string emit_nemo(const LaunchSpec& spec);
std::vector<std::string> check_nemo(const std::string& yaml_text, const LaunchData& data);

// ---- SLURM (slurm.cpp) ----------------------------------------------------------------------------------
std::string emit_slurm(const LaunchSpec& spec, const std::string& job_name, const std::string& megatron_version);
std::vector<std::string> check_slurm(const std::string& script);

// The value of a word such as "${NNODES:-420}" or "420": its literal default; nullopt when it has none.
std::optional<long long> literal_integer(const std::string& word);

}  // namespace isoflop::emit

// SLURM: an sbatch script that starts the trainer on every node with srun + torchrun and a c10d rendezvous on
// the first node. sbatch reads #SBATCH lines without a shell, so the job name is refused unless plain; every
// other value is a number or a fixed word.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <regex>

#include "emit/argv.hpp"
#include "emit/shell.hpp"
#include "emit/targets.hpp"
#include "units/si.hpp"

namespace isoflop::emit {
namespace {

std::string str(long long v) { return std::to_string(v); }

constexpr size_t kLongestMatched = 64;  // characters of a --time or --gres value matched against its form

// "#SBATCH --name=value" ("#SBATCH --name" for a switch): sbatch's directive syntax.
constexpr std::string_view kDirective = "#SBATCH ";
std::string directive(const std::string& name, const std::string& value = "") {
  return std::string(kDirective) + long_option(name) + (value.empty() ? "" : "=" + value) + "\n";
}

// D-HH:MM:SS, rounded up to the minute. The seconds are rounded to whole seconds first, so a limit that is a
// whole number of minutes (30 days + 10 %) does not gain a minute from the last bits of a product.
std::string slurm_time(double seconds) {
  const long long minutes = static_cast<long long>(std::ceil(std::round(seconds) / 60.0));
  char out[40];
  std::snprintf(out, sizeof out, "%lld-%02lld:%02lld:00", minutes / 1440, minutes / 60 % 24, minutes % 60);
  return out;
}

struct TrainerCommand {
  std::string setup;    // variables and the argument array
  std::string program;  // the script torchrun runs, and its arguments
};

TrainerCommand trainer_command(const LaunchSpec& s, const std::string& version) {
  using parallel::Trainer;
  if (s.job.trainer == Trainer::kNemo)
    return {"NEMO=\"${NEMO:-/opt/NeMo}\"\n",
            "\"$NEMO/examples/nlp/language_modeling/megatron_gpt_pretraining.py\" \\\n"
            "  " +
                long_option("config-path") + " \"$SLURM_SUBMIT_DIR\" " + long_option("config-name") + " nemo.yaml " +
                kNemoSearchPath};
  std::string setup = "DATA_PATH=\"${DATA_PATH:?set DATA_PATH to the preprocessed data prefix}\"\n"
                      "CHECKPOINT_DIR=\"${CHECKPOINT_DIR:-checkpoints}\"\n";
  if (s.job.trainer == Trainer::kDeepSpeed)
    return {"MEGATRON_DEEPSPEED=\"${MEGATRON_DEEPSPEED:-/opt/Megatron-DeepSpeed}\"\n" + setup +
                arguments_array("MEGATRON_ARGS", megatron_deepspeed_arguments(s, version, "$SLURM_SUBMIT_DIR/ds_config.json")),
            "\"$MEGATRON_DEEPSPEED/pretrain_gpt.py\" \"${MEGATRON_ARGS[@]}\""};
  const auto args = megatron_arguments(s, version);
  return {"MEGATRON_LM=\"${MEGATRON_LM:-/opt/Megatron-LM}\"\n" + setup + arguments_array("MEGATRON_ARGS", args),
          "\"$MEGATRON_LM/pretrain_gpt.py\" \"${MEGATRON_ARGS[@]}\""};
}

}  // namespace

std::string emit_slurm(const LaunchSpec& s, const std::string& job_name, const std::string& version) {
  require_plain_name(job_name, "job_name");
  const std::string trainer(parallel::kTrainerNames.name(s.job.trainer));
  const std::string runs = s.job.trainer == parallel::Trainer::kNemo ? ""
                           : s.job.trainer == parallel::Trainer::kDeepSpeed
                               ? " (Megatron-DeepSpeed, DeepSpeed " + s.data->deepspeed_version + ")"
                               : " (Megatron-LM " + version + ")";
  std::string out = "#!/bin/bash\n" + header_comment(s, "SLURM sbatch + torchrun, trainer " + trainer + runs, "# ");
  char margin[160];
  std::snprintf(
      margin, sizeof margin,
      "# Time limit: the run's predicted %.2f days plus a %.0f%% margin for start-up, checkpoints and restarts.\n",
      s.predicted.run_time_s / units::kSecondsPerDay, 100.0 * s.data->time_margin_fraction);
  out += margin;
  out += directive("job-name", job_name);
  out += directive("nodes", str(s.nodes));
  out += directive("ntasks-per-node", "1");
  out += directive("gpus-per-node", str(s.gpus_per_node));
  out += directive("cpus-per-task", str(cpus_per_task(s)));
  out += directive("time", slurm_time(s.time_limit_s));
  // Whole nodes are the job's alone; part of one leaves its other GPUs to the scheduler.
  if (s.gpus_per_node >= s.cluster.gpus_per_node) out += directive("exclusive");
  out += directive("output", job_name + "-%j.out") + "\n";
  out += "set -euo pipefail\n";
  out += environment_lines(s);
  out += "HEAD_NODE=\"$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n1)\"\n";
  const TrainerCommand t = trainer_command(s, version);
  out += t.setup + "\n";
  out += "srun " + long_option("kill-on-bad-exit") + "=1 " +
         torchrun_command("\"$SLURM_JOB_NUM_NODES\"", s.gpus_per_node,
                          "\"$HEAD_NODE:" + str(s.data->rendezvous_port) + "\"", "\"$SLURM_JOB_ID\"") +
         t.program + "\n";
  return out;
}

std::map<std::string, std::string> sbatch_directives(const std::string& script) {
  std::map<std::string, std::string> options;
  size_t pos = 0;
  while (pos < script.size()) {
    const size_t end = std::min(script.find('\n', pos), script.size());
    const std::string line = script.substr(pos, end - pos);
    pos = end + 1;
    if (line.empty() || line[0] != '#') break;  // sbatch stops reading directives at the first command
    if (line.rfind(kDirective, 0) != 0) continue;
    const std::optional<std::string> option = option_name(std::string_view(line).substr(kDirective.size()));
    if (!option) continue;
    const size_t eq = option->find('=');
    options[option->substr(0, eq)] = eq == std::string::npos ? "" : option->substr(eq + 1);
  }
  return options;
}

std::vector<std::string> check_slurm(const std::string& script) {
  std::vector<std::string> problems;
  if (script.rfind("#!/bin/bash\n", 0) != 0 && script.rfind("#!/bin/sh\n", 0) != 0)
    problems.push_back("the first line must be #!/bin/bash");
  std::map<std::string, std::string> options = sbatch_directives(script);
  auto said = [](const std::string& name) { return std::string(kDirective) + long_option(name); };
  // GPUs a node as --gres=gpu:N (or gpu:TYPE:N), the older spelling, where --gpus-per-node is not given.
  // std::regex recurses once a character: a value longer than any real one is refused before it is matched.
  static const std::regex gres("gpu(:[A-Za-z0-9_.-]+)?:([0-9]+)");
  std::smatch gpus_in_gres;
  if (!options.count("gpus-per-node") && options.count("gres") && options["gres"].size() <= kLongestMatched &&
      std::regex_match(options["gres"], gpus_in_gres, gres))
    options["gpus-per-node"] = gpus_in_gres[2].str();
  // What the launch needs; the rest (job name, output, exclusive, cpus) is checked where given.
  for (const char* key : {"nodes", "ntasks-per-node", "gpus-per-node", "time"})
    if (!options.count(key))
      problems.push_back(said(key) + (std::string(key) == "gpus-per-node" ? " (or --gres=gpu:N)" : "") + " is missing");
  // sbatch's time forms (sbatch(1) --time): minutes, minutes:seconds, hours:minutes:seconds, days-hours,
  // days-hours:minutes, days-hours:minutes:seconds, and no limit (-1, UNLIMITED or INFINITE in any case).
  static const std::regex plain("[A-Za-z0-9._+-]{1,128}"),
      time("[0-9]+(:[0-9]+){0,2}|[0-9]+-[0-9]+(:[0-9]+){0,2}|-1|unlimited|infinite"), count("[1-9][0-9]{0,6}"),
      output("[A-Za-z0-9._+%-]{1,160}");
  const auto time_form = [&](std::string value) {
    std::transform(value.begin(), value.end(), value.begin(), [](unsigned char c) { return std::tolower(c); });
    return value.size() <= kLongestMatched && std::regex_match(value, time);
  };
  if (options.count("job-name") && !std::regex_match(options["job-name"], plain))
    problems.push_back(said("job-name") + " must be letters, digits, '.', '_', '-', '+'");
  if (options.count("output") && !std::regex_match(options["output"], output))
    problems.push_back(said("output") + " must be a plain file name");
  if (options.count("time") && !time_form(options["time"]))
    problems.push_back(said("time") +
                       " must be one of sbatch's forms: M, M:S, H:M:S, D-H, D-H:M, D-H:M:S or UNLIMITED");
  for (const char* key : {"nodes", "ntasks-per-node", "gpus-per-node", "cpus-per-task"})
    if (options.count(key) && !std::regex_match(options[key], count))
      problems.push_back(said(key) + " must be a positive integer");
  const ScriptWords words = read_script_words(script);
  bool launches = false;
  for (const auto& c : words.commands)
    if (!c.empty() && c[0] == "srun") {
      const bool torchrun = std::find(c.begin(), c.end(), "torchrun") != c.end();
      if (!torchrun) continue;
      const size_t program = program_index(c, ".py");
      const auto backend = option_value(c, {"rdzv-backend", "rdzv_backend"}, program);
      launches = backend && backend->value == "c10d" && option_value(c, {"rdzv-endpoint", "rdzv_endpoint"}, program);
      // torchrun starts the processes of its node; more than one task a node starts as many torchruns.
      if (options.count("ntasks-per-node") && options["ntasks-per-node"] != "1")
        problems.push_back(said("ntasks-per-node") + "=" + options["ntasks-per-node"] +
                           " starts that many torchruns a node, each starting a process per GPU; accepted: 1");
      // torchrun starts a process per GPU it is told of, on as many nodes as it is told; the allocation must
      // agree, or ranks wait for GPUs or nodes that are not there (or leave some idle).
      auto agree = [&](const std::optional<OptionValue>& launched_as, const char* directive_name) {
        if (!launched_as || !options.count(directive_name)) return;
        const auto launched = literal_integer(launched_as->value), allocated = literal_integer(options[directive_name]);
        if (launched && allocated && *launched != *allocated)
          problems.push_back("torchrun " + long_option(launched_as->name) + " " + launched_as->value +
                             " disagrees with " + said(directive_name) + "=" + options[directive_name]);
      };
      agree(option_value(c, {"nproc-per-node", "nproc_per_node"}, program), "gpus-per-node");
      agree(option_value(c, {"nnodes"}, program), "nodes");
    }
  if (!launches)
    problems.push_back("no 'srun torchrun " + long_option("rdzv-backend") + " c10d " + long_option("rdzv-endpoint") +
                       " …' line");
  return problems;
}

}  // namespace isoflop::emit

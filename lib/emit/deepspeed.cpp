// DeepSpeed: a ds_config JSON whose batch identity holds by construction, and the checks DeepSpeed makes on it
// (deepspeedai/DeepSpeed deepspeed/runtime/config.py _batch_assertion); the layout it states is held to DeepSpeed's
// runnability rules (data/trainers.yaml: ZeRO-2/3 refused with pipeline stages, no interleaved schedule, ...).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>

#include "core/error.hpp"
#include "core/json_input.hpp"
#include "core/suggest.hpp"
#include "emit/argv.hpp"
#include "emit/shell.hpp"
#include "emit/targets.hpp"

namespace isoflop::emit {
namespace {

// Megatron-DeepSpeed forked Megatron-LM before these spellings changed: its megatron/arguments.py
// (data/launch/megatron_deepspeed_flags.yaml) takes lower-case norms, a rotary switch, key-value heads and
// DeepSpeed-MoE's names. Each Megatron-LM argument in its Megatron-DeepSpeed words; none when it has none.
std::vector<Argument> in_megatron_deepspeed_words(const Argument& a) {
  const std::string v = a.values.empty() ? "" : a.values.front();
  if (a.name == "normalization") return {{a.name, {v == "RMSNorm" ? "rmsnorm" : "layernorm"}}};
  if (a.name == "position-embedding-type") {
    if (v == "rope") return {{"use-rotary-position-embeddings", {}}};
    if (v == "none") return {{"no-position-embedding", {}}};
    return {};  // learned absolute positions are its default
  }
  // Its top-1 gating takes the softmax over every expert before the choice (deepspeed/moe/sharded_moe.py), and
  // the MoE layers' spacing is --expert-interval (written below).
  if (a.name == "group-query-attention" || a.name == "moe-token-dispatcher-type" ||
      a.name == "moe-router-pre-softmax" || a.name == "moe-layer-freq")
    return {};
  if (a.name == "num-query-groups") return {{"num-key-value-heads", a.values}};
  if (a.name == "moe-router-topk") return {{"topk", a.values}};
  if (a.name == "moe-expert-capacity-factor") return {{"moe-train-capacity-factor", a.values}};
  if (a.name == "expert-model-parallel-size") return {{"moe-expert-parallel-size", a.values}};
  // Its FP8 is TransformerEngine's hybrid format (E4M3 forward, E5M2 backward), the one Megatron-LM's says.
  if (a.name == "fp8-format") return {{"fp8-hybrid", {}}};
  return {a};
}

}  // namespace

std::vector<Argument> megatron_deepspeed_arguments(const LaunchSpec& spec, const std::string& /*megatron_version*/,
                                                   const std::string& config_path) {
  // Megatron-DeepSpeed's parser has no first/last stage layer counts (DeepSpeed partitions the layers itself).
  if (spec.layout.first_stage_layers > 0 || spec.layout.last_stage_layers > 0)
    throw FieldError("plan layout", "first " + std::to_string(spec.layout.first_stage_layers) + " and last " +
                                        std::to_string(spec.layout.last_stage_layers) +
                                        " stage layers have no Megatron-DeepSpeed spelling; accepted: an even split "
                                        "(re-plan with a --pp that divides the layers)");
  // DeepSpeed's ZeRO replaces Megatron's distributed optimizer; the stage goes to zero-stage and ds_config.
  LaunchSpec without_zero = spec;
  without_zero.layout.zero_stage = 0;
  // The gradients' precision and their overlap are DeepSpeed's (ds_config), not Megatron-LM's flags.
  without_zero.search.time.grad_reduce.reset();
  without_zero.search.time.overlap_grad_reduce.reset();
  without_zero.search.time.overlap_param_gather.reset();
  without_zero.job.optimizer = parallel::Optimizer::kMixedPrecisionAdam;
  std::vector<Argument> args;
  // Its own parser, not a Megatron-LM release's: the arguments are translated below and checked against its flags.
  for (const auto& a : megatron_arguments(without_zero, ""))
    for (auto& b : in_megatron_deepspeed_words(a)) args.push_back(std::move(b));
  // An MoE layer every --expert-interval layers, 2 unless given (megatron/arguments.py): the plan's spacing, always
  // written, or every other layer of an all-MoE plan would be dense.
  if (spec.arch.moe.enabled()) args.push_back({"expert-interval", {std::to_string(std::max(1, spec.arch.moe.every))}});
  args.push_back({"deepspeed", {}});
  args.push_back({"deepspeed_config", {config_path}});
  args.push_back({"zero-stage", {std::to_string(spec.layout.zero_stage)}});
  const auto parsed = parse_arguments(argument_list(args), spec.data->megatron_deepspeed_flags, "Megatron-DeepSpeed", "");
  if (!parsed.problems.empty())  // a spelling isoflop got wrong, not the user's input
    throw std::logic_error("internal error: " + parsed.problems.front() +
                           " (data/launch/megatron_deepspeed_flags.yaml); nothing written");
  return args;
}

namespace {


using Json = nlohmann::ordered_json;

// A JSON file cannot carry a comment: the header's lines and the layout DeepSpeed cannot see (its batch identity
// needs DP, its pipeline rule PP) sit under "isoflop", a key DeepSpeed does not read.
Json isoflop_section(const LaunchSpec& s, const std::string& version) {
  Json comment = Json::array();
  const std::string header = header_comment(s, "DeepSpeed " + s.data->deepspeed_version, "");
  for (size_t start = 0, end; (end = header.find('\n', start)) != std::string::npos; start = end + 1)
    comment.push_back(header.substr(start, end - start));
  // Without pipeline stages the file is DeepSpeed's only (the model code is the user's): FP8 matmuls are the
  // model's, through TransformerEngine, and no ds_config key says them.
  if (s.layout.pp == 1 && s.job.precision == parallel::MatmulPrecision::kFp8)
    comment.push_back(
        "precision: the prediction is FP8's; a ds_config has no key for FP8, which the model code "
        "runs through TransformerEngine (bf16 below is DeepSpeed's mixed precision around it); in bf16 "
        "alone the step is slower");
  Json section{{"comment", comment},
               {"data_parallel_size", s.layout.dp},
               {"pipeline_stages", s.layout.pp},
               {"tensor_parallel_size", s.layout.tp},
               {"train_samples", s.train_samples}};
  if (s.layout.pp > 1) {  // DeepSpeed's pipeline engine runs under Megatron-DeepSpeed: its launch line
    std::string line = "deepspeed " + long_option("num_nodes") + " " + std::to_string(s.nodes) + " " +
                       long_option("num_gpus") + " " + std::to_string(s.gpus_per_node) + " pretrain_gpt.py";
    for (const auto& a : megatron_deepspeed_arguments(s, version, "ds_config.json")) line += " " + argument_words(a);
    section["launch"] = line;
  }
  return section;
}

constexpr long long kMostBatchSequences = 1'000'000'000;
constexpr long long kMostPerRank = 1'000'000;

bool positive_integer(const Json& j, const char* key) {
  return j.contains(key) && j[key].is_number_integer() && j[key].get<long long>() > 0;
}

long long integer(const Json& j, const char* key, long long fallback) {
  return j.contains(key) && j[key].is_number_integer() ? j[key].get<long long>() : fallback;
}

// The launch line under isoflop.launch ("deepspeed --num_nodes N --num_gpus G pretrain_gpt.py ..."): what it
// states of the model and the layout, parsed as Megatron-DeepSpeed's argparse parses it.
void read_launch_line(const std::string& line, const LaunchData& data, LayoutFacts& f, std::vector<std::string>& problems) {
  const ScriptWords words = read_script_words(line + "\n");
  if (words.commands.empty()) return;
  const auto& c = words.commands.front();
  long long nodes = 0, per_node = 0;
  const size_t program = program_index(c, "pretrain_gpt.py");
  if (const auto v = option_value(c, {"num_nodes"}, program)) nodes = literal_integer(v->value).value_or(0);
  if (const auto v = option_value(c, {"num_gpus"}, program)) per_node = literal_integer(v->value).value_or(0);
  f.cluster.gpus = world_size(nodes, per_node);
  f.cluster.gpus_per_node = clamp_to_int(per_node);
  ParsedArguments a = parse_arguments(program_arguments(words, "pretrain_gpt.py"), data.megatron_deepspeed_flags,
                                      "Megatron-DeepSpeed", "");
  for (auto& p : a.problems) problems.push_back("isoflop.launch: " + p);
  // A literal as an int: past an int's range it is clamped (every rule then refuses it); NaN is the fallback.
  auto n = [&](const char* name, double fallback) {
    const double v = a.number(name).value_or(fallback);
    if (std::isnan(v)) return static_cast<int>(fallback);
    return static_cast<int>(std::clamp(v, static_cast<double>(std::numeric_limits<int>::min()),
                                       static_cast<double>(std::numeric_limits<int>::max())));
  };
  f.layout.tp = n("tensor-model-parallel-size", f.layout.tp);
  f.layout.pp = n("pipeline-model-parallel-size", f.layout.pp);
  f.layout.ep = n("moe-expert-parallel-size", 1);
  f.layout.sequence_parallel = a.has("sequence-parallel");
  auto& m = f.job.architecture;
  m.layers = n("num-layers", 0);
  m.heads = n("num-attention-heads", 0);
  m.kv_heads = n("num-key-value-heads", 0);
  if (a.has("num-experts") && !a.values["num-experts"].empty()) m.moe.experts = n("num-experts", 0);
  f.job.seq = n("seq-length", 0);
  if (const int per_virtual = n("num-layers-per-virtual-pipeline-stage", 0); per_virtual > 0)
    f.layout.vpp = std::max(2, m.layers / std::max(1, f.layout.pp * per_virtual));  // interleaved either way
}

// The batch identity train_batch_size = micro × accumulation × DP with what the file leaves out derived as
// DeepSpeed derives it; DP is the launch's (isoflop's data_parallel_size) or, where the file does not say it, what
// the three given imply. `problem` says what does not divide.
struct BatchIdentity {
  long long batch = 1, micro = 1, accum = 1, dp = 1;
  std::string problem;
};

BatchIdentity derive_batch(std::optional<long long> batch, std::optional<long long> micro,
                           std::optional<long long> accum, long long stated_dp) {
  BatchIdentity b;
  const bool dp_stated = stated_dp > 0;
  const auto s = [](long long v) { return std::to_string(v); };
  const auto whole = [&](long long total, long long part, const std::string& what) {
    if (part > 0 && total % part == 0) return total / part;
    b.problem = "train_batch_size " + s(total) + " is not divisible by " + what + " " + s(part);
    return 1LL;
  };
  b.dp = dp_stated ? stated_dp : 1;
  if (batch && micro && accum) {
    b.micro = *micro;
    b.accum = *accum;
    if (!dp_stated) b.dp = *batch % (*micro * *accum) == 0 ? *batch / (*micro * *accum) : 0;
    if (b.dp <= 0 || *batch != *micro * *accum * b.dp)
      b.problem = "train_batch_size " + s(*batch) + " != train_micro_batch_size_per_gpu " + s(*micro) +
                  " x gradient_accumulation_steps " + s(*accum) + " x DP" +
                  (dp_stated ? " " + s(stated_dp) + " = " + s(*micro * *accum * stated_dp) : " for any whole DP");
  } else if (batch && micro) {  // accumulation = batch / (micro × DP); DP unstated, DP 1 holds what any would
    b.micro = *micro;
    b.accum = whole(*batch, *micro * b.dp,
                    dp_stated ? "train_micro_batch_size_per_gpu x DP =" : "train_micro_batch_size_per_gpu");
  } else if (batch && accum) {  // micro-batch = batch / (accumulation × DP)
    b.accum = *accum;
    b.micro =
        whole(*batch, *accum * b.dp, dp_stated ? "gradient_accumulation_steps x DP =" : "gradient_accumulation_steps");
  } else if (batch) {  // accumulation 1, micro-batch = batch / DP
    b.micro = whole(*batch, b.dp, "DP");
  } else {  // train_batch_size = micro × accumulation × DP
    b.micro = micro.value_or(1);
    b.accum = accum.value_or(1);
  }
  b.batch = batch.value_or(b.micro * b.accum * b.dp);
  return b;
}

// A top-level key at most this many edits from one DeepSpeed reads is taken for a misspelling of it (one edit; two
// in a name of 12 characters or more: "zero_optimisation"); a key further from all of them ("comment") is only
// ignored by DeepSpeed.
int typo_distance(const std::string& key) { return key.size() >= 12 ? 2 : 1; }

// Keys DeepSpeed does not read (data/launch/deepspeed_keys.yaml). At the top level it ignores them: a misspelling
// of a key it reads ("zero_optimisation" runs ZeRO-0 without a word) is a problem, any other key a warning. Within
// a section it validates (zero_optimization, bf16, ...) it refuses them at start, except a value "auto" in a
// section it builds from the dict itself (dropped first). `warnings` selects which of the two lists comes back.
std::vector<std::string> unknown_keys(const Json& j, const LaunchData& data, bool warnings) {
  std::vector<std::string> problems, notes;
  if (!j.is_object()) return {};
  const std::string release = "DeepSpeed " + data.deepspeed_keys_version;
  // The keys the file could have meant: those DeepSpeed reads that it does not give.
  std::vector<std::string> absent;
  for (const auto& key : data.deepspeed_top_level_keys)
    if (!j.contains(key)) absent.push_back(key);
  for (const auto& [key, value] : j.items()) {
    if (key == "isoflop" || listed(data.deepspeed_top_level_keys, key)) continue;  // isoflop's own section, ignored
    // A key cut short ("train_micro_batch_size", "gradient_accumulation") names the one it begins; else the
    // nearest by edit distance.
    std::string meant;
    for (const auto& candidate : absent)
      if (key.size() >= 6 && candidate.rfind(key, 0) == 0) meant = meant.empty() ? candidate : "-";
    const bool truncated = !meant.empty() && meant != "-";
    if (!truncated) meant = closest_match(key, absent);
    const std::string line = "'" + key + "' is not a key " + release + " reads: it ignores it" +
                             (meant.empty() ? std::string() : " (did you mean '" + meant + "'?)");
    if (truncated || (!meant.empty() && edit_distance(key, meant) <= typo_distance(key)))
      problems.push_back(line + ", so that setting keeps its default");
    else
      notes.push_back(line);
  }
  for (const auto& [section, hidden_by] : data.deepspeed_ignored_when)
    if (j.contains(section) && j.contains(hidden_by) && !j[hidden_by].is_null())
      notes.push_back("'" + section + "' is ignored: " + release + " reads it only where '" + hidden_by +
                      "' is absent");
  for (const auto& [path, keys] : data.deepspeed_section_keys) {
    const Json* section = &j;
    for (size_t from = 0; section && from <= path.size();) {
      const size_t dot = std::min(path.find('.', from), path.size());
      const std::string name = path.substr(from, dot - from);
      section = section->is_object() && section->contains(name) ? &(*section)[name] : nullptr;
      from = dot + 1;
    }
    if (!section || !section->is_object()) continue;
    if (const auto hidden = data.deepspeed_ignored_when.find(path);
        hidden != data.deepspeed_ignored_when.end() && j.contains(hidden->second) && !j[hidden->second].is_null())
      continue;  // not read at all
    const bool drops_auto = listed(data.deepspeed_auto_dropped, path);
    for (const auto& [key, value] : section->items())
      if (!listed(keys, key) && !(drops_auto && value.is_string() && value.get<std::string>() == "auto"))
        problems.push_back(path + "." + key + " is not a key of " + release + "'s " + path +
                           ", which refuses the config at start: extra inputs are not permitted" +
                           did_you_mean(key, keys));
  }
  return warnings ? notes : problems;
}

std::vector<std::string> deepspeed_problems(const Json& j, const LaunchData& data, const catalog::TrainerRules& rules) {
  if (!j.is_object()) return {"a ds_config is a JSON object"};
  std::vector<std::string> problems;
  // DeepSpeed derives what is left out of train_batch_size = micro-batch × accumulation × DP
  // (_set_batch_related_parameters): each key given must be a positive integer, and one of the first two given.
  const char* const keys[] = {"train_batch_size", "train_micro_batch_size_per_gpu", "gradient_accumulation_steps"};
  for (const char* key : keys)
    if (j.contains(key) && !positive_integer(j, key))
      problems.push_back(std::string(key) + " must be a positive integer");
  // Past any launch (a million sequences a micro-batch, GPUs a data-parallel group; a billion a batch): refused,
  // so that the products below stay within 64 bits.
  const Json meta = j.value("isoflop", Json::object());
  const long long stated_dp = integer(meta, "data_parallel_size", 0);  // 0: not stated
  for (const auto& [key, most] : {std::pair<const char*, long long>{keys[0], kMostBatchSequences},
                                  {keys[1], kMostPerRank},
                                  {keys[2], kMostPerRank}})
    if (positive_integer(j, key) && j[key].get<long long>() > most)
      problems.push_back(std::string(key) + " must be at most " + std::to_string(most));
  if (stated_dp > kMostPerRank || stated_dp < 0)
    problems.push_back("isoflop.data_parallel_size must be between 1 and " + std::to_string(kMostPerRank));
  if (!j.contains(keys[0]) && !j.contains(keys[1]))
    problems.push_back(
        "train_batch_size or train_micro_batch_size_per_gpu is missing (DeepSpeed derives the rest "
        "from either)");
  if (!problems.empty()) return problems;
  const auto given = [&](const char* key) { return j.contains(key) ? std::optional<long long>(j[key]) : std::nullopt; };
  const BatchIdentity b = derive_batch(given(keys[0]), given(keys[1]), given(keys[2]), stated_dp);
  if (!b.problem.empty()) problems.push_back(b.problem);
  const long long micro = b.micro, dp = b.dp;
  // DeepSpeed reads bfloat16 where bf16 is absent (get_bfloat16_config); "auto" (dropped before it validates) is
  // not enabled.
  // pydantic (lax mode) reads 1, "true", "yes", "on", "t", "y" and "1" as true.
  const auto enabled = [&](const char* section) {
    if (!j.contains(section) || !j[section].is_object() || !j[section].contains("enabled")) return false;
    const Json& e = j[section]["enabled"];
    if (e.is_boolean()) return e.get<bool>();
    if (e.is_number_integer()) return e.get<long long>() == 1;
    if (!e.is_string()) return false;
    std::string v = e.get<std::string>();
    std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return std::tolower(c); });
    return v == "true" || v == "yes" || v == "on" || v == "t" || v == "y" || v == "1";
  };
  // get_bfloat16_config falls back to bfloat16 where bf16 is absent or null.
  const bool bf16_given = j.contains("bf16") && !j["bf16"].is_null();
  if ((bf16_given ? enabled("bf16") : enabled("bfloat16")) && enabled("fp16"))
    problems.push_back("bf16 and fp16 cannot both be enabled");
  // Read as given (get_scalar_param) and compared with 0.0 in the step (engine.py): a string fails there.
  if (j.contains("gradient_clipping") && !(j["gradient_clipping"].is_number() && j["gradient_clipping"] >= 0))
    problems.push_back("gradient_clipping " + j["gradient_clipping"].dump() +
                       ": accepted: a number, 0 for no clipping (the engine compares it with 0.0)");
  // DeepSpeed takes its own optimizers in any case and torch.optim's classes by name; another type fails at start.
  if (j.contains("optimizer")) {
    const Json& opt = j["optimizer"];
    const std::string type = opt.is_object() && opt.contains("type") && opt["type"].is_string() ? opt["type"] : "";
    std::string lower = type;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    if (!listed(data.deepspeed_optimizers, lower) && !listed(data.torch_optimizers, type))
      problems.push_back("optimizer.type " + (type.empty() ? std::string("is missing") : "'" + type + "'") +
                         ": accepted: DeepSpeed's " + join(data.deepspeed_optimizers, ", ") +
                         " (any case) or torch.optim's " + join(data.torch_optimizers, ", "));
  }
  const Json sched = j.value("scheduler", Json::object());
  // The engine takes a schedule of its own or of torch.optim.lr_scheduler, by exact name, and asserts otherwise.
  if (j.contains("scheduler")) {
    const std::string type =
        sched.contains("type") && sched["type"].is_string() ? sched["type"].get<std::string>() : "";
    if (!listed(data.deepspeed_schedulers, type) && !listed(data.torch_schedulers, type)) {
      std::vector<std::string> every = data.deepspeed_schedulers;
      every.insert(every.end(), data.torch_schedulers.begin(), data.torch_schedulers.end());
      problems.push_back("scheduler.type " + (type.empty() ? std::string("is missing") : "'" + type + "'") +
                         did_you_mean(type, every) + ": accepted: DeepSpeed's " +
                         join(data.deepspeed_schedulers, ", ") + " or torch.optim.lr_scheduler's " +
                         join(data.torch_schedulers, ", "));
    }
  }
  // DeepSpeed's own schedule is constructed with scheduler.params as keyword arguments.
  const auto own = data.deepspeed_scheduler_params.find(sched.value("type", ""));
  if (own != data.deepspeed_scheduler_params.end() && sched.value("params", Json::object()).is_object()) {
    const Json p = sched.value("params", Json::object());
    const auto& [required, optional] = own->second;
    std::vector<std::string> accepted = required;
    accepted.insert(accepted.end(), optional.begin(), optional.end());
    for (const auto& [key, value] : p.items())
      if (!listed(accepted, key))
        problems.push_back("scheduler.params." + key + ": " + own->first + " takes no such argument" +
                           did_you_mean(key, accepted) + "; accepted: " + join(accepted, ", "));
    for (const auto& key : required)
      if (!p.contains(key))
        problems.push_back("scheduler.params." + key + " is missing: " + own->first + " requires it");
  }
  if (sched.value("type", "") == "WarmupCosineLR") {
    const Json p = sched.value("params", Json::object());
    if (!positive_integer(p, "warmup_num_steps")) problems.push_back("scheduler.params.warmup_num_steps must be a positive integer");
    if (p.contains("total_num_steps") && !positive_integer(p, "total_num_steps"))  // a missing one is said above
      problems.push_back("scheduler.params.total_num_steps must be a positive integer");
  }
  // The layout the file states, held to the trainer's runnability rules (the layout search's).
  LayoutFacts f;
  f.layout.tp = static_cast<int>(integer(meta, "tensor_parallel_size", 1));
  f.layout.pp = static_cast<int>(integer(j.value("pipeline", Json::object()), "stages", integer(meta, "pipeline_stages", 1)));
  if (meta.contains("launch") && meta["launch"].is_string()) read_launch_line(meta["launch"], data, f, problems);
  f.layout.dp = static_cast<int>(std::max(1LL, dp));
  f.layout.micro_batch = static_cast<int>(micro);
  f.layout.zero_stage = static_cast<int>(integer(j.value("zero_optimization", Json::object()), "stage", 0));
  f.job.global_batch = b.batch;
  for (auto& p : rule_problems(rules, f)) problems.push_back(p);
  return problems;
}

}  // namespace

std::string emit_deepspeed(const LaunchSpec& s, const std::string& version) {
  const LaunchData& d = *s.data;
  Json j;
  j["isoflop"] = isoflop_section(s, version);
  j["train_batch_size"] = s.global_batch;
  j["train_micro_batch_size_per_gpu"] = s.layout.micro_batch;
  j["gradient_accumulation_steps"] = s.grad_accum;
  j["gradient_clipping"] = d.clip_grad;
  // fp16 on parts without bf16 tensor math, with DeepSpeed's dynamic loss scaling (loss_scale 0).
  if (s.job.precision == parallel::MatmulPrecision::kFp16)
    j["fp16"] = Json{{"enabled", true}, {"loss_scale", 0}};
  else
    j["bf16"] = Json{{"enabled", true}};
  j["zero_optimization"] = Json{{"stage", s.layout.zero_stage},
                                // the overlap the plan's step time assumed (DeepSpeed's own default: on at stage 3)
                                {"overlap_comm", parallel::overlaps_grad_reduce(s.search.time, s.layout.zero_stage)},
                                {"contiguous_gradients", true},
                                {"reduce_bucket_size", static_cast<long long>(d.reduce_bucket_size)},
                                {"allgather_bucket_size", static_cast<long long>(d.allgather_bucket_size)}};
  j["optimizer"] = Json{{"type", "Adam"},
                        {"params", Json{{"lr", s.schedule.peak_lr},
                                        {"betas", Json::array({d.adam_beta1, d.adam_beta2})},
                                        {"eps", d.adam_eps},
                                        {"weight_decay", d.weight_decay}}}};
  // WarmupCosineLR (deepspeed/runtime/lr_schedules.py): linear warm-up, then cosine to cos_min_ratio × lr at
  // total_num_steps, the planned end of training.
  j["scheduler"] = Json{{"type", "WarmupCosineLR"},
                        {"params", Json{{"total_num_steps", s.schedule.decay_iters},
                                        {"warmup_num_steps", s.schedule.warmup_iters},
                                        {"warmup_min_ratio", 0},
                                        {"cos_min_ratio", d.min_lr_ratio},
                                        {"warmup_type", "linear"}}}};
  if (s.layout.recompute != model::Recompute::kNone)
    j["activation_checkpointing"] = Json{{"partition_activations", s.layout.tp > 1}, {"contiguous_memory_optimization", false}};
  j["steps_per_print"] = d.log_interval;
  j["wall_clock_breakdown"] = false;
  return j.dump(2) + "\n";
}

std::vector<std::string> check_deepspeed(const std::string& json_text, const LaunchData& data,
                                         const catalog::TrainerRules& rules) {
  // The library's exception text less its "[json.exception.…] " prefix.
  auto reason = [](const std::exception& e) {
    std::string what = e.what();
    if (const size_t p = what.find("] "); what.rfind("[json.exception.", 0) == 0 && p != std::string::npos)
      what = what.substr(p + 2);
    return what;
  };
  Json j;
  try {
    j = parse_json_unique_keys(json_text, "");  // a key twice: DeepSpeed would keep one of them silently
  } catch (const Json::exception& e) {          // a syntax error, or a number past a double (1e400)
    return {"not JSON: " + reason(e)};
  } catch (const InputError& e) {
    std::string what = e.what();
    return {"not a ds_config: " + (what.rfind(": ", 0) == 0 ? what.substr(2) : what)};
  }
  if (j.is_object() && j.contains("schema") && j["schema"].is_string() &&
      j["schema"].get<std::string>().rfind("isoflop/", 0) == 0)
    return {"an isoflop document (" + j["schema"].get<std::string>() +
            "), not a ds_config; 'isoflop emit deepspeed --from FILE' writes one"};
  std::vector<std::string> problems = unknown_keys(j, data, false);
  try {
    for (auto& p : deepspeed_problems(j, data, rules)) problems.push_back(std::move(p));
  } catch (const Json::exception& e) {
    problems.push_back("a value has the wrong type: " + reason(e));
  }
  return problems;
}

std::vector<std::string> deepspeed_warnings(const std::string& json_text, const LaunchData& data) {
  try {
    return unknown_keys(parse_json_unique_keys(json_text, ""), data, true);
  } catch (const std::exception&) {
    return {};  // not JSON: check_deepspeed says so
  }
}

}  // namespace isoflop::emit

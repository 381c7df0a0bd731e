// DeepSpeed: a ds_config JSON whose batch identity holds by construction, and the checks DeepSpeed makes on it
// (deepspeedai/DeepSpeed deepspeed/runtime/config.py _batch_assertion; deepspeed/runtime/pipe/engine.py: ZeRO-2
// and ZeRO-3 are refused with pipeline stages).
#include <nlohmann/json.hpp>

#include "emit/targets.hpp"

namespace isoflop::emit {
namespace {

// Megatron-DeepSpeed forked Megatron-LM before these spellings changed: its megatron/arguments.py
// (data/launch/megatron_deepspeed_flags.yaml) takes lower-case norms, a rotary switch, key-value heads and
// DeepSpeed-MoE's names. Each Megatron-LM argument in its Megatron-DeepSpeed words; none when it has none.
std::vector<Argument> in_megatron_deepspeed_words(const Argument& a) {
  const std::string v = a.values.empty() ? "" : a.values.front();
  if (a.flag == "--normalization") return {{a.flag, {v == "RMSNorm" ? "rmsnorm" : "layernorm"}}};
  if (a.flag == "--position-embedding-type") {
    if (v == "rope") return {{"--use-rotary-position-embeddings", {}}};
    if (v == "none") return {{"--no-position-embedding", {}}};
    return {};  // learned absolute positions are its default
  }
  if (a.flag == "--group-query-attention" || a.flag == "--moe-token-dispatcher-type") return {};
  if (a.flag == "--num-query-groups") return {{"--num-key-value-heads", a.values}};
  if (a.flag == "--moe-router-topk") return {{"--topk", a.values}};
  if (a.flag == "--moe-expert-capacity-factor") return {{"--moe-train-capacity-factor", a.values}};
  if (a.flag == "--expert-model-parallel-size") return {{"--moe-expert-parallel-size", a.values}};
  return {a};
}

}  // namespace

std::vector<Argument> megatron_deepspeed_arguments(const LaunchSpec& spec, const std::string& version,
                                                   const std::string& config_path) {
  // DeepSpeed's ZeRO replaces Megatron's distributed optimizer; the stage goes to --zero-stage and ds_config.
  LaunchSpec without_zero = spec;
  without_zero.layout.zero_stage = 0;
  std::vector<Argument> args;
  for (const auto& a : megatron_arguments(without_zero, version))
    for (auto& b : in_megatron_deepspeed_words(a)) args.push_back(std::move(b));
  args.push_back({"--deepspeed", {}});
  args.push_back({"--deepspeed_config", {config_path}});
  args.push_back({"--zero-stage", {std::to_string(spec.layout.zero_stage)}});
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
  Json section{{"comment", comment},
               {"data_parallel_size", s.layout.dp},
               {"pipeline_stages", s.layout.pp},
               {"tensor_parallel_size", s.layout.tp},
               {"train_samples", s.train_samples}};
  if (s.layout.pp > 1) {  // DeepSpeed's pipeline engine runs under Megatron-DeepSpeed: its launch line
    std::string line = "deepspeed --num_nodes " + std::to_string(s.nodes) + " --num_gpus " +
                       std::to_string(s.gpus_per_node) + " pretrain_gpt.py";
    for (const auto& a : megatron_deepspeed_arguments(s, version, "ds_config.json")) line += " " + argument_words(a);
    section["launch"] = line;
  }
  return section;
}

bool positive_integer(const Json& j, const char* key) {
  return j.contains(key) && j[key].is_number_integer() && j[key].get<long long>() > 0;
}

std::vector<std::string> deepspeed_problems(const Json& j) {
  if (!j.is_object()) return {"a ds_config is a JSON object"};
  std::vector<std::string> problems;
  for (const char* key : {"train_batch_size", "train_micro_batch_size_per_gpu", "gradient_accumulation_steps"})
    if (!positive_integer(j, key)) problems.push_back(std::string(key) + " must be a positive integer");
  if (!problems.empty()) return problems;
  const long long batch = j["train_batch_size"], micro = j["train_micro_batch_size_per_gpu"],
                  accum = j["gradient_accumulation_steps"];
  const Json meta = j.value("isoflop", Json::object());
  if (batch % (micro * accum) != 0)
    problems.push_back("train_batch_size must equal train_micro_batch_size_per_gpu x gradient_accumulation_steps x DP");
  else if (meta.contains("data_parallel_size") && batch != micro * accum * meta["data_parallel_size"].get<long long>())
    problems.push_back("train_batch_size != micro x accumulation x data_parallel_size " +
                       meta["data_parallel_size"].dump());
  const long long stage = j.value("zero_optimization", Json::object()).value("stage", 0LL);
  if (stage < 0 || stage > 3) problems.push_back("zero_optimization.stage must be 0, 1, 2 or 3");
  long long stages = meta.value("pipeline_stages", 1LL);
  if (j.contains("pipeline") && j["pipeline"].contains("stages") && j["pipeline"]["stages"].is_number_integer())
    stages = j["pipeline"]["stages"];
  if (stages > 1 && stage >= 2) problems.push_back("ZeRO-2 and ZeRO-3 are incompatible with pipeline parallelism");
  if (j.value("bf16", Json::object()).value("enabled", false) && j.value("fp16", Json::object()).value("enabled", false))
    problems.push_back("bf16 and fp16 cannot both be enabled");
  const Json sched = j.value("scheduler", Json::object());
  if (sched.value("type", "") == "WarmupCosineLR") {
    const Json p = sched.value("params", Json::object());
    if (!positive_integer(p, "warmup_num_steps")) problems.push_back("scheduler.params.warmup_num_steps must be a positive integer");
    if (!positive_integer(p, "total_num_steps")) problems.push_back("scheduler.params.total_num_steps must be a positive integer");
  }
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
  j["bf16"] = Json{{"enabled", true}};
  j["zero_optimization"] = Json{{"stage", s.layout.zero_stage},
                                {"overlap_comm", true},
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

std::vector<std::string> check_deepspeed(const std::string& json_text) {
  try {
    return deepspeed_problems(Json::parse(json_text));
  } catch (const Json::parse_error& e) {
    return {std::string("not JSON: ") + e.what()};
  } catch (const Json::exception& e) {
    return {std::string("a value has the wrong type: ") + e.what()};
  }
}

}  // namespace isoflop::emit

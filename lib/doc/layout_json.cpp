// JSON of layouts, pins, search options, pruned families and infeasibility.
#include "doc/layout_json.hpp"

#include <utility>

namespace isoflop::parallel {

using doc::Json;
using doc::read;

namespace {
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// The step breakdown's lines, in the order they are written.
constexpr std::pair<const char*, double StepBreakdown::*> kStepLines[] = {
    {"compute_s", &StepBreakdown::compute_s},     {"recompute_s", &StepBreakdown::recompute_s},
    {"tp_comm_s", &StepBreakdown::tp_comm_s},     {"cp_comm_s", &StepBreakdown::cp_comm_s},
    {"pp_comm_s", &StepBreakdown::pp_comm_s},     {"logits_s", &StepBreakdown::logits_s},
    {"embedding_s", &StepBreakdown::embedding_s}, {"bubble_s", &StepBreakdown::bubble_s},
    {"dp_comm_s", &StepBreakdown::dp_comm_s},     {"embedding_sync_s", &StepBreakdown::embedding_sync_s},
    {"moe_comm_s", &StepBreakdown::moe_comm_s},   {"optimizer_s", &StepBreakdown::optimizer_s}};
// Traffic the overlaps hid: not part of the step time, so not among its lines.
constexpr std::pair<const char*, double StepBreakdown::*> kHiddenLines[] = {
    {"tp_s", &StepBreakdown::tp_hidden_s}, {"cp_s", &StepBreakdown::cp_hidden_s}, {"dp_s", &StepBreakdown::dp_hidden_s}};

double read_gib(const Json& j, const char* key) {
  double gib = 0;
  read(j, key, gib);
  return gib * kGiB;
}
}  // namespace

Json knob_json(const Dimension& d, int value) {
  switch (d.type) {
    case ValueType::kRecompute: return format_value(d, value);
    case ValueType::kSwitch: return value != 0;
    case ValueType::kInteger: break;
  }
  return value;
}

int read_knob(const Json& value, const Dimension& d) {
  int v = 0;
  switch (d.type) {
    case ValueType::kRecompute: {
      if (!value.is_string()) doc::fail_at(value, "must be one of " + join(kRecomputeNames.names(), "|"));
      const std::string text = value.get<std::string>();
      for (const auto& [r, n] : kRecomputeNames.entries)
        if (n == text) return static_cast<int>(r);
      doc::fail_at(value, "'" + text + "' is not one of " + join(kRecomputeNames.names(), "|"));
    }
    case ValueType::kSwitch:
      if (!value.is_boolean()) doc::fail_at(value, "must be true or false");
      return value.get<bool>() ? 1 : 0;
    case ValueType::kInteger:
      if (!value.is_number_integer()) doc::fail_at(value, "must be an integer");
      if (value.get<long long>() < d.min || value.get<long long>() > d.max)
        doc::fail_at(value, "is out of range for the " + std::string(d.meaning));
      v = value.get<int>();
      break;
  }
  return v;
}

void to_json(Json& j, const Layout& l) {
  j = Json::object();
  for (const auto& d : dimensions()) j[std::string(d.name)] = knob_json(d, d.get(l));
}

void from_json(const Json& j, Layout& l) {
  l = Layout{};
  for (const auto& d : dimensions()) d.set(l, read_knob(j.at(std::string(d.name)), d));
}

void to_json(Json& j, const LayoutPins& p) {
  j = Json::object();
  for (const auto& d : dimensions()) {
    const auto v = d.pinned(p);
    j[std::string(d.name)] = v ? knob_json(d, *v) : Json(nullptr);
  }
}

void from_json(const Json& j, LayoutPins& p) {
  p = LayoutPins{};
  for (const auto& d : dimensions()) {
    const Json& v = j.at(std::string(d.name));
    d.pin(p, v.is_null() ? std::nullopt : std::optional<int>(read_knob(v, d)));
  }
}

void to_json(Json& j, const RankedLayout& r) {
  to_json(j, r.layout);
  const auto& m = r.memory;
  const auto& t = r.time;
  const auto& b = t.breakdown;
  j["memory_gib"] = m.total_bytes() / kGiB;
  j["memory_breakdown"] = {{"weights_gib", m.weights_bytes / kGiB},
                           {"gradients_gib", m.gradients_bytes / kGiB},
                           {"optimizer_gib", m.optimizer_bytes / kGiB},
                           {"activations_gib", m.activations_bytes / kGiB},
                           {"embeddings_logits_gib", m.embeddings_logits_bytes / kGiB}};
  j["step_time_s"] = t.step_time_s;
  j["step_breakdown"] = Json::object();
  for (const auto& [key, field] : kStepLines) j["step_breakdown"][key] = b.*field;
  j["hidden_by_overlap"] = Json::object();
  for (const auto& [key, field] : kHiddenLines) j["hidden_by_overlap"][key] = b.*field;
  j["step_settings"] = {{"overlap_grad_reduce", t.settings.overlap_grad_reduce},
                        {"overlap_param_gather", t.settings.overlap_param_gather},
                        {"tp_comm_overlap", t.settings.tp_comm_overlap},
                        {"grad_reduce_bytes", t.settings.grad_reduce_bytes}};
  j["tokens_per_s"] = t.tokens_per_s;
  j["model_flops_per_step"] = t.model_flops_per_step;
  j["hardware_flops_per_step"] = t.hardware_flops_per_step;
  j["model_tflops_per_gpu"] = t.model_tflops_per_gpu;
  j["hardware_tflops_per_gpu"] = t.hardware_tflops_per_gpu;
  j["mfu"] = t.mfu;
  j["hfu"] = t.hfu;
}

void from_json(const Json& j, RankedLayout& r) {
  r = RankedLayout{};
  from_json(j, r.layout);
  // memory_gib is the breakdown's sum: derived, recomputed on writing.
  const Json& m = j.at("memory_breakdown");
  r.memory.weights_bytes = read_gib(m, "weights_gib");
  r.memory.gradients_bytes = read_gib(m, "gradients_gib");
  r.memory.optimizer_bytes = read_gib(m, "optimizer_gib");
  r.memory.activations_bytes = read_gib(m, "activations_gib");
  r.memory.embeddings_logits_bytes = read_gib(m, "embeddings_logits_gib");
  auto& t = r.time;
  read(j, "step_time_s", t.step_time_s);
  const Json& b = j.at("step_breakdown");
  for (const auto& [key, field] : kStepLines) read(b, key, t.breakdown.*field);
  const Json& hidden = j.at("hidden_by_overlap");
  for (const auto& [key, field] : kHiddenLines) read(hidden, key, t.breakdown.*field);
  const Json& settings = j.at("step_settings");
  read(settings, "overlap_grad_reduce", t.settings.overlap_grad_reduce);
  read(settings, "overlap_param_gather", t.settings.overlap_param_gather);
  read(settings, "tp_comm_overlap", t.settings.tp_comm_overlap);
  read(settings, "grad_reduce_bytes", t.settings.grad_reduce_bytes);
  read(j, "tokens_per_s", t.tokens_per_s);
  read(j, "model_flops_per_step", t.model_flops_per_step);
  read(j, "hardware_flops_per_step", t.hardware_flops_per_step);
  read(j, "model_tflops_per_gpu", t.model_tflops_per_gpu);
  read(j, "hardware_tflops_per_gpu", t.hardware_tflops_per_gpu);
  read(j, "mfu", t.mfu);
  read(j, "hfu", t.hfu);
}

void to_json(Json& j, const SearchOptions& o) {
  j = Json::object();
  j["trainer"] = o.trainer.name.empty() ? Json(nullptr) : Json(o.trainer.name);
  j["pins"] = o.pins;
  j["max_tp"] = doc::or_null(o.max_tp);
  j["max_cp"] = o.max_cp;
  j["max_vpp"] = o.max_vpp;
  j["max_micro_batch"] = o.max_micro_batch;
  j["objective"] = doc::enum_json(o.objective, kObjectiveNames);
  j["top_k"] = o.top_k;
  j["memory_headroom_fraction"] = o.memory.headroom_fraction;
  j["overlap_grad_reduce"] = doc::or_null(o.time.overlap_grad_reduce);
  j["overlap_param_gather"] = doc::or_null(o.time.overlap_param_gather);
  j["tp_comm_overlap"] = doc::or_null(o.time.tp_comm_overlap);
  j["grad_reduce"] = o.time.grad_reduce ? doc::enum_json(*o.time.grad_reduce, kGradReduceNames) : Json(nullptr);
}

void from_json(const Json& j, SearchOptions& o) {
  o = SearchOptions{};
  // The trainer by name; its rules are the catalog's (the reader resolves them before searching again).
  std::optional<std::string> trainer;
  read(j, "trainer", trainer);
  o.trainer.name = trainer.value_or("");
  read(j, "pins", o.pins);
  read(j, "max_tp", o.max_tp);
  read(j, "max_cp", o.max_cp);
  read(j, "max_vpp", o.max_vpp);
  read(j, "max_micro_batch", o.max_micro_batch);
  doc::read_enum(j, "objective", kObjectiveNames, o.objective);
  read(j, "top_k", o.top_k);
  read(j, "memory_headroom_fraction", o.memory.headroom_fraction);
  read(j, "overlap_grad_reduce", o.time.overlap_grad_reduce);
  read(j, "overlap_param_gather", o.time.overlap_param_gather);
  read(j, "tp_comm_overlap", o.time.tp_comm_overlap);
  if (!j.at("grad_reduce").is_null()) {
    GradReduce g{};
    doc::read_enum(j, "grad_reduce", kGradReduceNames, g);
    o.time.grad_reduce = g;
  }
}

void to_json(Json& j, const PrunedFamily& f) {
  j = Json{{"tp", f.tp},     {"pp", f.pp},         {"cp", f.cp},
           {"rule", f.rule}, {"reason", f.reason}, {"min_memory_gib", f.min_memory_bytes / kGiB}};
}

void from_json(const Json& j, PrunedFamily& f) {
  read(j, "tp", f.tp);
  read(j, "pp", f.pp);
  read(j, "cp", f.cp);
  read(j, "rule", f.rule);
  read(j, "reason", f.reason);
  f.min_memory_bytes = read_gib(j, "min_memory_gib");
}

void to_json(Json& j, const SuggestedChange& c) {
  j = Json::object();
  j["field"] = c.field;
  j["value"] = c.number ? Json(*c.number) : c.text ? Json(*c.text) : Json(nullptr);
  j["note"] = c.note;
}

void from_json(const Json& j, SuggestedChange& c) {
  c = SuggestedChange{};
  read(j, "field", c.field);
  const Json& v = j.at("value");
  if (v.is_number_integer()) read(j, "value", c.number);
  else if (v.is_string()) read(j, "value", c.text);
  else if (!v.is_null()) doc::fail_at(v, "must be an integer, a string or null");
  read(j, "note", c.note);
}

void to_json(Json& j, const Infeasibility& i) {
  j = Json::object();
  j["reason"] = i.reason;
  j["needed_memory_gib"] = i.needed_memory_bytes / kGiB;
  j["usable_memory_gib"] = i.usable_memory_bytes / kGiB;
  j["closest"] = i.closest;
  j["changes"] = i.changes;
}

void from_json(const Json& j, Infeasibility& i) {
  i = Infeasibility{};
  read(j, "reason", i.reason);
  i.needed_memory_bytes = read_gib(j, "needed_memory_gib");
  i.usable_memory_bytes = read_gib(j, "usable_memory_gib");
  read(j, "closest", i.closest);
  doc::read_array(j, "changes", i.changes);
}

Json job_settings_json(const JobSpec& job) {
  return Json{{"seq", job.seq},
              {"global_batch", job.global_batch},
              {"bytes_per_value", job.bytes_per_value},
              {"optimizer", doc::enum_json(job.optimizer, kOptimizerNames)}};
}

void read_job_settings(const Json& j, JobSpec& job) {
  read(j, "seq", job.seq);
  read(j, "global_batch", job.global_batch);
  read(j, "bytes_per_value", job.bytes_per_value);
  doc::read_enum(j, "optimizer", kOptimizerNames, job.optimizer);
}

}  // namespace isoflop::parallel

// JSON of allocations and bands.
#include "doc/allocation_json.hpp"

namespace isoflop::scaling {

using doc::Json;
using doc::or_null;
using doc::read;

void to_json(Json& j, const Allocation& a) {
  j = Json::object();
  j["law"] = a.law;
  j["method"] = a.method;
  j["flops"] = a.flops;
  j["params"] = a.params;
  j["tokens"] = a.tokens;
  j["tokens_per_param"] = a.tokens_per_param;
  j["loss"] = or_null(a.loss);
  j["unique_tokens"] = or_null(a.unique_tokens);
  j["epochs"] = or_null(a.epochs);
  j["inference_tokens"] = or_null(a.inference_tokens);
  j["inference_flops"] = or_null(a.inference_flops);
  j["total_flops"] = or_null(a.total_flops);
  if (a.compute_optimal_params || a.compute_optimal_tokens || a.compute_optimal_total_flops) {
    j["compute_optimal"] = {{"params", or_null(a.compute_optimal_params)},
                            {"tokens", or_null(a.compute_optimal_tokens)},
                            {"total_flops", or_null(a.compute_optimal_total_flops)}};
  } else {
    j["compute_optimal"] = nullptr;
  }
}

void from_json(const Json& j, Allocation& a) {
  a = Allocation{};
  read(j, "law", a.law);
  read(j, "method", a.method);
  read(j, "flops", a.flops);
  read(j, "params", a.params);
  read(j, "tokens", a.tokens);
  read(j, "tokens_per_param", a.tokens_per_param);
  read(j, "loss", a.loss);
  read(j, "unique_tokens", a.unique_tokens);
  read(j, "epochs", a.epochs);
  read(j, "inference_tokens", a.inference_tokens);
  read(j, "inference_flops", a.inference_flops);
  read(j, "total_flops", a.total_flops);
  const Json& co = j.at("compute_optimal");
  if (!co.is_null()) {
    if (!co.is_object()) doc::fail_at(co, "must be an object or null");
    read(co, "params", a.compute_optimal_params);
    read(co, "tokens", a.compute_optimal_tokens);
    read(co, "total_flops", a.compute_optimal_total_flops);
  }
}

void to_json(Json& j, const SkippedLaw& s) { j = Json{{"law", s.law}, {"reason", s.reason}}; }

void from_json(const Json& j, SkippedLaw& s) {
  read(j, "law", s.law);
  read(j, "reason", s.reason);
}

void to_json(Json& j, const AllocationBand& b) {
  j = Json::object();
  j["laws"] = b.laws;
  j["skipped"] = b.skipped;
  j["params_min"] = b.params_min;
  j["params_max"] = b.params_max;
  j["tokens_min"] = b.tokens_min;
  j["tokens_max"] = b.tokens_max;
  j["flops_min"] = b.flops_min;
  j["flops_max"] = b.flops_max;
  j["parameters"] = b.parameters;
  j["notes"] = b.notes;
}

void from_json(const Json& j, AllocationBand& b) {
  doc::read_array(j, "laws", b.laws);
  doc::read_array(j, "skipped", b.skipped);
  read(j, "parameters", b.parameters);
  doc::read_array(j, "notes", b.notes);
  read(j, "params_min", b.params_min);
  read(j, "params_max", b.params_max);
  read(j, "tokens_min", b.tokens_min);
  read(j, "tokens_max", b.tokens_max);
  read(j, "flops_min", b.flops_min);
  read(j, "flops_max", b.flops_max);
}

}  // namespace isoflop::scaling

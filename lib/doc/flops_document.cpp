// `flops`: the model and the workload resolved, then counted; and the document's JSON.
#include "doc/flops_document.hpp"

#include "core/error.hpp"
#include "doc/architecture_input.hpp"
#include "doc/architecture_json.hpp"

namespace isoflop::model {

void to_json(doc::Json& j, const FlopsCount& c) {
  j = doc::Json::object();
  j["convention"] = doc::enum_json(c.convention, kFlopsConventionNames);
  j["recompute"] = doc::enum_json(c.recompute, kRecomputeNames);
  j["params"] = c.params;
  j["params_kind"] = doc::enum_json(c.params_kind, kParamsKindNames);
  j["tokens"] = c.tokens;
  j["seq"] = c.seq;
  j["sequences"] = c.seq > 0 ? c.tokens / static_cast<double>(c.seq) : 0.0;
  j["model_flops"] = c.model_flops;
  j["hardware_flops"] = c.hardware_flops;
  j["flops_per_token"] = c.flops_per_token();
  j["note"] = c.note;
  doc::Json parts = doc::Json::object();
  for (const auto& p : c.parts) parts[p.name] = p.flops;
  j["parts"] = std::move(parts);
}

void from_json(const doc::Json& j, FlopsCount& c) {
  c = FlopsCount{};
  doc::read_enum(j, "convention", kFlopsConventionNames, c.convention);
  doc::read_enum(j, "recompute", kRecomputeNames, c.recompute);
  doc::read(j, "params", c.params);
  doc::read_enum(j, "params_kind", kParamsKindNames, c.params_kind);
  doc::read(j, "tokens", c.tokens);
  doc::read(j, "seq", c.seq);
  doc::read(j, "model_flops", c.model_flops);
  doc::read(j, "hardware_flops", c.hardware_flops);
  doc::read(j, "note", c.note);
  const doc::Json& parts = j.at("parts");
  if (!parts.is_object()) doc::fail_at(parts, "must be an object");
  for (const auto& [name, value] : parts.items()) {
    if (!value.is_number()) doc::fail_at(value, "must be a number");
    c.parts.push_back({name, value.get<double>()});
  }
}

}  // namespace isoflop::model

namespace isoflop::doc {

FlopsDocument count_flops(const catalog::Catalog& cat, const FlopsRequest& request) {
  FlopsDocument d;
  d.inputs = request;
  const int models = request.arch.has_value() + request.from.has_value() + request.params.has_value();
  if (models != 1) throw FieldError("arch", "give exactly one model: an architecture, a document, or a parameter count");
  if (request.tokens && request.global_batch)
    throw FieldError("tokens", "give the training tokens or a global batch, not both");
  std::optional<double> tokens = request.tokens;
  if (request.from) {
    const SourceDocument from = read_json_or_yaml_document(*request.from);
    d.architecture = architecture_of(from);
    const Json* allocation = from.kind == "plan" && from.json.contains("allocation") ? &from.json.at("allocation") : nullptr;
    if (!tokens && !request.global_batch && allocation && allocation->contains("tokens") &&
        allocation->at("tokens").is_number())
      tokens = allocation->at("tokens").get<double>();
  } else if (request.arch) {
    d.architecture = resolve_architecture(cat, *request.arch);
  }
  const long long seq = request.seq.value_or(d.architecture ? d.architecture->seq : 2048);
  if (seq < 1) throw FieldError("seq", "must be positive");
  if (request.global_batch) {
    if (*request.global_batch < 1) throw FieldError("global_batch", "must be positive");
    tokens = static_cast<double>(*request.global_batch) * static_cast<double>(seq);
  }
  if (!tokens) throw FieldError("tokens", "give the training tokens or a global batch (a plan document carries its tokens)");
  const model::Recompute recompute = request.recompute.value_or(model::default_recompute(request.convention));
  if (d.architecture) {
    d.flops = model::count_flops(*d.architecture, *tokens, seq, request.convention, recompute, request.non_embedding);
  } else {
    if (request.convention != model::FlopsConvention::k6nd)
      throw FieldError("flops_convention", std::string(model::kFlopsConventionNames.name(request.convention)) +
                                               " needs an architecture (a bare parameter count allows only 6nd)");
    d.flops = model::count_flops_6nd(*request.params, *tokens, seq, recompute);
  }
  return d;
}

void to_json(Json& j, const FlopsRequest& r) {
  j = Json::object();
  j["arch"] = or_null(r.arch);
  j["from"] = or_null(r.from);
  j["params"] = or_null(r.params);
  j["tokens"] = or_null(r.tokens);
  j["global_batch"] = or_null(r.global_batch);
  j["seq"] = or_null(r.seq);
  j["flops_convention"] = enum_json(r.convention, model::kFlopsConventionNames);
  j["recompute"] = r.recompute ? enum_json(*r.recompute, model::kRecomputeNames) : Json(nullptr);
  j["non_embedding"] = r.non_embedding;
}

void from_json(const Json& j, FlopsRequest& r) {
  r = FlopsRequest{};
  read(j, "arch", r.arch);
  read(j, "from", r.from);
  read(j, "params", r.params);
  read(j, "tokens", r.tokens);
  read(j, "global_batch", r.global_batch);
  read(j, "seq", r.seq);
  read_enum(j, "flops_convention", model::kFlopsConventionNames, r.convention);
  if (!j.at("recompute").is_null()) {
    model::Recompute recompute{};
    read_enum(j, "recompute", model::kRecomputeNames, recompute);
    r.recompute = recompute;
  }
  read(j, "non_embedding", r.non_embedding);
}

void to_json(Json& j, const FlopsDocument& d) {
  j = Json::object();
  j["schema"] = schema_id("flops");
  j["inputs"] = d.inputs;
  j["architecture"] = or_null(d.architecture);
  j["params"] = d.architecture ? Json(model::count_params(*d.architecture)) : Json(nullptr);
  j["flops"] = d.flops;
}

void from_json(const Json& j, FlopsDocument& d) {
  d = FlopsDocument{};
  j.at("inputs").get_to(d.inputs);
  read(j, "architecture", d.architecture);
  j.at("flops").get_to(d.flops);
}

}  // namespace isoflop::doc

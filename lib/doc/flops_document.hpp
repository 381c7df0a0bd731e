// The flops document: a model's parameters by component and a workload's FLOPs under one counting convention.
#pragma once

#include <optional>
#include <string>

#include "catalog/catalog.hpp"
#include "doc/architecture_json.hpp"
#include "model/architecture.hpp"
#include "model/flops_count.hpp"

namespace isoflop::doc {

struct FlopsRequest {
  std::optional<std::string> arch;        // catalog id or file (resolve_architecture)
  std::optional<std::string> from;        // an arch, flops, layout or plan document ("-": stdin)
  std::optional<double> params;           // a bare parameter count instead (6nd only)
  std::optional<double> tokens;           // the whole run …
  std::optional<long long> global_batch;  // … or one iteration of this many sequences
  std::optional<long long> seq;           // null: the architecture's (2048 without one)
  model::FlopsConvention convention = model::FlopsConvention::k6nd;
  std::optional<model::Recompute> recompute;  // null: the convention's default
  bool non_embedding = false;                 // 6nd with non-embedding parameters (Kaplan et al. 2020)
  bool operator==(const FlopsRequest&) const = default;
};

struct FlopsDocument {
  FlopsRequest inputs;
  std::optional<model::Architecture> architecture;
  model::FlopsCount flops;
  bool operator==(const FlopsDocument&) const = default;
};

// Resolves the model (arch, from, or params) and the workload, and counts. A plan given as `from` supplies its
// allocation's tokens when the request names none. Throws FieldError naming the request's field.
FlopsDocument count_flops(const catalog::Catalog& catalog, const FlopsRequest& request);

std::string render_flops_page(const FlopsDocument& document);

// Inputs not given are null.
template <>
inline constexpr auto fields<FlopsRequest> =
    std::tuple{field("arch", &FlopsRequest::arch),
               field("from", &FlopsRequest::from), field("params", &FlopsRequest::params),
               field("tokens", &FlopsRequest::tokens), field("global_batch", &FlopsRequest::global_batch),
               field("seq", &FlopsRequest::seq),
               field("flops_convention", &FlopsRequest::convention, names(model::kFlopsConventionNames)),
               field("recompute", &FlopsRequest::recompute, names(model::kRecomputeNames)),
               field("non_embedding", &FlopsRequest::non_embedding)};

// "sequences" and "flops_per_token" are derived; "parts" maps each operation to its FLOPs.
template <>
inline constexpr auto fields<model::FlopsCount> = std::tuple{
    field("convention", &model::FlopsCount::convention, names(model::kFlopsConventionNames)),
    field("recompute", &model::FlopsCount::recompute, names(model::kRecomputeNames)),
    field("params", &model::FlopsCount::params),
    field("params_kind", &model::FlopsCount::params_kind, names(model::kParamsKindNames)),
    field("tokens", &model::FlopsCount::tokens), field("seq", &model::FlopsCount::seq),
    derived("sequences",
            [](const model::FlopsCount& c) { return c.seq > 0 ? c.tokens / static_cast<double>(c.seq) : 0.0; }),
    field("model_flops", &model::FlopsCount::model_flops), field("hardware_flops", &model::FlopsCount::hardware_flops),
    derived("flops_per_token", [](const model::FlopsCount& c) { return c.flops_per_token(); }),
    field("note", &model::FlopsCount::note),
    custom(
        "parts",
        [](const model::FlopsCount& c) {
          Json parts = Json::object();
          for (const auto& p : c.parts) parts[p.name] = p.flops;
          return parts;
        },
        [](const Json& parts, model::FlopsCount& c) {
          require_object(parts);
          for (const auto& [name, value] : parts.items()) {
            c.parts.push_back(model::FlopsPart{name, 0.0});
            read_value(value, c.parts.back().flops);
          }
        })};

// "architecture" and "params" (by component, derived) are null for a bare parameter count.
template <>
inline constexpr auto fields<FlopsDocument> = std::tuple{
    schema_key("flops"), field("inputs", &FlopsDocument::inputs), field("architecture", &FlopsDocument::architecture),
    derived("params",
            [](const FlopsDocument& d) {
              return d.architecture ? Json(model::count_params(*d.architecture)) : Json(nullptr);
            }),
    field("flops", &FlopsDocument::flops)};

}  // namespace isoflop::doc

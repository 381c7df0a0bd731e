// The flops document: a model's parameters by component and a workload's FLOPs under one counting convention.
//
//   {"schema": "isoflop/flops/v2",
//    "inputs": {"arch", "from", "params", "tokens", "global_batch", "seq", "flops_convention", "recompute",
//               "non_embedding"},
//    "architecture": null | {…architecture_json.hpp…},
//    "params": null | {"token_embedding", …, "total", "non_embedding", "active"},
//    "flops": {"convention", "recompute", "params", "params_kind", "tokens", "seq", "sequences", "model_flops",
//              "hardware_flops", "flops_per_token", "note", "parts": {"qkv": …, …}}}
//
// "architecture" and "params" are null for a bare parameter count (--params). Inputs not given are null.
// "params" (by component), "flops.sequences" and "flops.flops_per_token" are derived.
#pragma once

#include <optional>
#include <string>

#include "catalog/catalog.hpp"
#include "doc/document.hpp"
#include "model/architecture.hpp"
#include "model/flops_count.hpp"

namespace isoflop::model {

void to_json(doc::Json& j, const FlopsCount& count);
void from_json(const doc::Json& j, FlopsCount& count);

}  // namespace isoflop::model

namespace isoflop::doc {

struct FlopsRequest {
  std::optional<std::string> arch;            // catalog id or file (resolve_architecture)
  std::optional<std::string> from;            // an arch, flops, layout or plan document ("-": stdin)
  std::optional<double> params;               // a bare parameter count instead (6nd only)
  std::optional<double> tokens;               // the whole run …
  std::optional<long long> global_batch;      // … or one iteration of this many sequences
  std::optional<long long> seq;               // null: the architecture's (2048 without one)
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

void to_json(Json& j, const FlopsRequest& r);
void from_json(const Json& j, FlopsRequest& r);
void to_json(Json& j, const FlopsDocument& d);
void from_json(const Json& j, FlopsDocument& d);

}  // namespace isoflop::doc

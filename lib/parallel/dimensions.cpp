// The table of parallel knobs and the conversions of their values.
#include "parallel/dimensions.hpp"

#include <charconv>
#include <climits>
#include <type_traits>

#include "core/error.hpp"
#include "parallel/stages.hpp"

namespace isoflop::parallel {
namespace {

using Space = SearchSpace;

// A row of the table from the knob's members of Layout and of LayoutPins.
template <auto LayoutField, auto PinField>
constexpr Dimension knob(std::string_view name, std::string_view label, std::string_view meaning, ValueType type,
                         int min, int max, bool family, Enumeration enumeration,
                         long long (*of)(const Space&, const Layout&) = nullptr,
                         long long (*up_to)(const Space&, const Layout&) = nullptr,
                         bool (*admits)(const Space&, const Layout&) = nullptr) {
  using Value = std::remove_cvref_t<decltype(std::declval<Layout&>().*LayoutField)>;
  Dimension d{name, label, meaning, type, min, max, family, nullptr, nullptr, nullptr, nullptr,
              enumeration, of, up_to, admits};
  d.get = [](const Layout& l) { return static_cast<int>(l.*LayoutField); };
  d.set = [](Layout& l, int v) { l.*LayoutField = static_cast<Value>(v); };
  d.pinned = [](const LayoutPins& p) -> std::optional<int> {
    if (const auto& v = p.*PinField) return static_cast<int>(*v);
    return std::nullopt;
  };
  d.pin = [](LayoutPins& p, std::optional<int> v) {
    if (v) p.*PinField = static_cast<Value>(*v);
    else p.*PinField = std::nullopt;
  };
  return d;
}

long long gpus(const Space& s, const Layout&) { return s.cluster.gpus; }
long long max_tp(const Space& s, const Layout&) { return s.max_tp; }
long long gpus_per_tp(const Space& s, const Layout& l) { return s.cluster.gpus / l.tp; }
long long layers(const Space& s, const Layout&) { return s.job.architecture.layers; }
long long gpus_per_tp_pp(const Space& s, const Layout& l) { return s.cluster.gpus / (static_cast<long long>(l.tp) * l.pp); }
long long max_cp(const Space& s, const Layout&) { return s.max_cp; }
long long data_parallel(const Space& s, const Layout& l) {
  return s.cluster.gpus / (static_cast<long long>(l.tp) * l.pp * l.cp);
}
long long expert_group(const Space& s, const Layout& l) { return s.job.architecture.moe.enabled() ? l.dp : 1; }
long long experts(const Space& s, const Layout&) {
  return s.job.architecture.moe.enabled() ? s.job.architecture.moe.experts : 1;
}
long long layers_per_stage(const Space& s, const Layout& l) { return s.job.architecture.layers / l.pp; }
// Uneven first and last stages where the trainer runs them and the layers do not divide PP·VPP; a pinned
// first (last) stage leaves the other split like the middle ones.
EdgeLayers edge_layers(const Space& s, const Layout& l) {
  if (!s.trainer.uneven_stages || s.pins.first_stage_layers || s.pins.last_stage_layers) return {0, 0};
  return balanced_edge_layers(s.job.architecture.layers, l.pp, l.vpp);
}
long long first_layers(const Space& s, const Layout& l) { return edge_layers(s, l).first; }
long long last_layers(const Space& s, const Layout& l) { return edge_layers(s, l).last; }
long long max_vpp(const Space& s, const Layout&) { return s.max_vpp; }
long long sequences_per_replica(const Space& s, const Layout& l) { return s.job.global_batch / l.dp; }
long long max_micro_batch(const Space& s, const Layout&) { return s.max_micro_batch; }

// Tensor parallelism splits the heads; the pipeline splits the layers and the GPUs left by TP.
bool heads_divide(const Space& s, const Layout& l) {
  return s.job.architecture.heads % l.tp == 0 && s.job.architecture.effective_kv_heads() % l.tp == 0;
}
// Layers not divisible by PP need uneven first/last stages: pinned, or a trainer that runs them.
bool stages_divide(const Space& s, const Layout& l) {
  const int layers = s.job.architecture.layers;
  if ((s.cluster.gpus / l.tp) % l.pp != 0) return false;
  if (layers % l.pp == 0 || s.pins.first_stage_layers || s.pins.last_stage_layers) return true;
  return s.trainer.uneven_stages && balanced_edge_layers(layers, l.pp, 1).first > 0;
}
// Ring attention splits the sequence into CP chunks (Liu et al. 2023).
bool sequence_divides(const Space& s, const Layout& l) { return s.job.seq % l.cp == 0; }
// Sequence parallelism splits along the tensor-parallel group (Korthikanti et al. 2022 §4.2.2).
bool sequence_parallel_needs_tp(const Space&, const Layout& l) { return !(l.sequence_parallel && l.tp == 1); }

const std::array<Dimension, kDimensionCount> kTable = {
    knob<&Layout::tp, &LayoutPins::tp>("tp", "TP", "tensor-parallel degree", ValueType::kInteger, 1, INT_MAX, true,
                                       Enumeration::kDivisors, gpus, max_tp, heads_divide),
    knob<&Layout::pp, &LayoutPins::pp>("pp", "PP", "pipeline-parallel degree", ValueType::kInteger, 1, INT_MAX, true,
                                       Enumeration::kDivisors, gpus_per_tp, layers, stages_divide),
    knob<&Layout::cp, &LayoutPins::cp>("cp", "CP", "context-parallel degree (ring attention)", ValueType::kInteger, 1,
                                       INT_MAX, true, Enumeration::kDivisors, gpus_per_tp_pp, max_cp, sequence_divides),
    knob<&Layout::dp, &LayoutPins::dp>("dp", "DP", "data-parallel degree", ValueType::kInteger, 1, INT_MAX, true,
                                       Enumeration::kDerived, data_parallel),
    knob<&Layout::ep, &LayoutPins::ep>("ep", "EP", "expert-parallel degree (MoE)", ValueType::kInteger, 1, INT_MAX,
                                       false, Enumeration::kDivisors, expert_group, experts),
    knob<&Layout::vpp, &LayoutPins::vpp>("vpp", "VPP", "virtual stages per device (interleaved 1F1B)",
                                         ValueType::kInteger, 1, INT_MAX, false, Enumeration::kDivisors,
                                         layers_per_stage, max_vpp),
    knob<&Layout::first_stage_layers, &LayoutPins::first_stage_layers>(
        "first_stage_layers", "first", "layers on the first pipeline stage (0: an even split)", ValueType::kInteger, 0,
        INT_MAX, false, Enumeration::kDefault, first_layers),
    knob<&Layout::last_stage_layers, &LayoutPins::last_stage_layers>(
        "last_stage_layers", "last", "layers on the last pipeline stage (0: an even split)", ValueType::kInteger, 0,
        INT_MAX, false, Enumeration::kDefault, last_layers),
    knob<&Layout::micro_batch, &LayoutPins::micro_batch>("micro_batch", "MB", "micro-batch (sequences)",
                                                         ValueType::kInteger, 1, INT_MAX, false,
                                                         Enumeration::kDivisors, sequences_per_replica,
                                                         max_micro_batch),
    knob<&Layout::zero_stage, &LayoutPins::zero_stage>("zero_stage", "ZeRO", "ZeRO stage", ValueType::kInteger, 0, 3,
                                                       false, Enumeration::kRange),
    knob<&Layout::recompute, &LayoutPins::recompute>("recompute", "recompute", "activation recompute",
                                                     ValueType::kRecompute, 0,
                                                     static_cast<int>(kRecomputeNames.entries.size()) - 1, false,
                                                     Enumeration::kRange),
    knob<&Layout::sequence_parallel, &LayoutPins::sequence_parallel>(
        "sequence_parallel", "SP", "sequence parallelism", ValueType::kSwitch, 0, 1, false, Enumeration::kRange,
        nullptr, nullptr, sequence_parallel_needs_tp),
};

}  // namespace

const std::array<Dimension, kDimensionCount>& dimensions() { return kTable; }

size_t family_dimensions() {
  size_t n = 0;
  while (n < kTable.size() && kTable[n].family) ++n;
  return n;
}

const Dimension* find_dimension(std::string_view name) {
  for (const auto& d : kTable)
    if (d.name == name) return &d;
  return nullptr;
}

std::string format_value(const Dimension& d, int value) {
  switch (d.type) {
    case ValueType::kRecompute: return std::string(kRecomputeNames.name(static_cast<Recompute>(value)));
    case ValueType::kSwitch: return value ? "on" : "off";
    case ValueType::kInteger: break;
  }
  return std::to_string(value);
}

void check_range(const Dimension& d, int value) {
  if (value >= d.min && value <= d.max) return;
  const std::string got = std::to_string(value);
  if (d.max == INT_MAX) throw FieldError(std::string(d.name), "must be at least " + std::to_string(d.min) + ", got " + got);
  std::string accepted;
  for (int v = d.min; v <= d.max; ++v) accepted += (v == d.min ? "" : ", ") + format_value(d, v);
  throw FieldError(std::string(d.name), got + " is not a " + std::string(d.meaning) + "; accepted: " + accepted);
}

int parse_value(const Dimension& d, std::string_view text) {
  const std::string field(d.name);
  switch (d.type) {
    case ValueType::kRecompute:
      for (const auto& [v, n] : kRecomputeNames.entries)
        if (n == text) return static_cast<int>(v);
      throw FieldError(field, "'" + std::string(text) + "' is not one of " + join(kRecomputeNames.names(), "|"));
    case ValueType::kSwitch:
      if (text == "on" || text == "true") return 1;
      if (text == "off" || text == "false") return 0;
      throw FieldError(field, "'" + std::string(text) + "' is not one of on|off");
    case ValueType::kInteger: break;
  }
  int value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size())
    throw FieldError(field, "'" + std::string(text) + "' is not an integer");
  check_range(d, value);
  return value;
}

}  // namespace isoflop::parallel

// The embedded catalog as records: each entry type lists its fields once (fields() below), and one writer
// and one reader walk those lists. At build time lib/catalog/embed/write_records.cpp parses data/*.yaml with
// this library and writes the resulting Catalog as bytes; the binary reads them back at start without a
// YAML tree (building one cost ~11 M instructions a start). tests/catalog proves the records equal a fresh
// parse of data/*.yaml, entry by entry (operator== compares every member, so a field missing here fails it).
// The bytes are the build machine's own representation: the tool runs where the binary is built.
#pragma once

#include <array>
#include <concepts>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "catalog/catalog.hpp"
#include "core/error.hpp"

namespace isoflop::catalog::records {

// `E` is `T` or `const T`: one field list serves the writer (const) and the reader.
template <class E, class T>
concept either = std::same_as<std::remove_const_t<E>, T>;

template <either<model::MoeConfig> E, class F> void fields(E& m, F&& f) {
  f(m.experts, m.top_k, m.capacity_factor, m.eval_capacity_factor, m.every, m.shared_experts, m.expert_ffn);
}
template <either<model::Architecture> E, class F> void fields(E& a, F&& f) {
  f(a.name, a.layers, a.d_model, a.heads, a.kv_heads, a.head_size, a.ffn, a.activation, a.vocab,
    a.vocab_pad_multiple, a.seq, a.positional, a.tied_embeddings, a.norm, a.bias, a.moe);
}
template <either<Accelerator> E, class F> void fields(E& a, F&& f) {
  f(a.name, a.display_name, a.vendor, a.peak_16bit_flops, a.peak_fp32_flops, a.peak_fp8_flops, a.bf16,
    a.flash_attention, a.transformer_engine, a.memory_bytes, a.memory_bandwidth_bytes_per_s, a.tdp_w,
    a.measured_power_w, a.reference_node, a.gemm_efficiency_max, a.gemm_half_width, a.gemm_half_rows, a.calibrated,
    a.comm_efficiency, a.zero3_overlap, a.layer_overhead_s, a.calibration_source, a.source, a.file);
}
template <either<Node> E, class F> void fields(E& n, F&& f) {
  f(n.name, n.display_name, n.accelerator, n.gpus_per_node, n.max_power_w, n.intra_node_bandwidth_bytes_per_s,
    n.inter_node_bandwidth_bytes_per_s, n.network, n.cpu_cores, n.source, n.file);
}
template <either<Cluster> E, class F> void fields(E& c, F&& f) {
  f(c.name, c.display_name, c.node, c.nodes, c.network, c.source, c.file);
}
template <either<Grid> E, class F> void fields(E& g, F&& f) {
  f(g.name, g.display_name, g.kind, g.intensity_kg_per_kwh, g.year, g.map_candidate, g.source, g.file);
}
template <either<PuePreset> E, class F> void fields(E& p, F&& f) {
  f(p.name, p.display_name, p.pue, p.source, p.file);
}
template <either<ParametricLaw> E, class F> void fields(E& l, F&& f) {
  f(l.E, l.A, l.B, l.alpha, l.beta, l.r_d_star, l.gamma);
}
template <either<KaplanLaw> E, class F> void fields(E& l, F&& f) {
  f(l.nc, l.dc, l.alpha_n, l.alpha_d, l.frontier_coefficient, l.frontier_exponent, l.flops_per_pf_day);
}
template <either<DataConstrainedLaw> E, class F> void fields(E& l, F&& f) { f(l.base, l.r_n_star); }
template <either<AllocationRow> E, class F> void fields(E& r, F&& f) { f(r.params, r.flops, r.tokens); }
template <either<AllocationTableLaw> E, class F> void fields(E& l, F&& f) { f(l.rows, l.exponent_a, l.exponent_b); }
template <either<PowerLawAllocation> E, class F> void fields(E& l, F&& f) {
  f(l.tokens_coefficient, l.tokens_exponent);
}
template <either<LawSpec> E, class F> void fields(E& l, F&& f) {
  f(l.name, l.display_name, l.form, l.convention, l.parameters, l.dataset, l.note, l.fitted_params,
    l.fitted_params_source, l.source, l.file);
}
template <either<ModelEntry> E, class F> void fields(E& m, F&& f) {
  f(m.name, m.display_name, m.architecture, m.published_params, m.tokens_trained, m.source, m.file);
}
template <either<RunCostConstants> E, class F> void fields(E& c, F&& f) {
  f(c.name, c.tdp_utilisation, c.host_overhead_w, c.tdp_source, c.lifetime_s, c.memory_kg_per_gb, c.embodied_source,
    c.model_factor, c.model_source, c.mechanization_pue, c.mechanization_source, c.published_ranges, c.ranges_source,
    c.default_pue, c.default_pue_source, c.batch_coefficient, c.batch_exponent, c.batch_source, c.min_mfu,
    c.min_mfu_source, c.max_pue, c.max_grid_kg_per_kwh, c.power_tdp_ratio, c.min_utilisation,
    c.max_price_per_gpu_hour_usd, c.max_price_per_kwh_usd, c.plausible_source, c.file);
}
template <either<EmbodiedCarbon> E, class F> void fields(E& c, F&& f) {
  f(c.name, c.die_area_cm2, c.kg_per_cm2, c.source, c.file);
}
template <either<ShapeRow> E, class F> void fields(E& r, F&& f) {
  f(r.params, r.d_model, r.layers, r.heads, r.head_size, r.kv_heads, r.ffn);
}
template <either<ShapeBand> E, class F> void fields(E& b, F&& f) { f(b.below_params, b.d_model, b.heads); }
template <either<ShapeFamily> E, class F> void fields(E& s, F&& f) {
  f(s.name, s.display_name, s.rule, s.block, s.rows, s.smoothing_ln, s.bands, s.vocab_pad_per_tp, s.source, s.file);
}
template <either<MoeRecommendations> E, class F> void fields(E& m, F&& f) {
  f(m.name, m.top_k, m.capacity_factor, m.eval_capacity_factor, m.max_experts, m.max_experts_per_device, m.every,
    m.source, m.file);
}
template <either<TrainerDefaults> E, class F> void fields(E& d, F&& f) {
  f(d.overlap_grad_reduce, d.overlap_param_gather, d.tp_comm_overlap, d.grad_reduce, d.source);
}
template <either<TrainerPositions> E, class F>
void fields(E& p, F&& f) {
  f(p.spelled, p.source);
}
template <either<TrainerRules> E, class F> void fields(E& t, F&& f) {
  f(t.name, t.display_name, t.version, t.zero_stages, t.zero_stages_fp16, t.max_zero_stage_with_pipeline,
    t.max_zero_stage_with_experts, t.zero_experts_scope_model, t.zero3_tied_embeddings, t.tensor_parallel,
    t.tp_within_node, t.sequence_parallel, t.pipeline, t.uneven_stages, t.interleaving, t.interleaving_min_pp,
    t.context_parallel, t.context_sequence_multiple, t.expert_parallel, t.expert_parallel_fp16, t.rule_sources,
    t.defaults, t.positions, t.source, t.file);
}
template <either<Catalog> E, class F> void fields(E& c, F&& f) {
  f(c.accelerators, c.nodes, c.clusters, c.grids, c.pue_presets, c.laws, c.models, c.run_cost, c.embodied_carbon,
    c.shape_families, c.moe_recommendations, c.trainers);
}

// Appends values to `bytes`: numbers as their bytes, a string or list as its length then its items, an
// optional as a flag then its value, a variant as its index then its alternative, a struct as its fields.
struct Writer {
  std::string bytes;

  template <class... T>
  void operator()(const T&... values) { (put(values), ...); }

 private:
  void put(const std::string& s) {
    put(static_cast<std::uint32_t>(s.size()));
    bytes += s;
  }
  template <class T>
    requires std::is_arithmetic_v<T> || std::is_enum_v<T>
  void put(const T& value) {
    bytes.append(reinterpret_cast<const char*>(&value), sizeof value);
  }
  template <class T>
  void put(const std::optional<T>& value) {
    put(value.has_value());
    if (value) put(*value);
  }
  template <class T>
  void put(const std::vector<T>& items) {
    put(static_cast<std::uint32_t>(items.size()));
    for (const auto& item : items) put(item);
  }
  template <class T, size_t N>
  void put(const std::array<T, N>& items) {
    for (const auto& item : items) put(item);
  }
  template <class... T>
  void put(const std::variant<T...>& value) {
    put(static_cast<std::uint32_t>(value.index()));
    std::visit([this](const auto& alternative) { put(alternative); }, value);
  }
  template <class T>
    requires std::is_class_v<T>
  void put(const T& value) {
    fields(value, *this);
  }
};

// Reads what Writer wrote, in the same order.
class Reader {
 public:
  explicit Reader(std::string_view bytes) : bytes_(bytes) {}

  template <class... T>
  void operator()(T&... values) { (get(values), ...); }
  bool done() const { return at_ == bytes_.size(); }

 private:
  const char* take(size_t n) {
    if (n > bytes_.size() - at_) throw CatalogError("catalog: the embedded records are truncated");
    const char* p = bytes_.data() + at_;
    at_ += n;
    return p;
  }
  std::uint32_t count() {
    std::uint32_t n = 0;
    get(n);
    return n;
  }
  void get(std::string& s) {
    const std::uint32_t n = count();
    s.assign(take(n), n);
  }
  template <class T>
    requires std::is_arithmetic_v<T> || std::is_enum_v<T>
  void get(T& value) {
    std::memcpy(&value, take(sizeof value), sizeof value);
  }
  template <class T>
  void get(std::optional<T>& value) {
    bool present = false;
    get(present);
    if (present) get(value.emplace());
    else value.reset();
  }
  template <class T>
  void get(std::vector<T>& items) {
    items.resize(count());
    for (auto& item : items) get(item);
  }
  template <class T, size_t N>
  void get(std::array<T, N>& items) {
    for (auto& item : items) get(item);
  }
  template <class... T>
  void get(std::variant<T...>& value) {
    emplace_alternative<0>(value, count());
  }
  template <size_t I, class... T>
  void emplace_alternative(std::variant<T...>& value, std::uint32_t index) {
    if constexpr (I < sizeof...(T)) {
      if (index == I) get(value.template emplace<I>());
      else emplace_alternative<I + 1>(value, index);
    } else {
      throw CatalogError("catalog: the embedded records hold an unknown kind of entry");
    }
  }
  template <class T>
    requires std::is_class_v<T>
  void get(T& value) {
    fields(value, *this);
  }

  std::string_view bytes_;
  size_t at_ = 0;
};

// The embedded catalog's records (generated at build time from data/*.yaml).
std::string_view embedded_records();

}  // namespace isoflop::catalog::records

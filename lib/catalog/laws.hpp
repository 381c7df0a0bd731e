// Scaling-law constants from laws.yaml: parametric loss laws, Kaplan's law, the data-constrained law,
// and allocation-only tables.
#pragma once

#include <array>
#include <string>
#include <variant>
#include <vector>

#include "catalog/field_reader.hpp"
#include "core/enum_names.hpp"

namespace isoflop::catalog {

// parametric: L = E + A/N^α + B/D^β; kaplan: Kaplan et al. 2020 eq. 1.5 and Table 6; data-constrained:
// Muennighoff et al. 2023; allocation-table: rows of (N, C, D) (Chinchilla Table 3); power-law: an
// allocation-only frontier D_opt = k·C^p (DeepSeek 2024, Llama 3).
ISOFLOP_NAMED_ENUM(LawKind, (kParametric, "parametric"), (kKaplan, "kaplan"), (kDataConstrained, "data-constrained"),
                   (kAllocationTable, "allocation-table"), (kPowerLaw, "power-law"));

// One row of an allocation table (Chinchilla Table 3).
struct AllocationRow {
  double params = 0;
  double flops = 0;
  double tokens = 0;
  bool operator==(const AllocationRow&) const = default;
};

// Chinchilla-type parametric law L(N, D) = E + A/N^α + B/D^β (Hoffmann et al. 2022, eq. 2), or with an
// interaction exponent γ, L = E + (A/N^α + B/D^β)^γ (lib/fit/interaction.hpp; `isoflop fit --form` saves one).
// At fixed compute γ does not move the optimum, so the allocation (eq. 4) is the same either way. It may carry
// a repetition decay r_d_star (0 = none): then repeated tokens count as Muennighoff et al. 2023's effective data.
struct ParametricLaw {
  double E = 0, A = 0, B = 0, alpha = 0, beta = 0;
  double r_d_star = 0;
  double gamma = 1;  // 1: Chinchilla's additive law

  // E + (A/N^α + B/D^β)^γ: the closed form, written once.
  double loss(double params, double tokens) const;
  bool operator==(const ParametricLaw&) const = default;
};

// Muennighoff et al. 2023: a parametric law whose repeated tokens (r_d_star, required) and excess parameters
// (r_n_star) decay.
struct DataConstrainedLaw {
  ParametricLaw base;  // base.r_d_star > 0
  double r_n_star = 0;
  bool operator==(const DataConstrainedLaw&) const = default;
};

// Kaplan et al. 2020, Table 6 (non-embedding parameters): L(N, D) = [(Nc/N)^(αN/αD) + Dc/D]^αD, and the
// compute-efficient frontier N_opt = frontier_coefficient · C_min^frontier_exponent (C in PF-days).
struct KaplanLaw {
  double nc = 0, dc = 0, alpha_n = 0, alpha_d = 0;
  double frontier_coefficient = 0, frontier_exponent = 0;
  double flops_per_pf_day = 0;  // 1 PF-day in FLOPs (8.64e19), the unit of Kaplan's C_min
  bool operator==(const KaplanLaw&) const = default;
};

// Allocation-only table: rows and the exponents used outside them (N ∝ C^exponent_a, D ∝ C^exponent_b).
struct AllocationTableLaw {
  std::vector<AllocationRow> rows;
  double exponent_a = 0, exponent_b = 0;
  bool operator==(const AllocationTableLaw&) const = default;
};

// Allocation-only frontier D_opt = tokens_coefficient · C^tokens_exponent, N = C/(6·D).
struct PowerLawAllocation {
  double tokens_coefficient = 0, tokens_exponent = 0;
  bool operator==(const PowerLawAllocation&) const = default;
};

// The kinds of law, in the order of LawKind.
using LawForm = std::variant<ParametricLaw, KaplanLaw, DataConstrainedLaw, AllocationTableLaw, PowerLawAllocation>;

struct LawSpec {
  std::string name;          // "chinchilla", "epoch-2024", …
  std::string display_name;
  LawForm form;
  std::string convention;    // how N and C are counted ("total params, 6ND", "non-embedding", …)
  std::string parameters = "total";  // "total" or "non-embedding": which parameters N counts (bands hold one kind)
  std::string dataset;       // what the law was fitted on; losses of different datasets do not compare
  std::string note;          // caveats worth printing
  // The model sizes (in the law's own N) of the runs it was fitted to; {0, 0}: not catalogued. An answer outside
  // them is an extrapolation, and says so.
  std::array<double, 2> fitted_params{};
  std::string fitted_params_source;
  std::string source;
  std::string file;

  LawKind kind() const { return static_cast<LawKind>(form.index()); }
  // The parametric core (E, A, B, α, β, r_d_star) of a parametric or data-constrained law; nullptr otherwise.
  const ParametricLaw* parametric() const;
  ParametricLaw* parametric();
  template <class T>
  const T* as() const { return std::get_if<T>(&form); }
};

LawSpec parse_law(FieldReader& reader);

}  // namespace isoflop::catalog

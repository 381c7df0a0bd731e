// Scaling-law constants from laws.yaml: parametric loss laws, Kaplan's law, the data-constrained law,
// and allocation-only tables.
#pragma once

#include <string>
#include <vector>

#include "catalog/field_reader.hpp"
#include "core/enum_names.hpp"

namespace isoflop::catalog {

// parametric: L = E + A/N^α + B/D^β; kaplan: Kaplan et al. 2020 eq. 1.5 and Table 6; data-constrained:
// Muennighoff et al. 2023; allocation-table: rows of (N, C, D) (Chinchilla Table 3); power-law: an
// allocation-only frontier D_opt = k·C^p (DeepSeek 2024, Llama 3).
enum class LawKind { kParametric, kKaplan, kDataConstrained, kAllocationTable, kPowerLaw };
inline constexpr EnumNames<LawKind, 5> kLawKindNames{{{{LawKind::kParametric, "parametric"},
                                                       {LawKind::kKaplan, "kaplan"},
                                                       {LawKind::kDataConstrained, "data-constrained"},
                                                       {LawKind::kAllocationTable, "allocation-table"},
                                                       {LawKind::kPowerLaw, "power-law"}}}};

// One row of an allocation table (Chinchilla Table 3).
struct AllocationRow {
  double params = 0;
  double flops = 0;
  double tokens = 0;
};

struct LawSpec {
  std::string name;          // "chinchilla", "epoch-2024", …
  std::string display_name;
  LawKind kind = LawKind::kParametric;
  // Parametric L(N, D) = E + A/N^alpha + B/D^beta (also the base of the data-constrained law).
  double E = 0, A = 0, B = 0, alpha = 0, beta = 0;
  // Data-constrained (Muennighoff et al. 2023): decay constants for repeated tokens and excess parameters.
  // A parametric law may carry r_d_star too (0 = none): then it accounts for repeated tokens.
  double r_d_star = 0, r_n_star = 0;
  // Kaplan et al. 2020, Table 6 (non-embedding parameters): L(N, D) = [(Nc/N)^(αN/αD) + Dc/D]^αD,
  // and the compute-efficient frontier N_opt = n_e · C_min^p_n (C in PF-days).
  double kaplan_nc = 0, kaplan_dc = 0, kaplan_alpha_n = 0, kaplan_alpha_d = 0;
  double kaplan_frontier_coefficient = 0, kaplan_frontier_exponent = 0;
  double kaplan_flops_per_pf_day = 0;  // 1 PF-day in FLOPs (8.64e19), the unit of Kaplan's C_min
  // Power-law allocation (kind power-law): D_opt = tokens_coefficient · C^tokens_exponent, N = C/(6·D).
  double tokens_coefficient = 0, tokens_exponent = 0;
  // Allocation-only table: rows and the exponents used outside them (N ∝ C^a, D ∝ C^b).
  std::vector<AllocationRow> rows;
  double table_exponent_a = 0, table_exponent_b = 0;
  std::string convention;    // how N and C are counted ("total params, 6ND", "non-embedding", …)
  std::string note;          // caveats worth printing
  std::string source;
  std::string file;
};

LawSpec parse_law(FieldReader& reader);

}  // namespace isoflop::catalog

// Designing a scaled-down IsoFLOP sweep (Hoffmann et al. 2022 §3.2, Approach 2) that checks a plan: K budgets
// spaced ×3 whose runs add up to the preset's total compute, M model sizes per budget log-spaced around the
// law's N_opt there (so the minimum of each IsoFLOP curve lies inside), each shaped like the plan's family,
// tokens from C = 6·N·D, and one learning-rate and warm-up rule for all.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.hpp"
#include "doc/sweep_document.hpp"
#include "plan/plan.hpp"
#include "validate/presets.hpp"

namespace isoflop::validate {

// What the sweep checks: the plan's law, budget, optimum and family.
struct SweepTarget {
  doc::SweepOrigin origin;
  catalog::LawSpec law;
  std::optional<model::ShapeFamily> family;  // the shape family named like the plan's family ("chinchilla")
  double reference_aspect = 0;               // else the reference model's d_model / layers
};

// From a plan document: its allocation law (looked up in the catalog, or `law` when given), its budget, N_opt,
// D_opt, family (or `family` when given) and accelerator. Throws FieldError("from", …) for a plan with no law or
// no compute-optimal allocation.
SweepTarget target_from_plan(const plan::PlanResult& plan, const std::string& plan_file,
                             const catalog::Catalog& catalog, const std::optional<catalog::LawSpec>& law,
                             const std::optional<std::string>& family);
// From a budget and a law: N_opt and D_opt by scaling::allocate, shaped after `family` (a shape family or a
// catalog model). `law_flags` are recorded as given.
SweepTarget target_from_law(const catalog::LawSpec& law, double flops, const std::string& family,
                            const std::vector<std::string>& law_flags, const catalog::Catalog& catalog);

struct DesignRequest {
  SweepTarget target;
  Preset preset;            // after overrides (total_flops, budgets, sizes)
  std::string preset_name;  // "custom" when overridden
  train::DataConfig data;   // the source and its parameters; the corpus length is sized per run
  std::string peak_device;  // catalog accelerator for MFU ("" = detected)
};

// The sweep. Throws FieldError naming "total_flops", "budgets" or "sizes" when a budget is too small for the
// smallest model (fewer than min_steps steps) and InputError for a law without an allocation.
doc::SweepDocument design_sweep(const DesignRequest& request, const LrRule& rule);

// The run's job: shape, tokens, learning rate, data, evaluation and checkpoints as the sweep says; its output
// is `folder` (a path as the job file will name it).
train::Job run_job(const doc::SweepDocument& sweep, const doc::SweepRun& run, const std::string& folder);

}  // namespace isoflop::validate

// JSON of the fit's parts (lib/fit): the request echoed, the runs, each approach's result and the bootstrap
// intervals; the fit document (doc/fit_document.hpp) is made of them.
#pragma once

#include <cmath>

#include "doc/fields.hpp"
#include "fit/fit_request.hpp"
#include "fit/form_choice.hpp"
#include "fit/interaction.hpp"

namespace isoflop::doc {

// A parametric form by its name; "chinchilla", the additive form's name before 2026-12-06, still reads.
inline constexpr auto kParametricFormCodec =
    names_or_former(fit::kParametricFormNames, fit::kAdditiveFormerName, fit::ParametricForm::kAdditive);

template <>
inline constexpr auto fields<fit::RunColumns> =
    std::tuple{field("params", &fit::RunColumns::params), field("tokens", &fit::RunColumns::tokens),
               field("flops", &fit::RunColumns::flops), field("loss", &fit::RunColumns::loss),
               field("run", &fit::RunColumns::run)};

template <>
inline constexpr auto fields<fit::FitRequest> =
    std::tuple{field("runs_file", &fit::FitRequest::runs_file),
               field("curves_file", &fit::FitRequest::curves_file), field("columns", &fit::FitRequest::columns),
               field("approaches", &fit::FitRequest::approaches),
               added_later(field("form", &fit::FitRequest::form, names(fit::kFormRequestNames))),
               via(&fit::FitRequest::selection, field("drop_highest_loss", &fit::Selection::drop_highest_loss),
                   field("min_flops", &fit::Selection::min_flops), field("max_flops", &fit::Selection::max_flops)),
               field("huber_delta", &fit::FitRequest::huber_delta),
               field("reduce", &fit::FitRequest::reduce, names(fit::kReduceNames)),
               field("grid", &fit::FitRequest::grid), field("ftol", &fit::FitRequest::ftol),
               field("gtol", &fit::FitRequest::gtol), field("budget_tolerance", &fit::FitRequest::budget_tolerance),
               field("a1_points", &fit::FitRequest::a1_points), field("bootstrap", &fit::FitRequest::bootstrap),
               field("seed", &fit::FitRequest::seed), field("save_law", &fit::FitRequest::save_law),
               field("plot", &fit::FitRequest::plot)};

template <>
inline constexpr auto fields<fit::Run> =
    std::tuple{field("params", &fit::Run::params), field("tokens", &fit::Run::tokens), field("flops", &fit::Run::flops),
               field("loss", &fit::Run::loss), field("line", &fit::Run::line)};

template <>
inline constexpr auto fields<fit::Approach3Result> =
    std::tuple{field("A", &fit::Approach3Result::A),
               field("B", &fit::Approach3Result::B), field("E", &fit::Approach3Result::E),
               field("alpha", &fit::Approach3Result::alpha), field("beta", &fit::Approach3Result::beta),
               field("objective", &fit::Approach3Result::objective), field("a", &fit::Approach3Result::a),
               field("b", &fit::Approach3Result::b), field("G", &fit::Approach3Result::G),
               field("starts", &fit::Approach3Result::starts),
               field("starts_in_best_basin", &fit::Approach3Result::starts_in_best_basin),
               field("starts_failed", &fit::Approach3Result::starts_failed),
               field("evaluations", &fit::Approach3Result::evaluations), field("runs", &fit::Approach3Result::runs),
               on_read([](const Json&, fit::Approach3Result& r) {
                 r.x = {std::log(r.A), std::log(r.B), std::log(r.E), r.alpha, r.beta};
               })};

template <>
inline constexpr auto fields<fit::InteractionResult> =
    std::tuple{field("A", &fit::InteractionResult::A), field("B", &fit::InteractionResult::B),
               field("E", &fit::InteractionResult::E), field("alpha", &fit::InteractionResult::alpha),
               field("beta", &fit::InteractionResult::beta), field("gamma", &fit::InteractionResult::gamma),
               field("objective", &fit::InteractionResult::objective), field("a", &fit::InteractionResult::a),
               field("b", &fit::InteractionResult::b), field("G", &fit::InteractionResult::G),
               field("starts", &fit::InteractionResult::starts),
               field("starts_failed", &fit::InteractionResult::starts_failed),
               field("evaluations", &fit::InteractionResult::evaluations),
               field("runs", &fit::InteractionResult::runs), on_read([](const Json&, fit::InteractionResult& r) {
                 r.x = {std::log(r.A), std::log(r.B), std::log(r.E), r.alpha, r.beta, std::log(r.gamma)};
               })};

template <>
inline constexpr auto fields<fit::FormChoice> =
    std::tuple{field("chosen", &fit::FormChoice::chosen, kParametricFormCodec),
               field("folds", &fit::FormChoice::folds), field("held_out_runs", &fit::FormChoice::held_out_runs),
               field("rms_chinchilla", &fit::FormChoice::rms_chinchilla),
               field("rms_interaction", &fit::FormChoice::rms_interaction),
               // Written from 2026-12-05 21:00; a choice from before it had no margin: 0.
               added_later(field("min_improvement", &fit::FormChoice::min_improvement))};

template <>
inline constexpr auto fields<fit::BudgetFit> =
    std::tuple{field("flops", &fit::BudgetFit::flops),
               field("runs", &fit::BudgetFit::runs), field("params_opt", &fit::BudgetFit::params_opt),
               field("tokens_opt", &fit::BudgetFit::tokens_opt), field("loss_opt", &fit::BudgetFit::loss_opt),
               field("min_params", &fit::BudgetFit::min_params), field("max_params", &fit::BudgetFit::max_params),
               field("extrapolated", &fit::BudgetFit::extrapolated),
               group("parabola", field("c0", &fit::BudgetFit::c0), field("c1", &fit::BudgetFit::c1),
                     field("c2", &fit::BudgetFit::c2), field("x_center", &fit::BudgetFit::x_center))};

template <>
inline constexpr auto fields<fit::Approach2Result> =
    std::tuple{field("a", &fit::Approach2Result::a), field("b", &fit::Approach2Result::b),
               field("k_params", &fit::Approach2Result::k_params), field("k_tokens", &fit::Approach2Result::k_tokens),
               field("budgets", &fit::Approach2Result::budgets)};

template <>
inline constexpr auto fields<fit::EnvelopePoint> =
    std::tuple{field("flops", &fit::EnvelopePoint::flops), field("params", &fit::EnvelopePoint::params),
               field("tokens", &fit::EnvelopePoint::tokens), field("loss", &fit::EnvelopePoint::loss)};

template <>
inline constexpr auto fields<fit::Approach1Result> =
    std::tuple{field("a", &fit::Approach1Result::a),
               field("b", &fit::Approach1Result::b), field("k_params", &fit::Approach1Result::k_params),
               field("k_tokens", &fit::Approach1Result::k_tokens), field("curves", &fit::Approach1Result::curves),
               field("sizes_on_envelope", &fit::Approach1Result::sizes_on_envelope),
               field("envelope", &fit::Approach1Result::envelope)};

template <>
inline constexpr auto fields<fit::Interval> = std::tuple{
    field("p2_5", &fit::Interval::p2_5), field("p10", &fit::Interval::p10), field("p50", &fit::Interval::p50),
    field("p90", &fit::Interval::p90), field("p97_5", &fit::Interval::p97_5)};

}  // namespace isoflop::doc

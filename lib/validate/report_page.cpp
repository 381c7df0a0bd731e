// The validation document's human page.
#include <cmath>
#include <optional>
#include <set>

#include "core/suggest.hpp"
#include "report/text_table.hpp"
#include "units/format.hpp"
#include "validate/report_document.hpp"

namespace isoflop::doc {
namespace {

using units::format_count;
using units::format_scientific;
using units::format_significant;

// Plain decimals in the range a reader takes in at a glance; scientific notation outside it (a fitted E of
// 1.548e-17, not seventeen zeros).
std::string number(double v, int digits = 3) {
  const double m = std::fabs(v);
  return m == 0 || (m >= 1e-3 && m < 1e6) || !std::isfinite(v) ? format_significant(v, digits)
                                                                 : format_scientific(v, digits);
}

std::string interval(const std::map<std::string, fit::Interval>& intervals, const std::string& key) {
  const auto it = intervals.find(key);
  if (it == intervals.end()) return "";
  return " [" + number(it->second.p2_5) + ", " + number(it->second.p97_5) + "]";
}

std::string value_text(const validate::Comparison& c, double v) {
  if (c.name == "params_at_plan_budget") return format_count(v);
  return number(v, 4);
}

std::string distance_text(const validate::Comparison& c, double v) {
  return c.measure == validate::Measure::kAbsolute ? number(v) : number(100 * v) + "%";
}

std::string runs_table(const ValidationDocument& d) {
  report::TextTable t({"run", "budget", "N", "D", "loss", "floor", "tokens/s", "MFU", "status"});
  for (const auto& r : d.runs)
    t.add_row({r.id, format_scientific(r.budget_flops), format_count(r.params), format_count(r.tokens),
               r.finished ? format_significant(r.loss, 4) : "-", r.floor ? format_significant(*r.floor, 4) : "-",
               r.finished ? format_significant(r.tokens_per_s) : "-",
               r.finished && r.mfu ? format_significant(100 * *r.mfu) + "%" : "-",
               r.finished ? "finished" : "FAILED: " + r.failure});
  return t.render();
}

// " (a inside Approach 2's 95% interval)", or OUTSIDE, when Approach 2 has an interval.
std::string inside_approach2(const validate::ValidationReport& f, double a) {
  const auto two = f.approach2_intervals.find("a");
  if (two == f.approach2_intervals.end()) return "";
  return (a >= two->second.p2_5 && a <= two->second.p97_5 ? " (a inside" : " (a OUTSIDE") +
         std::string(" Approach 2's 95% interval)");
}

// The paired difference, not whether two intervals overlap: overlapping 95% intervals can still differ.
std::string paired_difference(const validate::ValidationReport& f, double a, const std::optional<fit::Interval>& d,
                              const std::string& name) {
  if (!d || !f.approach2) return "";
  const bool differ = d->p2_5 > 0 || d->p97_5 < 0;
  return "\n  Approach 2's a - " + name + ", paired over the resamples: " + number(f.approach2->a - a, 3) + " [" +
         number(d->p2_5) + ", " + number(d->p97_5) + "]: the two estimates " +
         (differ ? "differ at 95%" : "do not differ at 95%");
}

std::string interaction_page(const validate::ValidationReport& f) {
  const validate::InteractionFit& i = *f.interaction;
  const fit::InteractionResult& l = i.law;
  std::string out = "Approach 3, interaction form L = E + (A/N^alpha + B/D^beta)^gamma (" + std::to_string(l.runs) +
                    " runs): E = " + number(l.E, 4) + ", A = " + number(l.A) + ", B = " + number(l.B) +
                    ", alpha = " + number(l.alpha) + ", beta = " + number(l.beta) + ", gamma = " + number(l.gamma) +
                    " (where one term dominates, L - E falls as N^-" + number(l.gamma * l.alpha) + " or D^-" +
                    number(l.gamma * l.beta) + "); a = " + number(l.a, 4) + interval(i.intervals, "a") +
                    inside_approach2(f, l.a);
  if (f.bootstrap_resamples > 0) {
    out += "\n  bootstrap: the same resamples, " + std::to_string(i.bootstrap_failed) + " refits failed";
    if (i.intervals.count("E"))
      out += "; E" + interval(i.intervals, "E") + ", gamma" + interval(i.intervals, "gamma");
    else
      out += "; no interval (more than 5% failed)";
  }
  out += paired_difference(f, l.a, i.a_difference, "this a");
  const fit::FormChoice& c = i.choice;
  const bool interaction = c.chosen == fit::ParametricForm::kInteraction;
  const std::string margin = number(100 * c.min_improvement) + "%";
  out += "\n  each budget held out in turn (" + std::to_string(c.folds) + " folds, " + std::to_string(c.held_out_runs) +
         " runs predicted): rms of ln(predicted/measured) " + number(c.rms_chinchilla) + " for the additive form, " +
         number(c.rms_interaction) + " for the interaction form; " +
         (interaction ? "it cuts the additive form's held-out error by more than " + margin + ", so it is chosen" +
                            (f.floor ? std::string(" and its E is judged beside the additive law's (floor_interaction)")
                                     : std::string())
                      : "it does not cut the additive form's held-out error by more than " + margin +
                            ", so the additive form is kept");
  if (i.choice_same_in_resamples)
    out += "; the same choice in " + std::to_string(*i.choice_same_in_resamples) + " of " +
           std::to_string(f.bootstrap_resamples) + " resamples";
  out += "\n";
  return out;
}

}  // namespace

std::string render_validation(const ValidationDocument& d) {
  const auto& f = d.report;
  std::string out = "Validation of " + d.inputs.sweep_dir + " (" + d.preset + " sweep, source " + d.source +
                    ") against law " + d.plan.law + " (a = " + format_significant(d.plan.a) + ", N_opt " +
                    format_count(d.plan.params_opt) + " at " + format_scientific(d.plan.budget_flops) + " FLOPs)\n\n";
  out += runs_table(d);
  out += "\nruns: " + std::to_string(f.runs) + ", finished " + std::to_string(f.finished) + ", failed " +
         std::to_string(f.failed) + "\n";
  for (const auto& why : f.failures) out += "  not used: " + why + "\n";
  if (f.approach2) {
    const auto& a2 = *f.approach2;
    size_t used = 0, budgets = 0;
    for (const auto& b : a2.budgets)
      if (!b.extrapolated) used += b.runs, ++budgets;
    out += "\nApproach 2 (IsoFLOP parabolas, " + std::to_string(used) + " runs in " + std::to_string(budgets) +
           " budgets): a = " + number(a2.a, 4) + interval(f.approach2_intervals, "a") + ", b = " + number(a2.b, 4) +
           interval(f.approach2_intervals, "b");
    if (f.bootstrap_resamples > 0 && f.approach2_intervals.empty())
      out += " (no bootstrap interval: in " + std::to_string(f.bootstrap_failed) + " of " +
             std::to_string(f.bootstrap_resamples) + " resamples fewer than 2 budgets kept a minimum inside, over 5 %)";
    else if (f.bootstrap_resamples > 0)
      out += " (95% bootstrap, " + std::to_string(f.bootstrap_resamples) + " resamples, " +
             std::to_string(f.bootstrap_failed) + " without a, counted outside)";
    out += "\n";
    report::TextTable t({"budget", "runs", "N_opt", "D_opt", "loss", "sizes tried", "minimum"});
    // A minimum outside the sizes tried is the parabola extrapolated: no number for it, and no part in a.
    for (const auto& b : a2.budgets)
      t.add_row({format_scientific(b.flops), std::to_string(b.runs),
                 b.extrapolated ? "outside: " + validate::outside_side(b) : format_count(b.params_opt),
                 b.extrapolated ? "-" : format_count(b.tokens_opt), b.extrapolated ? "-" : number(b.loss_opt, 4),
                 format_count(b.min_params) + " - " + format_count(b.max_params),
                 b.extrapolated ? "OUTSIDE, left out of a" : "inside"});
    out += t.render();
  } else {
    out += "\nApproach 2: not fitted: " + f.approach2_error + "\n";
  }
  if (f.approach3) {
    const auto& a3 = *f.approach3;
    out += "\nApproach 3 (" + std::to_string(a3.runs) + " runs): E = " + number(a3.E, 4) + ", A = " + number(a3.A) +
           ", B = " + number(a3.B) + ", alpha = " + number(a3.alpha) + ", beta = " + number(a3.beta) +
           "; a = " + number(a3.a, 4) + interval(f.approach3_intervals, "a") + ", b = " + number(a3.b, 4) +
           inside_approach2(f, a3.a);
    if (f.bootstrap_resamples > 0) {
      const bool has_intervals = f.approach3_intervals.count("E") > 0;
      const bool too_many_failed = 20 * f.approach3_bootstrap_failed > f.bootstrap_resamples;  // as set_intervals
      out += "\n  bootstrap: " + std::to_string(f.bootstrap_resamples) + " resamples within budgets";
      if (has_intervals || too_many_failed)
        out += ", " + std::to_string(f.approach3_bootstrap_failed) + " refits failed";
      if (has_intervals)
        out += "; E" + interval(f.approach3_intervals, "E") + ", alpha" + interval(f.approach3_intervals, "alpha") +
               ", beta" + interval(f.approach3_intervals, "beta");
      else if (too_many_failed)
        out += "; no interval (more than 5% failed)";
      else  // a record from before Approach 3 was refitted: neither intervals nor a failure count
        out += "; Approach 3 was not refitted (this document predates its intervals)";
    }
    out += paired_difference(f, a3.a, f.a_difference, "Approach 3's a") + "\n";
    if (f.interaction) out += interaction_page(f);
    else if (!f.interaction_note.empty()) out += "Approach 3, interaction form: not fitted: " + f.interaction_note + "\n";
  } else {
    out += "\nApproach 3: not fitted: " + f.approach3_note + "\n";
  }
  if (f.floor)
    out += "exact floor of the source: " + format_significant(*f.floor, 5) + " ± " +
           format_significant(f.floor_se.value_or(0)) + " nats/token (mean over the runs' validation splits)\n";
  if (!f.speed.empty()) {
    out += "\nSpeed: measured against the step-time model for each run's shape on its device (both MFUs over the "
           "peak the model used and with the run's FLOPs per token)\n";
    std::set<std::string> sources;
    for (const auto& s : f.speed)
      if (!s.constants.empty() && sources.insert(s.constants).second)  // empty: a document from before they were named
        out += "efficiency constants: " + s.constants + "\n";
    report::TextTable t({"run", "N", "tokens/s", "predicted", "error", "MFU", "predicted MFU"});
    for (const auto& s : f.speed)
      t.add_row({s.id, format_count(s.params), format_significant(s.measured_tokens_per_s),
                 format_significant(s.predicted_tokens_per_s), format_significant(100 * s.error) + "%",
                 s.measured_mfu ? format_significant(100 * *s.measured_mfu) + "%" : "-",
                 format_significant(100 * s.predicted_mfu) + "%"});
    out += t.render();
  }
  out += "\nComparisons\n";
  report::TextTable t({"check", "expected", "measured", "off by", "tolerance", "result"});
  for (const auto& c : f.comparisons)
    t.add_row({c.what, value_text(c, c.expected), value_text(c, c.measured), distance_text(c, c.distance),
               distance_text(c, c.tolerance), c.within ? "ok" : "OUTSIDE"});
  out += t.render();
  if (d.calibration_file) out += "calibration overlay: " + *d.calibration_file + "\n";
  const std::vector<std::string> why = f.failing_conditions();
  out += std::string("\nverdict: ") + (f.passed ? "pass" : "fail") + (why.empty() ? "" : " (" + join(why, "; ") + ")") +
         "\n";
  return out;
}

}  // namespace isoflop::doc

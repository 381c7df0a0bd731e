// The `fit` document's human page.
#include "doc/fit_document.hpp"
#include "report/text_table.hpp"
#include "units/format.hpp"

namespace isoflop::doc {
namespace {

std::string sig(double v, int digits = 4) { return units::format_significant(v, digits); }

// "v   10–90 %: lo – hi   2.5–97.5 %: lo – hi" when the bootstrap has an interval for `key`.
std::string with_interval(const std::map<std::string, fit::Interval>* intervals, const std::string& key, double v) {
  std::string s = sig(v);
  if (!intervals) return s;
  const auto it = intervals->find(key);
  if (it == intervals->end()) return s;
  const fit::Interval& i = it->second;
  return s + "   10–90 %: " + sig(i.p10) + " – " + sig(i.p90) + "   2.5–97.5 %: " + sig(i.p2_5) + " – " + sig(i.p97_5);
}

std::string approach3_page(const FitDocument& d) {
  const auto& a = *d.approach3;
  const auto* iv = d.bootstrap ? &d.bootstrap->approach3 : nullptr;
  std::string out = "Approach 3 — parametric fit L(N, D) = E + A/N^alpha + B/D^beta:\n";
  out += report::render_key_values(
      {{"E", with_interval(iv, "E", a.E)},
       {"A", with_interval(iv, "A", a.A)},
       {"B", with_interval(iv, "B", a.B)},
       {"alpha", with_interval(iv, "alpha", a.alpha)},
       {"beta", with_interval(iv, "beta", a.beta)},
       {"a = beta/(alpha+beta)", with_interval(iv, "a", a.a)},
       {"b = alpha/(alpha+beta)", with_interval(iv, "b", a.b)},
       {"G", with_interval(iv, "G", a.G)},
       {"objective", units::format_scientific(a.objective, 10) + " (" +
                         std::string(fit::kReduceNames.name(d.inputs.reduce)) + " of Huber terms)"},
       {"starts", std::to_string(a.starts) + " (" + std::to_string(a.starts_in_best_basin) + " in the best basin, " +
                      std::to_string(a.starts_failed) + " failed)"}});
  return out + "\n";
}

// The interaction law and, under --form auto, the held-out comparison that chose between the two forms.
std::string interaction_page(const FitDocument& d) {
  const auto& f = *d.interaction;
  const auto* iv = d.bootstrap && d.bootstrap->interaction ? &*d.bootstrap->interaction : nullptr;
  std::string out = "Approach 3, interaction form L(N, D) = E + (A/N^alpha + B/D^beta)^gamma:\n";
  out += report::render_key_values(
      {{"E", with_interval(iv, "E", f.E)},
       {"A", with_interval(iv, "A", f.A)},
       {"B", with_interval(iv, "B", f.B)},
       {"alpha", with_interval(iv, "alpha", f.alpha)},
       {"beta", with_interval(iv, "beta", f.beta)},
       {"gamma", with_interval(iv, "gamma", f.gamma) + " (1: the additive law; where one term dominates, L - E falls as N^-" +
                     sig(f.gamma * f.alpha, 3) + " or D^-" + sig(f.gamma * f.beta, 3) + ")"},
       {"a = beta/(alpha+beta)", with_interval(iv, "a", f.a)},
       {"b = alpha/(alpha+beta)", with_interval(iv, "b", f.b)},
       {"G", with_interval(iv, "G", f.G)},
       {"objective", units::format_scientific(f.objective, 10) + " (sum of Huber terms)"},
       {"starts", std::to_string(f.starts) + " (" + std::to_string(f.starts_failed) + " failed)"}});
  if (d.form_choice) {
    const fit::FormChoice& c = *d.form_choice;
    out += "\neach budget held out in turn (" + std::to_string(c.folds) + " folds, " +
           std::to_string(c.held_out_runs) + " runs predicted): rms of ln(predicted/measured) " +
           sig(c.rms_chinchilla, 3) + " for the additive form, " + sig(c.rms_interaction, 3) +
           " for the interaction form; " +
           (c.chosen == fit::ParametricForm::kInteraction
                ? "the interaction form cuts it by more than " + sig(100 * c.min_improvement, 3) + " %: chosen\n"
                : "the interaction form does not cut it by more than " + sig(100 * c.min_improvement, 3) +
                      " %: the additive form is kept\n");
  }
  return out + "\n";
}

std::string approach2_page(const FitDocument& d) {
  const auto& a = *d.approach2;
  const auto* iv = d.bootstrap && d.bootstrap->approach2 ? &*d.bootstrap->approach2 : nullptr;
  std::string out = "Approach 2 — IsoFLOP profiles: N_opt = k·C^a, D_opt = k'·C^b\n";
  out += report::render_key_values({{"a", with_interval(iv, "a", a.a)},
                                    {"b", with_interval(iv, "b", a.b)},
                                    {"k_params", sig(a.k_params)},
                                    {"k_tokens", sig(a.k_tokens)}});
  report::TextTable t({"budget C", "runs", "N_opt", "D_opt", "loss at N_opt", "note"});
  for (const auto& b : a.budgets)
    t.add_row({units::format_scientific(b.flops), std::to_string(b.runs), units::format_count(b.params_opt),
               units::format_count(b.tokens_opt), sig(b.loss_opt), b.extrapolated ? "extrapolated" : ""});
  return out + "\n" + t.render() + "\n";
}

std::string approach1_page(const FitDocument& d) {
  const auto& a = *d.approach1;
  std::string out = "Approach 1 — minimum over training curves: N_opt = k·C^a, D_opt = k'·C^b\n";
  out += report::render_key_values({{"a", sig(a.a)},
                                    {"b", sig(a.b)},
                                    {"k_params", sig(a.k_params)},
                                    {"k_tokens", sig(a.k_tokens)},
                                    {"curves", std::to_string(a.curves)},
                                    {"sizes on the envelope", std::to_string(a.sizes_on_envelope)}});
  return out + "\n";
}

}  // namespace

std::string render_fit(const FitDocument& d) {
  std::string out = "runs: " + std::to_string(d.runs.used) + " used of " + std::to_string(d.runs.read) +
                    " read from " + d.inputs.runs_file + "\n\n";
  if (d.approach3) out += approach3_page(d);
  if (d.interaction) out += interaction_page(d);
  if (d.approach2) out += approach2_page(d);
  if (d.approach1) out += approach1_page(d);
  if (d.bootstrap)
    out += "bootstrap: " + std::to_string(d.bootstrap->resamples) + " resamples (seed " +
           std::to_string(d.bootstrap->seed) + "), failed refits: " + std::to_string(d.bootstrap->approach3_failed) +
           " of Approach 3" +
           (d.bootstrap->approach2_failed ? ", " + std::to_string(*d.bootstrap->approach2_failed) + " of Approach 2"
                                          : std::string()) +
           (d.bootstrap->interaction_failed
                ? ", " + std::to_string(*d.bootstrap->interaction_failed) + " of the interaction law"
                : std::string()) +
           "\n";
  if (d.saved_law)
    out += "saved law '" + d.saved_law->name + "' (" +
           (d.saved_law->form == fit::ParametricForm::kInteraction ? "interaction" : "additive") + " form) to " +
           d.saved_law->file + "\n";
  for (const auto& n : d.caveats) out += "note: " + n + "\n";
  return out;
}

}  // namespace isoflop::doc

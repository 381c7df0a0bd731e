// The `fit` document: running the fits, and the saved law.
#include "doc/fit_document.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "catalog/catalog.hpp"
#include "core/error.hpp"
#include "core/input_file.hpp"
#include "fit/law_yaml.hpp"
#include "units/format.hpp"

namespace isoflop::doc {

namespace {

// At most ~300 envelope points in the document: enough to draw, small enough to read.
std::vector<fit::EnvelopePoint> thinned(const std::vector<fit::EnvelopePoint>& envelope) {
  const size_t stride = std::max<size_t>(1, envelope.size() / 300);
  std::vector<fit::EnvelopePoint> out;
  for (size_t i = 0; i < envelope.size(); i += stride) out.push_back(envelope[i]);
  return out;
}

// What the runs cannot tell a fit, said beside it (a fit is returned all the same: the user may know why):
// runs at one tokens-per-parameter ratio move N and D together, so A/N^alpha and B/D^beta trade off and alpha,
// beta and the exponents a, b are not determined by them (IsoFLOP sweeps vary D/N at each budget); and a loss
// above a uniform guess over a million tokens is no per-token cross-entropy (a perplexity, or another unit).
std::vector<std::string> fit_caveats(const std::vector<fit::Run>& runs, const std::string& file) {
  std::vector<std::string> notes;
  if (runs.empty()) return notes;
  const auto ratio = [](const fit::Run& r) { return r.tokens / r.params; };
  const auto [least, most] =
      std::minmax_element(runs.begin(), runs.end(), [&](const auto& x, const auto& y) { return ratio(x) < ratio(y); });
  constexpr double kLeastRatioSpread = 2;  // D/N within a factor of 2 across every run
  const std::string low = units::format_significant(ratio(*least), 3);
  const std::string high = units::format_significant(ratio(*most), 3);
  if (ratio(*most) < kLeastRatioSpread * ratio(*least))
    notes.push_back("every run has " + (low == high ? low : low + " to " + high) +
                    " tokens per parameter: N and D move together, so alpha and beta (and a, b) trade off and the "
                    "runs do not determine them; vary the tokens per parameter at each budget (an IsoFLOP sweep)");
  // One parameter count (or one token count) in every run: A/N^alpha (or B/D^beta) is a constant that E absorbs.
  const auto one_value = [&](double fit::Run::*field, const char* name, const char* term) {
    const auto [lo, hi] = std::minmax_element(runs.begin(), runs.end(),
                                              [&](const auto& x, const auto& y) { return x.*field < y.*field; });
    if (runs.size() > 1 && (*hi).*field <= (*lo).*field * (1 + 1e-9))
      notes.push_back("every run has " + units::format_count((*lo).*field, 4) + " " + name + ": " + term +
                      " is one constant that E absorbs, so the runs do not determine it; vary the " + name);
  };
  one_value(&fit::Run::params, "parameters", "A/N^alpha");
  one_value(&fit::Run::tokens, "tokens", "B/D^beta");
  const double uniform_over_a_million = std::log(1e6);
  const auto highest =
      std::max_element(runs.begin(), runs.end(), [](const auto& x, const auto& y) { return x.loss < y.loss; });
  if (highest->loss > uniform_over_a_million)
    notes.push_back(
        "a loss of " + units::format_significant(highest->loss, 4) + " (" + file + ":" + std::to_string(highest->line) +
        ") is more nats per token than a uniform guess over a million "
        "tokens (" +
        units::format_significant(uniform_over_a_million, 3) + "): a perplexity, or a loss in another unit?");
  return notes;
}

// The runs with each one's FLOPs replaced by its IsoFLOP budget's (Approach 2's grouping within `tolerance`), so
// that leaving one budget out leaves out every run of it.
std::vector<fit::Run> labelled_by_budget(const std::vector<fit::Run>& runs, double tolerance) {
  std::vector<fit::Run> out;
  for (const auto& budget : fit::group_budgets(runs, tolerance))
    for (fit::Run r : budget) {
      r.flops = budget.front().flops;
      out.push_back(r);
    }
  return out;
}

// The interaction law beside Approach 3 and, for --form auto, the held-out choice between them.
void fit_forms(const fit::FitRequest& request, const std::vector<fit::Run>& runs, FitDocument& d) {
  if (request.form == fit::FormRequest::kAdditive) return;
  const fit::InteractionOptions io = request.interaction_options();
  const std::string what = request.runs_file + ": --form " + std::string(fit::kFormRequestNames.name(request.form));
  try {
    d.interaction = fit::fit_interaction(runs, io, {fit::interaction_point(d.approach3->x)});
  } catch (const InputError& e) {
    throw InputError(what + ": " + e.what());
  }
  if (request.form != fit::FormRequest::kAuto) return;
  fit::FormChoiceOptions choice;
  choice.approach3 = request.approach3_options();
  // Both forms' folds sum their Huber terms, so the comparison is of the forms, not of stopping rules that a
  // mean-reduced objective would loosen for one of them only.
  choice.approach3.reduce = fit::Reduce::kSum;
  choice.interaction = io;
  try {
    d.form_choice =
        fit::choose_form(labelled_by_budget(runs, request.budget_tolerance), d.approach3->x, d.interaction->x, choice);
  } catch (const InputError& e) {
    throw InputError(what + ": " + e.what() + " (runs within --budget-tolerance " +
                     units::format_significant(request.budget_tolerance) +
                     " of each other's FLOPs form one budget; --form interaction fits it without the choice)");
  }
}

// The form --save-law writes: the one asked for, or under --form auto the one the held-out budgets chose.
fit::ParametricForm saved_form(const FitDocument& d) {
  if (d.form_choice) return d.form_choice->chosen;
  return d.inputs.form == fit::FormRequest::kInteraction ? fit::ParametricForm::kInteraction
                                                         : fit::ParametricForm::kAdditive;
}

}  // namespace

FitDocument fit_document(fit::FitRequest request, const std::function<void(int, int)>& progress) {
  request.resolve();
  FitDocument d;
  d.inputs = request;
  const std::string runs_text = read_input_text(request.runs_file);
  const std::vector<fit::Run> all = fit::parse_runs_csv(runs_text, request.runs_file, request.columns);
  const std::vector<fit::Run> runs = fit::select_runs(all, request.selection);
  d.runs = {static_cast<long long>(all.size()), static_cast<long long>(runs.size()),
            static_cast<long long>(all.size() - runs.size()), runs};
  const fit::Approach3Options a3 = request.approach3_options();
  const fit::Approach2Options a2 = request.approach2_options();
  d.caveats = fit_caveats(runs, request.runs_file);
  if (request.uses(3)) {
    if (runs.size() < 5)
      throw InputError(request.runs_file + ": Approach 3 fits 5 parameters but only " + std::to_string(runs.size()) +
                       " runs are left after selection; give at least 5");
    d.approach3 = fit::fit_approach3(runs, a3);
    if (const auto problem = fit::approach3_exponent_problem(d.approach3->alpha, d.approach3->beta))
      throw InputError(request.runs_file + ": Approach 3 fits no scaling law to these runs: " + *problem +
                       ", so there is no compute-optimal allocation; check that the loss column is a loss of one "
                       "setup, or fit Approach 2 alone (--approach 2)");
    fit_forms(request, runs, d);
  }
  if (request.uses(2)) d.approach2 = fit::fit_approach2(runs, a2);
  if (request.uses(1)) {
    const auto curves = fit::parse_curves_csv(read_input_text(*request.curves_file), *request.curves_file,
                                              request.columns, runs_text, request.runs_file);
    d.approach1 = fit::fit_approach1(curves, request.approach1_options());
    d.approach1->envelope = thinned(d.approach1->envelope);
  }
  if (request.bootstrap > 0) {
    fit::BootstrapOptions b;
    b.resamples = request.bootstrap;
    b.seed = request.seed.value_or(0);
    b.approach2 = request.uses(2);
    b.progress = progress;
    if (d.interaction) {
      b.interaction_start = d.interaction->x;
      b.interaction = request.interaction_options();
    }
    const fit::BootstrapResult r = fit::bootstrap(runs, d.approach3->x, a3, a2, b);
    FitBootstrap fb{r.resamples, b.seed, r.approach3_failed, r.approach3, std::nullopt, std::nullopt,
                    std::nullopt, std::nullopt};
    if (b.approach2) fb.approach2_failed = r.approach2_failed, fb.approach2 = r.approach2;
    if (d.interaction) fb.interaction_failed = r.interaction_failed, fb.interaction = r.interaction;
    d.bootstrap = fb;
  }
  if (request.save_law)
    d.saved_law = SavedLaw{*request.save_law,
                           (std::filesystem::path(*request.catalog_dir) / (*request.save_law + ".yaml")).string(),
                           saved_form(d)};
  return d;
}

std::string fit_law_yaml(const FitDocument& d) {
  if (!d.saved_law || !d.approach3) throw InputError("fit: no Approach-3 law to save");
  const auto& in = d.inputs;
  const bool interaction = d.saved_law->form == fit::ParametricForm::kInteraction;
  if (interaction && !d.interaction) throw InputError("fit: no interaction law to save");
  std::string source = "isoflop fit (Approach 3" + std::string(interaction ? ", interaction form" : "") + ") of " +
                       in.runs_file + ": " + std::to_string(d.runs.used) + " runs, Huber delta " +
                       units::format_significant(in.huber_delta) + ", " +
                       (interaction ? std::string("sum") : std::string(fit::kReduceNames.name(in.reduce))) +
                       ", grid " + (interaction ? std::string("coarse x 4 gamma") : in.grid);
  if (d.form_choice)
    source += "; chosen by leaving each of " + std::to_string(d.form_choice->folds) +
              " budgets out (held-out rms of ln L " + units::format_significant(d.form_choice->rms_chinchilla, 3) +
              " additive, " + units::format_significant(d.form_choice->rms_interaction, 3) + " interaction)";
  const std::string yaml = interaction ? fit::law_catalog_yaml(*d.interaction, d.saved_law->name, source)
                                       : fit::law_catalog_yaml(*d.approach3, d.saved_law->name, source);
  catalog::Catalog check;
  catalog::merge_catalog_text(yaml, d.saved_law->file, &check);  // what we write must load
  return yaml;
}

std::string fit_progress_bar(int done, int total) {
  const int width = 30, filled = total > 0 ? std::clamp(done * width / total, 0, width) : 0;
  return "bootstrap [" + std::string(filled, '#') + std::string(width - filled, ' ') + "] " + std::to_string(done) +
         "/" + std::to_string(total);
}

void check_fit_outputs(const fit::FitRequest& request, const NamedOutputs& outputs) {
  const auto law_file = request.law_file();
  if (law_file) forget_input(*law_file);
  note_input(request.runs_file);
  if (request.curves_file) note_input(*request.curves_file);
  if (request.plot && law_file)
    require_distinct_outputs(
        {{*law_file, spelled(outputs.spell, "save_law")}, {*request.plot, spelled(outputs.spell, "plot")}});
  if (request.plot) outputs.check(*request.plot, "plot");
  if (std::error_code ec; law_file && std::filesystem::is_directory(*request.catalog_dir, ec))
    outputs.check(*law_file, "save_law");
}

void write_fit_outputs(const fit::FitRequest& request, const FitDocument& d, const NamedOutputs& outputs) {
  const std::string law = d.saved_law ? fit_law_yaml(d) : "";
  const std::string figure = request.plot ? render_fit_figure(d) : "";
  if (d.saved_law) {
    std::error_code ec;
    std::filesystem::create_directories(*request.catalog_dir, ec);
    if (ec)
      throw InputError(spelled(outputs.spell, "catalog_dir") + ": cannot create '" + *request.catalog_dir + "': " +
                       ec.message());
    outputs.write(d.saved_law->file, law, "save_law");
  }
  if (request.plot) outputs.write(*request.plot, figure, "plot");
}

}  // namespace isoflop::doc

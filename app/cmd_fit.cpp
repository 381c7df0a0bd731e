// isoflop fit RUNS.csv: fit scaling laws to the user's runs (Approaches 1–3), bootstrap intervals, a
// figure, and the fitted law saved as a catalog entry.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "app/cli.hpp"
#include "app/command.hpp"
#include "catalog/catalog.hpp"
#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "fit/approach1.hpp"
#include "fit/approach2.hpp"
#include "fit/approach3.hpp"
#include "fit/bootstrap.hpp"
#include "fit/fit_plot.hpp"
#include "fit/law_yaml.hpp"
#include "fit/runs.hpp"
#include "report/svg_plot.hpp"
#include "report/text_table.hpp"
#include "units/format.hpp"

namespace isoflop::app {
namespace {

using report::Json;

const CommandHelp kHelp = {
    "fit",
    "isoflop fit RUNS.csv [--approach 1,2,3|all] [--curves CURVES.csv] [--bootstrap K --seed S] [options]",
    "Fits the Chinchilla loss law L(N, D) = E + A/N^alpha + B/D^beta to your runs (Approach 3: Huber loss on\n"
    "log residuals, L-BFGS from Chinchilla's 4,500-start grid, in parallel), and optionally the IsoFLOP-profile\n"
    "(Approach 2) and training-curve envelope (Approach 1) power laws N_opt = k*C^a, D_opt = k'*C^b. RUNS.csv has\n"
    "a header with columns params, tokens (or flops), loss; tokens = flops/(6*params) when absent and flops =\n"
    "6*params*tokens when absent. --bootstrap resamples the runs for 10/90 and 2.5/97.5 percentile intervals.\n"
    "--save-law NAME --catalog DIR writes DIR/NAME.yaml so 'isoflop optimal --law NAME --catalog DIR' uses it.",
    {"isoflop fit share/examples/runs.csv                          # Approach 3 with the 4,500-start grid",
     "isoflop fit share/examples/runs.csv --approach 2,3 --plot fit.svg",
     "isoflop fit share/examples/runs.csv --bootstrap 200 --seed 1 -o json",
     "isoflop fit share/examples/runs.csv --curves share/examples/curves.csv --approach all",
     "isoflop fit share/examples/runs.csv --reduce mean           # the original mean-reduced fit (stops early)",
     "isoflop fit share/examples/runs.csv --drop-highest-loss 5 --save-law my-sweep --catalog ./laws",
     "isoflop optimal --law my-sweep --catalog ./laws --flops 1e22  # plan with your own law"}};

std::string read_file(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(what + ": cannot read '" + path + "'");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

Json interval_json(const fit::Interval& i) {
  return {{"p2_5", i.p2_5}, {"p10", i.p10}, {"p50", i.p50}, {"p90", i.p90}, {"p97_5", i.p97_5}};
}

std::string sig(double v, int digits = 4) { return units::format_significant(v, digits); }

std::string render_table(const Json& doc) {
  std::string out;
  const Json& runs = doc["runs"];
  out += "runs: " + std::to_string(runs["used"].get<int>()) + " used of " + std::to_string(runs["read"].get<int>()) +
         " read from " + doc["inputs"]["runs_file"].get<std::string>() + "\n\n";
  const Json* boot = doc.contains("bootstrap") ? &doc["bootstrap"] : nullptr;
  auto with_interval = [&](const std::string& section, const std::string& key, double v) {
    std::string s = sig(v);
    if (boot && (*boot).contains(section) && (*boot)[section].contains(key)) {
      const Json& i = (*boot)[section][key];
      s += "   10–90 %: " + sig(i["p10"].get<double>()) + " – " + sig(i["p90"].get<double>()) +
           "   2.5–97.5 %: " + sig(i["p2_5"].get<double>()) + " – " + sig(i["p97_5"].get<double>());
    }
    return s;
  };
  if (doc.contains("approach3")) {
    const Json& a = doc["approach3"];
    out += "Approach 3 — parametric fit L(N, D) = E + A/N^alpha + B/D^beta:\n";
    out += report::render_key_values({
        {"E", with_interval("approach3", "E", a["E"].get<double>())},
        {"A", with_interval("approach3", "A", a["A"].get<double>())},
        {"B", with_interval("approach3", "B", a["B"].get<double>())},
        {"alpha", with_interval("approach3", "alpha", a["alpha"].get<double>())},
        {"beta", with_interval("approach3", "beta", a["beta"].get<double>())},
        {"a = beta/(alpha+beta)", with_interval("approach3", "a", a["a"].get<double>())},
        {"b = alpha/(alpha+beta)", with_interval("approach3", "b", a["b"].get<double>())},
        {"G", with_interval("approach3", "G", a["G"].get<double>())},
        {"objective", units::format_scientific(a["objective"].get<double>(), 10) + " (" +
                          doc["inputs"]["reduce"].get<std::string>() + " of Huber terms)"},
        {"starts", std::to_string(a["starts"].get<long long>()) + " (" +
                       std::to_string(a["starts_in_best_basin"].get<long long>()) + " in the best basin, " +
                       std::to_string(a["starts_failed"].get<long long>()) + " failed)"}});
    out += "\n";
  }
  if (doc.contains("approach2")) {
    const Json& a = doc["approach2"];
    out += "Approach 2 — IsoFLOP profiles: N_opt = k·C^a, D_opt = k'·C^b\n";
    out += report::render_key_values({{"a", with_interval("approach2", "a", a["a"].get<double>())},
                                      {"b", with_interval("approach2", "b", a["b"].get<double>())},
                                      {"k_params", sig(a["k_params"].get<double>())},
                                      {"k_tokens", sig(a["k_tokens"].get<double>())}});
    report::TextTable t({"budget C", "runs", "N_opt", "D_opt", "loss at N_opt", "note"});
    for (const auto& b : a["budgets"])
      t.add_row({units::format_scientific(b["flops"].get<double>()), std::to_string(b["runs"].get<int>()),
                 units::format_count(b["params_opt"].get<double>()), units::format_count(b["tokens_opt"].get<double>()),
                 sig(b["loss_opt"].get<double>()), b["extrapolated"].get<bool>() ? "extrapolated" : ""});
    out += "\n" + t.render() + "\n";
  }
  if (doc.contains("approach1")) {
    const Json& a = doc["approach1"];
    out += "Approach 1 — minimum over training curves: N_opt = k·C^a, D_opt = k'·C^b\n";
    out += report::render_key_values({{"a", sig(a["a"].get<double>())},
                                      {"b", sig(a["b"].get<double>())},
                                      {"k_params", sig(a["k_params"].get<double>())},
                                      {"k_tokens", sig(a["k_tokens"].get<double>())},
                                      {"curves", std::to_string(a["curves"].get<int>())},
                                      {"sizes on the envelope", std::to_string(a["sizes_on_envelope"].get<int>())}});
    out += "\n";
  }
  if (boot)
    out += "bootstrap: " + std::to_string((*boot)["resamples"].get<int>()) + " resamples (seed " +
           std::to_string((*boot)["seed"].get<unsigned long long>()) + "), " +
           std::to_string((*boot)["approach3_failed"].get<int>()) + " failed refits\n";
  if (doc.contains("saved_law"))
    out += "saved law '" + doc["saved_law"]["name"].get<std::string>() + "' to " +
           doc["saved_law"]["file"].get<std::string>() + "\n";
  if (doc.contains("plot")) out += "wrote " + doc["plot"].get<std::string>() + "\n";
  return out;
}

}  // namespace

int run_fit(const std::vector<std::string>& args) {
  po::options_description options("Options");
  options.add_options()
      ("runs", po::value<std::string>()->value_name("RUNS.csv"), "the runs table (positional)")
      ("approach", po::value<std::string>()->value_name("LIST"), "1, 2, 3 or all, comma-separated (default 3; 1,3 with --curves)")
      ("curves", po::value<std::string>()->value_name("FILE"), "training curves for Approach 1: run, tokens, loss (and params) per row")
      ("params-column", po::value<std::string>()->value_name("NAME"), "column of parameters N (default params)")
      ("tokens-column", po::value<std::string>()->value_name("NAME"), "column of tokens D (default tokens)")
      ("flops-column", po::value<std::string>()->value_name("NAME"), "column of FLOPs C (default flops)")
      ("loss-column", po::value<std::string>()->value_name("NAME"), "column of final loss (default loss)")
      ("run-column", po::value<std::string>()->value_name("NAME"), "column of run ids joining --curves to RUNS (default run)")
      ("drop-highest-loss", po::value<std::string>()->value_name("K"), "drop the K highest-loss runs first (Epoch AI drop 5)")
      ("min-flops", po::value<std::string>()->value_name("C"), "use only runs with at least C FLOPs")
      ("max-flops", po::value<std::string>()->value_name("C"), "use only runs with at most C FLOPs")
      ("huber-delta", po::value<std::string>()->value_name("D"), "Huber delta on log-loss residuals (default 1e-3)")
      ("reduce", po::value<std::string>()->value_name("sum|mean"), "sum (default) or mean of the Huber terms")
      ("grid", po::value<std::string>()->value_name("SPEC"), "chinchilla (4,500 starts, default), coarse (243), or a=0:25:6,b=...,e=...,alpha=...,beta=...")
      ("ftol", po::value<std::string>()->value_name("F"), "stop when an iteration gains <= F*max(|f|,1) (default 2.22e-9, scipy's)")
      ("gtol", po::value<std::string>()->value_name("G"), "stop when every gradient component is <= G (default 1e-5, scipy's)")
      ("threads", po::value<std::string>()->value_name("N"), "threads for the starts and the bootstrap (default: all cores)")
      ("budget-tolerance", po::value<std::string>()->value_name("R"), "relative FLOPs spread within one IsoFLOP budget (default 0.05)")
      ("a1-points", po::value<std::string>()->value_name("K"), "log-spaced FLOP values along the Approach-1 envelope (default 1500)")
      ("bootstrap", po::value<std::string>()->value_name("K"), "K bootstrap resamples for percentile intervals")
      ("seed", po::value<std::string>()->value_name("S"), "seed for the bootstrap (default 0)")
      ("save-law", po::value<std::string>()->value_name("NAME"), "write the Approach-3 law as DIR/NAME.yaml (needs --catalog DIR)")
      ("plot", po::value<std::string>()->value_name("FILE.svg"), "write a figure of the runs and the fits");
  po::positional_options_description positional;
  positional.add("runs", 1);
  auto parsed = parse_command_line(kHelp, args, options, &positional);
  if (!parsed) return 0;
  const auto& vm = parsed->values;
  const auto runs_file = get_string(vm, "runs");
  if (!runs_file) throw InputError("fit: missing RUNS.csv; see 'isoflop help fit'");

  // ---- options ------------------------------------------------------------------------------
  fit::RunColumns columns;
  if (auto v = get_string(vm, "params-column")) columns.params = *v;
  if (auto v = get_string(vm, "tokens-column")) columns.tokens = *v;
  if (auto v = get_string(vm, "flops-column")) columns.flops = *v;
  if (auto v = get_string(vm, "loss-column")) columns.loss = *v;
  if (auto v = get_string(vm, "run-column")) columns.run = *v;
  const auto curves_file = get_string(vm, "curves");
  bool use1 = curves_file.has_value(), use2 = false, use3 = true;
  if (auto list = get_string(vm, "approach")) {
    use1 = use2 = use3 = false;
    std::stringstream ss(*list);
    std::string item;
    while (std::getline(ss, item, ',')) {
      if (item == "1") use1 = true;
      else if (item == "2") use2 = true;
      else if (item == "3") use3 = true;
      else if (item == "all") use1 = curves_file.has_value(), use2 = use3 = true;
      else throw InputError("--approach: '" + item + "' is not one of 1, 2, 3, all");
    }
    if (use1 && !curves_file) throw InputError("--approach 1 needs --curves FILE (training curves)");
  }
  fit::Selection selection;
  selection.min_flops = get_count(vm, "min-flops");
  selection.max_flops = get_count(vm, "max-flops");
  if (auto k = get_int(vm, "drop-highest-loss", units::Sign::kNonNegative)) selection.drop_highest_loss = *k;
  fit::Approach3Options a3;
  if (auto d = get_number(vm, "huber-delta")) a3.huber_delta = *d;
  if (auto r = get_string(vm, "reduce")) a3.reduce = fit::kReduceNames.parse(*r, "--reduce");
  if (auto g = get_string(vm, "grid")) a3.grid = fit::parse_grid(*g);
  if (auto f = get_number(vm, "ftol")) a3.ftol = *f;
  if (auto g = get_number(vm, "gtol", units::Sign::kNonNegative)) a3.gtol = *g;
  if (auto t = get_int(vm, "threads", units::Sign::kPositive, 4096)) a3.threads = *t;
  fit::Approach2Options a2;
  a2.file = *runs_file;
  a2.flops_column = columns.flops;
  if (auto t = get_number(vm, "budget-tolerance", units::Sign::kNonNegative)) a2.budget_tolerance = *t;
  fit::Approach1Options a1;
  if (auto k = get_int(vm, "a1-points")) a1.points = *k;
  std::optional<fit::BootstrapOptions> boot;
  if (auto k = get_int(vm, "bootstrap")) {
    boot.emplace();
    boot->resamples = *k;
    boot->approach2 = use2;
    if (auto s = get_integer(vm, "seed", units::Sign::kNonNegative)) boot->seed = static_cast<std::uint64_t>(*s);
    boot->validate();
    if (!use3) throw InputError("--bootstrap refits Approach 3; include 3 in --approach");
  } else if (has(vm, "seed")) {
    throw InputError("--seed seeds the bootstrap; give --bootstrap K too");
  }
  const auto save_law = get_string(vm, "save-law");
  if (save_law) {
    fit::validate_law_name(*save_law);
    if (!parsed->common.catalog_dir) throw InputError("--save-law needs --catalog DIR (the directory to write NAME.yaml into)");
    if (!use3) throw InputError("--save-law saves the Approach-3 law; include 3 in --approach");
  }
  const auto plot_file = get_string(vm, "plot");
  selection.validate();
  a3.validate();
  a2.validate();
  a1.validate();

  // ---- read and fit -------------------------------------------------------------------------
  const std::string runs_text = read_file(*runs_file, "RUNS.csv");
  const std::vector<fit::Run> all_runs = fit::parse_runs_csv(runs_text, *runs_file, columns);
  const std::vector<fit::Run> runs = fit::select_runs(all_runs, selection);
  std::optional<fit::Approach3Result> r3;
  std::optional<fit::Approach2Result> r2;
  std::optional<fit::Approach1Result> r1;
  if (use3) {
    if (runs.size() < 5)
      throw InputError(*runs_file + ": Approach 3 fits 5 parameters but only " + std::to_string(runs.size()) +
                       " runs are left after selection; give at least 5");
    r3 = fit::fit_approach3(runs, a3);
  }
  if (use2) r2 = fit::fit_approach2(runs, a2);
  if (use1) {
    const auto curves = fit::parse_curves_csv(read_file(*curves_file, "--curves"), *curves_file, columns, runs_text,
                                              *runs_file);
    r1 = fit::fit_approach1(curves, a1);
  }
  std::optional<fit::BootstrapResult> rb;
  if (boot) {
    const bool bar = !parsed->common.quiet && ::isatty(STDERR_FILENO);
    if (bar)
      boot->progress = [](int done, int total) {
        const int width = 30, filled = done * width / total;
        std::fprintf(stderr, "\rbootstrap [%s%s] %d/%d", std::string(filled, '#').c_str(),
                     std::string(width - filled, ' ').c_str(), done, total);
        if (done == total) std::fprintf(stderr, "\n");
        std::fflush(stderr);
      };
    rb = fit::bootstrap(runs, r3->x, a3, a2, *boot);
  }

  // ---- document -----------------------------------------------------------------------------
  Json approaches = Json::array();
  if (use1) approaches.push_back(1);
  if (use2) approaches.push_back(2);
  if (use3) approaches.push_back(3);
  Json inputs = {{"runs_file", *runs_file},
                 {"curves_file", curves_file.value_or("")},
                 {"columns", {{"params", columns.params}, {"tokens", columns.tokens}, {"flops", columns.flops},
                              {"loss", columns.loss}, {"run", columns.run}}},
                 {"approaches", approaches},
                 {"drop_highest_loss", selection.drop_highest_loss},
                 {"min_flops", selection.min_flops ? Json(*selection.min_flops) : Json(nullptr)},
                 {"max_flops", selection.max_flops ? Json(*selection.max_flops) : Json(nullptr)},
                 {"huber_delta", a3.huber_delta},
                 {"reduce", std::string(fit::kReduceNames.name(a3.reduce))},
                 {"grid", a3.grid.describe()},
                 {"ftol", a3.ftol},
                 {"gtol", a3.gtol},
                 {"budget_tolerance", a2.budget_tolerance},
                 {"a1_points", a1.points},
                 {"bootstrap", boot ? boot->resamples : 0},
                 {"seed", boot ? boot->seed : 0},
                 {"save_law", save_law.value_or("")},
                 {"plot", plot_file.value_or("")}};
  Json doc = {{"schema", "isoflop/fit/v1"},
              {"inputs", inputs},
              {"runs", {{"read", all_runs.size()}, {"used", runs.size()}, {"dropped", all_runs.size() - runs.size()}}}};
  if (r3)
    doc["approach3"] = {{"A", r3->A}, {"B", r3->B}, {"E", r3->E}, {"alpha", r3->alpha}, {"beta", r3->beta},
                        {"objective", r3->objective}, {"a", r3->a}, {"b", r3->b}, {"G", r3->G},
                        {"starts", r3->starts}, {"starts_in_best_basin", r3->starts_in_best_basin},
                        {"starts_failed", r3->starts_failed}, {"evaluations", r3->evaluations}};
  if (r2) {
    Json budgets = Json::array();
    for (const auto& b : r2->budgets)
      budgets.push_back({{"flops", b.flops}, {"runs", b.runs}, {"params_opt", b.params_opt},
                         {"tokens_opt", b.tokens_opt}, {"loss_opt", b.loss_opt}, {"min_params", b.min_params},
                         {"max_params", b.max_params}, {"extrapolated", b.extrapolated},
                         {"parabola", {{"c0", b.c0}, {"c1", b.c1}, {"c2", b.c2}, {"x_center", b.x_center}}}});
    doc["approach2"] = {{"a", r2->a}, {"b", r2->b}, {"k_params", r2->k_params}, {"k_tokens", r2->k_tokens},
                        {"budgets", budgets}};
  }
  if (r1)
    doc["approach1"] = {{"a", r1->a}, {"b", r1->b}, {"k_params", r1->k_params}, {"k_tokens", r1->k_tokens},
                        {"curves", r1->curves}, {"envelope_points", r1->envelope.size()},
                        {"sizes_on_envelope", r1->sizes_on_envelope}};
  if (rb) {
    Json b3 = Json::object(), b2 = Json::object();
    for (const auto& [k, v] : rb->approach3) b3[k] = interval_json(v);
    for (const auto& [k, v] : rb->approach2) b2[k] = interval_json(v);
    doc["bootstrap"] = {{"resamples", rb->resamples}, {"seed", boot->seed}, {"approach3_failed", rb->approach3_failed},
                        {"approach3", b3}};
    if (use2) doc["bootstrap"]["approach2_failed"] = rb->approach2_failed, doc["bootstrap"]["approach2"] = b2;
  }

  // ---- files (validated fully before anything is written) ---------------------------------
  std::optional<std::pair<std::string, std::string>> law_file, svg_file;
  if (save_law) {
    const std::string source = "isoflop fit (Approach 3) of " + *runs_file + ": " + std::to_string(runs.size()) +
                               " runs, Huber delta " + units::format_significant(a3.huber_delta) + ", " +
                               std::string(fit::kReduceNames.name(a3.reduce)) + ", grid " + a3.grid.describe();
    const std::string path = (std::filesystem::path(*parsed->common.catalog_dir) / (*save_law + ".yaml")).string();
    const std::string yaml = fit::law_catalog_yaml(*r3, *save_law, source);
    catalog::Catalog check;
    catalog::merge_catalog_text(yaml, path, &check);  // what we write must load
    law_file = {path, yaml};
    doc["saved_law"] = {{"name", *save_law}, {"file", path}};
  }
  if (plot_file) {
    const auto panels = fit::fit_plot_panels(runs, r3 ? &*r3 : nullptr, r2 ? &*r2 : nullptr, r1 ? &*r1 : nullptr,
                                             a2.budget_tolerance);
    svg_file = {*plot_file, report::render_svg_grid(panels, 2)};
    doc["plot"] = *plot_file;
  }
  if (law_file) {
    std::error_code ec;
    std::filesystem::create_directories(*parsed->common.catalog_dir, ec);
    if (ec) throw InputError("--catalog: cannot create '" + *parsed->common.catalog_dir + "': " + ec.message());
    write_file_atomically(law_file->first, law_file->second, "--save-law");
  }
  if (svg_file) write_file_atomically(svg_file->first, svg_file->second, "--plot");
  write_result(parsed->common, doc, [&] { return render_table(doc); });
  return 0;
}

}  // namespace isoflop::app

// The fit request: defaults, the approach list, and validation in the library's words.
#include "fit/fit_request.hpp"

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "core/error.hpp"
#include "fit/law_yaml.hpp"

namespace isoflop::fit {

std::vector<int> parse_approaches(const std::string& list, bool have_curves) {
  std::vector<int> out;
  std::stringstream ss(list);
  std::string item;
  auto add = [&](int a) {
    if (std::find(out.begin(), out.end(), a) == out.end()) out.push_back(a);
  };
  while (std::getline(ss, item, ',')) {
    if (item == "1" || item == "2" || item == "3") add(item[0] - '0');
    else if (item == "all") {
      if (have_curves) add(1);
      add(2), add(3);
    } else {
      throw FieldError("approach", "'" + item + "' is not one of 1, 2, 3, all");
    }
  }
  std::sort(out.begin(), out.end());
  if (out.empty()) throw FieldError("approach", "no approach given; use 1, 2, 3 or all");
  return out;
}

bool FitRequest::uses(int approach) const {
  return std::find(approaches.begin(), approaches.end(), approach) != approaches.end();
}

Approach3Options FitRequest::approach3_options() const {
  Approach3Options o;
  o.huber_delta = huber_delta;
  o.reduce = reduce;
  o.grid = parse_grid(grid);
  o.ftol = ftol;
  o.gtol = gtol;
  o.threads = threads;
  return o;
}

InteractionOptions FitRequest::interaction_options() const {
  InteractionOptions o;
  o.huber_delta = huber_delta;
  o.rules.ftol = ftol;
  o.rules.gtol = gtol;
  o.threads = threads;
  return o;
}

Approach2Options FitRequest::approach2_options() const {
  Approach2Options o;
  o.file = runs_file;
  o.flops_column = columns.flops;
  o.budget_tolerance = budget_tolerance;
  return o;
}

Approach1Options FitRequest::approach1_options() const {
  Approach1Options o;
  o.points = a1_points;
  return o;
}

std::optional<std::string> FitRequest::law_file() const {
  if (!save_law || !catalog_dir) return std::nullopt;
  validate_law_name(*save_law);
  return (std::filesystem::path(*catalog_dir) / (*save_law + ".yaml")).string();
}

void FitRequest::resolve() {
  if (runs_file.empty()) throw FieldError("runs", "no runs table given");
  if (approaches.empty()) approaches = curves_file ? std::vector<int>{1, 3} : std::vector<int>{3};
  if (uses(1) && !curves_file)
    throw FieldError("approach", "Approach 1 needs the training curves file; give it with --curves FILE.csv");
  if (bootstrap != 0) {
    BootstrapOptions b;
    b.resamples = bootstrap;
    b.validate();
    if (!uses(3)) throw FieldError("bootstrap", "the bootstrap refits Approach 3; include 3 in the approaches");
  } else if (seed) {
    throw FieldError("seed", "seeds the bootstrap; give a number of bootstrap resamples too");
  }
  if (save_law) {
    validate_law_name(*save_law);
    if (!catalog_dir)
      throw FieldError("save_law", "needs a catalog directory to write NAME.yaml into; give it with --catalog DIR");
    if (!uses(3)) throw FieldError("save_law", "saves the Approach-3 law; include 3 in the approaches");
  }
  if (form != FormRequest::kAdditive && !uses(3))
    throw FieldError("form", std::string(kFormRequestNames.name(form)) +
                                 " fits the interaction law beside Approach 3; include 3 in the approaches");
  grid = parse_grid(grid).describe();
  selection.validate();
  approach3_options().validate();
  interaction_options().validate();
  approach2_options().validate();
  approach1_options().validate();
}

}  // namespace isoflop::fit

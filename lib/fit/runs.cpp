// Reading runs and training curves from CSV text, and choosing which runs a fit uses.
#include "fit/runs.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "core/error.hpp"
#include "core/suggest.hpp"
#include "fit/csv_table.hpp"
#include "units/format.hpp"

namespace isoflop::fit {

std::vector<Run> parse_runs_csv(const std::string& text, const std::string& file, const RunColumns& columns) {
  const CsvTable t = parse_csv(text, file);
  const size_t params = t.require(columns.params, "params_column");
  const size_t loss = t.require(columns.loss, "loss_column");
  const auto tokens = t.find(columns.tokens);
  const auto flops = t.find(columns.flops);
  if (!tokens && !flops)
    throw FieldError("tokens_column", file + ":1: missing column '" + columns.tokens + "' or '" + columns.flops +
                                          "'; one of them is needed; columns are " + join(t.header));
  const auto run = t.find(columns.run);
  std::map<std::string, int> line_of_run;
  std::vector<Run> runs;
  runs.reserve(t.rows.size());
  for (const auto& row : t.rows) {
    Run r;
    r.line = row.line;
    r.params = t.positive(row, params);
    // With both columns, a row may leave one empty: it is derived from the other.
    const bool has_tokens = tokens && !(flops && row.cells[*tokens].empty());
    const bool has_flops = flops && !(tokens && row.cells[*flops].empty());
    if (!has_tokens && !has_flops)
      throw InputError(t.where(row, *tokens) + ": empty value, and the flops cell too; give tokens or flops");
    if (has_tokens) r.tokens = t.positive(row, *tokens);
    if (has_flops) r.flops = t.positive(row, *flops);
    // Chinchilla's convention C ≈ 6·N·D (Hoffmann et al. 2022, App. F), as Besiroglu et al. 2024 do.
    if (!has_tokens) r.tokens = r.flops / (6 * r.params);
    if (!has_flops) r.flops = 6 * r.params * r.tokens;
    // A derived value out of double's range (6·N·D above 1.8e308, or C/(6·N) below the smallest double or above
    // the largest: 6e18 FLOPs of 1e-300 parameters).
    if (!std::isfinite(r.flops) || !(r.tokens > 0) || !std::isfinite(r.tokens))
      throw InputError(t.where(row, has_tokens ? *tokens : *flops) + ": " +
                       (has_tokens ? "6·params·tokens" : "flops/(6·params)") + " is out of range");
    if (has_tokens && has_flops) {
      const double ratio = r.flops / (6 * r.params * r.tokens);
      if (!(ratio <= kMaxFlopsDisagreement && ratio >= 1 / kMaxFlopsDisagreement))
        throw InputError(
            t.where(row, *flops) + ": " + units::format_scientific(r.flops) + " FLOPs is " +
            (ratio >= 1e-3 && ratio < 1e4 ? units::format_significant(ratio, 3) : units::format_scientific(ratio)) +
            " x 6·params·tokens = " + units::format_scientific(6 * r.params * r.tokens) +
            "; the columns disagree by more than a factor 10 (leave the cell empty to derive it)");
    }
    // A run id, where a row gives one, names one run (the curves file joins on it).
    if (run && !row.cells[*run].empty()) {
      const auto [it, fresh] = line_of_run.emplace(row.cells[*run], row.line);
      if (!fresh)
        throw InputError(t.where(row, *run) + ": run '" + it->first + "' is given twice (first at line " +
                         std::to_string(it->second) + "); each run is one row");
    }
    r.loss = t.positive(row, loss);
    runs.push_back(r);
  }
  if (runs.empty()) throw InputError(file + ": no runs (only a header)");
  return runs;
}

std::vector<CurvePoint> parse_curves_csv(const std::string& text, const std::string& file, const RunColumns& columns,
                                         const std::string& runs_text, const std::string& runs_file) {
  const CsvTable t = parse_csv(text, file);
  const size_t run = t.require(columns.run, "run_column");
  const size_t tokens = t.require(columns.tokens, "tokens_column");
  const size_t loss = t.require(columns.loss, "loss_column");
  const auto params = t.find(columns.params);
  std::map<std::string, double> params_by_run;
  if (!params) {
    if (runs_text.empty())
      throw InputError(file + ":1: missing column '" + columns.params +
                       "'; without it the runs file must name each run's parameters in a '" + columns.run + "' column");
    const CsvTable r = parse_csv(runs_text, runs_file);
    const size_t rid = r.require(columns.run, "run_column");
    const size_t rp = r.require(columns.params, "params_column");
    for (const auto& row : r.rows) params_by_run[r.text(row, rid)] = r.positive(row, rp);
  }
  std::map<std::string, double> seen_params;
  std::vector<CurvePoint> points;
  for (const auto& row : t.rows) {
    CurvePoint p;
    p.line = row.line;
    p.run_id = t.text(row, run);
    if (params) {
      p.params = t.positive(row, *params);
      auto [it, fresh] = seen_params.emplace(p.run_id, p.params);
      if (!fresh && it->second != p.params)
        throw InputError(t.where(row, *params) + ": run '" + p.run_id + "' changes its parameter count");
    } else {
      const auto it = params_by_run.find(p.run_id);
      if (it == params_by_run.end())
        throw InputError(t.where(row, run) + ": run '" + p.run_id + "' is not in " + runs_file);
      p.params = it->second;
    }
    p.tokens = t.positive(row, tokens);
    p.loss = t.positive(row, loss);
    points.push_back(p);
  }
  if (points.empty()) throw InputError(file + ": no curve points (only a header)");
  return points;
}

void Selection::validate() const {
  if (min_flops && !(*min_flops > 0)) throw FieldError("min_flops", "must be positive");
  if (max_flops && !(*max_flops > 0)) throw FieldError("max_flops", "must be positive");
  if (min_flops && max_flops && !(*min_flops <= *max_flops))
    throw FieldError("min_flops", "must not exceed the maximum FLOPs");
  if (drop_highest_loss < 0) throw FieldError("drop_highest_loss", "must be 0 or more");
}

void sort_canonically(std::vector<Run>* runs) {
  std::sort(runs->begin(), runs->end(), [](const Run& a, const Run& b) {
    return std::tie(a.params, a.tokens, a.flops, a.loss, a.line) < std::tie(b.params, b.tokens, b.flops, b.loss, b.line);
  });
}

size_t distinct_points(const std::vector<Run>& runs) {
  std::set<std::pair<double, double>> points;
  for (const auto& r : runs) points.insert({r.params, r.tokens});
  return points.size();
}

std::vector<Run> select_runs(std::vector<Run> runs, const Selection& s) {
  s.validate();
  std::erase_if(runs, [&](const Run& r) {
    return (s.min_flops && r.flops < *s.min_flops) || (s.max_flops && r.flops > *s.max_flops);
  });
  if (s.drop_highest_loss > 0) {
    if (static_cast<size_t>(s.drop_highest_loss) >= runs.size())
      throw FieldError("drop_highest_loss", std::to_string(s.drop_highest_loss) + " would drop all " +
                       std::to_string(runs.size()) + " runs");
    // Highest loss first; ties broken canonically so the choice does not depend on row order.
    sort_canonically(&runs);
    std::stable_sort(runs.begin(), runs.end(), [](const Run& a, const Run& b) { return a.loss > b.loss; });
    runs.erase(runs.begin(), runs.begin() + s.drop_highest_loss);
  }
  sort_canonically(&runs);
  return runs;
}

}  // namespace isoflop::fit

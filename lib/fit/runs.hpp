// Training runs to fit: parsed from CSV text (final losses, or training curves for Approach 1), selected
// by compute range, with Epoch AI's highest-loss outlier rule.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace isoflop::fit {

// One finished run: model size, tokens seen, compute, final loss.
struct Run {
  double params = 0;   // N (parameters)
  double tokens = 0;   // D (tokens)
  double flops = 0;    // C (FLOPs); 6·N·D when the table has no FLOPs column
  double loss = 0;     // final loss (nats/token)
  int line = 0;        // line in the source file (0 when not from a file)
  bool operator==(const Run&) const = default;
};

// Column names (the --*-column options). A missing tokens column is derived as flops/(6·params) and a
// missing flops column as 6·params·tokens; at least one of the two must be present.
// How far a row's stated FLOPs may lie from 6·N·D: counts that add attention or the embeddings differ from it by
// tens of percent at small sizes; a factor 10 is a unit or a digit gone wrong (the message says "factor 10").
inline constexpr double kMaxFlopsDisagreement = 10.0;

struct RunColumns {
  std::string params = "params";
  std::string tokens = "tokens";
  std::string flops = "flops";
  std::string loss = "loss";
  std::string run = "run";  // run id, used to join a curves file to the runs (Approach 1)
  bool operator==(const RunColumns&) const = default;
};

// Parses a runs table. With both a tokens and a flops column, either cell of a row may be empty (it is derived
// from the other, C = 6ND); given both, they must agree within kMaxFlopsDisagreement. Throws InputError naming
// file, line and column for a missing or duplicate column, an empty, non-numeric or non-positive value, tokens
// and FLOPs that disagree, or a run id (the run column, where there is one) given twice.
std::vector<Run> parse_runs_csv(const std::string& text, const std::string& file, const RunColumns& columns = {});

// One point of a training curve: run `run_id` (parameters `params`) had loss `loss` after `tokens`.
struct CurvePoint {
  std::string run_id;
  double params = 0;
  double tokens = 0;
  double loss = 0;
  int line = 0;
};

// Parses a curves table: columns run, tokens, loss, and params — or, without a params column, the
// parameters are looked up by run id in `runs_text` (the runs table, which must then have a run column).
// Throws InputError naming file, line and column.
std::vector<CurvePoint> parse_curves_csv(const std::string& text, const std::string& file, const RunColumns& columns,
                                         const std::string& runs_text = "", const std::string& runs_file = "");

// Which runs to fit.
struct Selection {
  std::optional<double> min_flops;  // keep runs with C ≥ min_flops (FLOPs)
  std::optional<double> max_flops;  // keep runs with C ≤ max_flops (FLOPs)
  int drop_highest_loss = 0;        // then drop this many runs with the highest loss (Besiroglu et al. 2024 drop 5)

  void validate() const;
  bool operator==(const Selection&) const = default;
};

// The runs kept, in a canonical order (by params, tokens, flops, loss) so that results never depend on
// the order of rows in the file. Throws InputError when fewer than `min_runs` remain.
std::vector<Run> select_runs(std::vector<Run> runs, const Selection& selection);

// Sorts runs canonically (params, tokens, flops, loss, line).
void sort_canonically(std::vector<Run>* runs);

// How many distinct (N, D) the runs hold: what a parametric law L(N, D) can be fitted to.
size_t distinct_points(const std::vector<Run>& runs);

}  // namespace isoflop::fit

// The `train` document (also the run's results.json): the job echoed, the result, and the loss curve.
//   {"schema": "isoflop/train/v2", "inputs": {job…, "resume"}, "interrupted", "resumed",
//    "job_changes": [{at_step, field, from, to}…], losses, counts,
//    FLOPs, timings, "mfu", "peak_flops", "peak_source", device, memory, files, "curve": [point…]}
#pragma once

#include <functional>
#include <string>

#include "doc/fields.hpp"
#include "train/trainer.hpp"

namespace isoflop::doc {

struct TrainDocument {
  train::Job inputs;
  bool resume = false;        // echoed in inputs
  train::TrainResult result;  // all but `parameters`
  std::string curve_file;     // the loss curve CSV written beside
  std::string results_file;   // this document as written beside

  bool operator==(const TrainDocument&) const = default;
};

// A field of the job changed on resuming; "from" and "to" are null where empty.
template <>
inline constexpr auto fields<train::JobChange> =
    std::tuple{field("at_step", &train::JobChange::at_step), field("field", &train::JobChange::field),
               field("from", &train::JobChange::from, null_when_empty()),
               field("to", &train::JobChange::to, null_when_empty())};

// "eval_loss" is null at the steps without an evaluation.
template <>
inline constexpr auto fields<train::CurvePoint> =
    std::tuple{field("step", &train::CurvePoint::step),
               field("tokens", &train::CurvePoint::tokens, count()), field("lr", &train::CurvePoint::lr),
               field("train_loss", &train::CurvePoint::train_loss),
               field("eval_loss", &train::CurvePoint::eval_loss, null_when(-1.0)),
               field("grad_norm", &train::CurvePoint::grad_norm), field("elapsed_s", &train::CurvePoint::elapsed_s)};

void to_json(Json& j, const TrainDocument& d);
void from_json(const Json& j, TrainDocument& d);
// A job's data section alone, as the document writes it under "inputs" (the sweep document carries it).
Json data_config_json(const train::DataConfig& data);
void read_data_config(const Json& j, train::DataConfig& data);

// The human page.
std::string render_train(const TrainDocument& d);
// One progress line: for a terminal bar (redrawn in place; `last_eval` is the latest evaluation, < 0: none)
// or for a log.
std::string train_progress_bar(const train::Progress& p, double last_eval);
std::string train_progress_line(const train::Progress& p);
// Progress for RunOptions::on_progress: on a terminal a bar redrawn in place on stderr (at most every 100 ms,
// and at every evaluation and the last step); otherwise about 20 lines through `log`, and every evaluation.
std::function<void(const train::Progress&)> train_progress_printer(bool terminal,
                                                                   std::function<void(const std::string&)> log);
// The loss curve figure (train and eval loss against tokens).
std::string render_train_figure(const TrainDocument& d);

}  // namespace isoflop::doc

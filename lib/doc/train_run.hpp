// `train JOB.yaml` as one call: the job read and adjusted, its output folder held and every file the run
// writes checked before the first step, the training, and the files it leaves (results.json, the loss curve
// and a figure where one is asked for).
#pragma once

#include <optional>
#include <string>

#include "core/output_path.hpp"
#include "doc/train_document.hpp"

namespace isoflop::doc {

struct TrainRequest {
  std::string job_file;               // the job (YAML, train/job.hpp)
  std::optional<std::string> output;  // the results folder instead of the job's
  std::optional<int> threads;         // CPU threads instead of the job's (0: every core)
  std::optional<std::string> curve;   // the loss curve CSV here instead of <output>/loss_curve.csv
  std::optional<std::string> plot;    // the loss-curve figure (SVG) here
  NamedOutputs outputs;               // how `curve` and `plot` are written (the run's own files: unannounced)
};

struct TrainRun {
  TrainDocument document;        // the run; for a finished one, its results.json read back
  Json json;                     // the document to print: for a finished run, its results.json as stored
  bool finished_before = false;  // a resume of a finished run: nothing trained, nothing written
};

// Reads the job, holds its output folder (train/run_folder.hpp: the results, the curve and the figure checked
// before the first step, the lock kept until the last file is written) and trains under `options` (resume,
// stop, progress; its folder is set here). Then writes the curve, results.json and the figure, in that order;
// results.json and a curve at its default place are the run's own, replaced atomically. A resume of a run that
// finished already writes nothing: `options.on_note` says so, and its results.json is what it returns.
TrainRun run_train_job(const TrainRequest& request, train::RunOptions options);

}  // namespace isoflop::doc

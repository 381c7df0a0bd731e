// The `train` document's human page, the progress lines of a run, and the loss-curve figure.
#include <algorithm>
#include <chrono>
#include <cstdio>

#include "doc/train_document.hpp"
#include "report/svg_plot.hpp"
#include "report/text_table.hpp"
#include "units/format.hpp"

namespace isoflop::doc {
namespace {

std::string sig(double v, int digits = 4) { return units::format_significant(v, digits); }
std::string sig_or_dash(const std::optional<double>& v) { return v ? sig(*v) : std::string("-"); }

std::string mfu_text(const train::TrainResult& r) {
  if (!r.mfu) return "- (no peak known for this device)";
  const std::string of = r.peak_source == train::PeakSource::kCatalog
                             ? r.accelerator + "'s peak"
                             : "the measured sgemm peak of " + sig(r.peak_flops / 1e9, 3) + " GFLOP/s";
  return sig(*r.mfu * 100, 3) + " % of " + of;
}

}  // namespace

std::string render_train(const TrainDocument& d) {
  const train::TrainResult& r = d.result;
  std::vector<std::pair<std::string, std::string>> rows;
  rows.emplace_back("device", r.device + " (" + std::string(train::kBackendKindNames.name(r.backend)) + ", " +
                                  std::string(train::kPrecisionNames.name(r.precision)) + ")");
  rows.emplace_back("data", r.data_description);
  rows.emplace_back("params", units::format_count(r.params) + " (" + units::format_count(r.non_embedding_params) +
                                  " non-embedding)");
  rows.emplace_back("steps", std::to_string(r.steps) + " of " + std::to_string(r.steps_total) +
                                 (r.interrupted ? " (interrupted)" : ""));
  rows.emplace_back("tokens", units::format_count(r.tokens));
  rows.emplace_back("final train loss", sig(r.final_train_loss));
  rows.emplace_back("eval loss", sig_or_dash(r.eval_loss));
  if (r.entropy_floor) {
    std::string floor = sig(*r.entropy_floor) + " nats (source entropy rate)";
    if (r.entropy_floor_stderr)  // quanta: the Bayes predictor's expected loss within a window of model.seq
      floor = sig(*r.entropy_floor) + " ± " + sig(*r.entropy_floor_stderr, 2) + " nats (Bayes window floor)";
    if (r.eval_loss) floor += "; eval is " + sig(*r.eval_loss - *r.entropy_floor, 3) + " above";
    rows.emplace_back("entropy floor", floor);
  }
  rows.emplace_back("FLOPs", units::format_scientific(r.flops) + " (chinchilla App. F), " +
                                 units::format_scientific(r.flops_6nd) + " (6ND)");
  rows.emplace_back("wall time", units::format_duration(r.wall_s));
  rows.emplace_back("throughput", units::format_count(r.tokens_per_s) + " tokens/s, " +
                                      sig(r.achieved_tflops * 1e3, 3) + " GFLOP/s");
  rows.emplace_back("MFU", mfu_text(r));
  rows.emplace_back("memory", sig(r.memory_bytes / 1048576.0, 3) + " MiB allocated, peak RSS " +
                                  sig(r.peak_rss_bytes / 1048576.0, 3) + " MiB");
  rows.emplace_back("checkpoint", r.checkpoint_path.empty() ? "-" : r.checkpoint_path);
  rows.emplace_back("loss curve", d.curve_file);
  rows.emplace_back("results", d.results_file);
  return report::render_key_values(rows, 0);
}

std::string train_progress_bar(const train::Progress& p, double last_eval) {
  const int width = 24, filled = static_cast<int>(width * p.tokens / p.total_tokens);
  std::string line = "\r[" + std::string(filled, '#') + std::string(width - filled, '-') + "] " +
                     units::format_count(p.tokens) + "/" + units::format_count(p.total_tokens) + " tokens  loss " +
                     sig(p.train_loss);
  if (last_eval >= 0) line += "  eval " + sig(last_eval);
  line += "  " + units::format_count(p.tokens_per_s) + " tok/s  ETA " + units::format_duration(p.eta_s, 2) + "\033[K";
  if (p.step == p.steps) line += "\n";
  return line;
}

std::string train_progress_line(const train::Progress& p) {
  std::string line = "step " + std::to_string(p.step) + "/" + std::to_string(p.steps) + " (" +
                     units::format_count(p.tokens) + " tokens): loss " + sig(p.train_loss);
  if (p.eval_loss) line += ", eval " + sig(*p.eval_loss);
  return line + ", lr " + sig(p.lr, 3) + ", " + units::format_count(p.tokens_per_s) + " tok/s, ETA " +
         units::format_duration(p.eta_s, 2);
}

std::function<void(const train::Progress&)> train_progress_printer(bool terminal,
                                                                   std::function<void(const std::string&)> log) {
  if (!terminal)
    return [log = std::move(log)](const train::Progress& p) {
      const long long every = std::max<long long>(1, p.steps / 20);
      if (p.step == p.steps || p.eval_loss || p.step % every == 0) log(train_progress_line(p));
    };
  return [last_eval = -1.0, last_draw = std::chrono::steady_clock::time_point{}](const train::Progress& p) mutable {
    const auto now = std::chrono::steady_clock::now();
    if (p.eval_loss) last_eval = *p.eval_loss;
    if (p.step != p.steps && !p.eval_loss && now - last_draw < std::chrono::milliseconds(100)) return;
    last_draw = now;
    std::fputs(train_progress_bar(p, last_eval).c_str(), stderr);
    std::fflush(stderr);
  };
}

std::string render_train_figure(const TrainDocument& d) {
  const train::TrainResult& r = d.result;
  report::PlotSpec p;
  p.title = "Loss curve: " + train::describe(d.inputs.model);
  p.x = {"training tokens", report::AxisScale::kLog, report::TickFormat::kCount, std::nullopt, std::nullopt};
  p.y = {"loss (nats/token)", report::AxisScale::kLog, report::TickFormat::kAuto, std::nullopt, std::nullopt};
  report::Series train_loss, eval_loss;
  train_loss.name = "train loss";
  train_loss.color = "#1f77b4";
  eval_loss.name = "eval loss";
  eval_loss.color = "#d62728";
  eval_loss.style = report::SeriesStyle::kLineAndPoints;
  for (const auto& c : r.curve) {
    train_loss.x.push_back(c.tokens);
    train_loss.y.push_back(c.train_loss);
    if (c.eval_loss >= 0) eval_loss.x.push_back(c.tokens), eval_loss.y.push_back(c.eval_loss);
  }
  p.series.push_back(train_loss);
  if (!eval_loss.x.empty()) p.series.push_back(eval_loss);
  if (r.entropy_floor && !r.curve.empty()) {
    report::Series floor;
    floor.name = "source entropy floor";
    floor.color = "#333333";
    floor.dashed = true;
    floor.x = {r.curve.front().tokens, r.curve.back().tokens};
    floor.y = {*r.entropy_floor, *r.entropy_floor};
    p.series.push_back(floor);
  }
  return report::render_svg(p);
}

}  // namespace isoflop::doc

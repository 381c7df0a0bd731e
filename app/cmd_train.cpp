// isoflop train JOB.yaml: run a tiny GPT training job on the CPU or a CUDA GPU, with a progress bar,
// checkpoints, Ctrl-C to stop and --resume to continue, and a results document plus a loss curve.
#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>

#include "app/blas_core.hpp"
#include "app/cli.hpp"
#include "app/command.hpp"
#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "report/text_table.hpp"
#include "train/trainer.hpp"
#include "units/format.hpp"

namespace isoflop::app {
namespace {

namespace fs = std::filesystem;
using report::Json;

const CommandHelp kHelp = {
    "train",
    "isoflop train JOB.yaml [--resume] [--curve FILE] [-o table|json|yaml|csv] | isoflop train --example",
    "Runs a tiny GPT training job (GPT-2 architecture, AdamW, warm-up then cosine decay to 10 % of the peak\n"
    "learning rate at exactly the planned token count) on the CPU reference backend or a CUDA GPU. The job file\n"
    "names the model, the optimisation, the data (the embedded markov source with a known entropy floor, any\n"
    "file as bytes, or a uint16 token file), evaluation, checkpoints and the output folder, which receives\n"
    "results.json and loss_curve.csv. Ctrl-C saves a checkpoint after the current step and exits 130;\n"
    "--resume continues exactly where it stopped. FLOPs are counted as in 'isoflop flops' (chinchilla App. F\n"
    "and 6ND), MFU against the device's peak from the catalog. 'isoflop train --example' prints a commented job.",
    {"isoflop train --example > job.yaml      # a commented job on the markov source",
     "isoflop train job.yaml                  # progress on stderr, results table on stdout",
     "isoflop train job.yaml --resume         # continue after Ctrl-C (exit 130) from the checkpoint",
     "isoflop train job.yaml -q -o json       # results JSON only",
     "isoflop train job.yaml --curve curve.csv -o csv   # the loss curve to a file and to stdout"}};

// Set by the signal handler; the trainer polls it after every step.
std::atomic<bool> g_stop{false};
std::atomic<int> g_signal{0};
static_assert(std::atomic<bool>::is_always_lock_free, "the stop flag is written from a signal handler");

extern "C" void on_stop_signal(int sig) {
  g_signal.store(sig);
  g_stop.store(true);
  static const char kMessage[] =
      "\nisoflop: stopping after this step and saving a checkpoint (press Ctrl-C again to abort)\n";
  const ssize_t ignored = ::write(STDERR_FILENO, kMessage, sizeof kMessage - 1);
  (void)ignored;
}

// Installs the handlers for the run and restores the previous ones on exit. SA_RESETHAND: a second signal
// takes the default action, so an impatient user can still kill the process.
class StopSignals {
 public:
  StopSignals() {
    struct sigaction action {};
    action.sa_handler = on_stop_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESETHAND | SA_RESTART;  // a write cut by the signal resumes
    sigaction(SIGINT, &action, &old_int_);
    sigaction(SIGTERM, &action, &old_term_);
  }
  ~StopSignals() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

std::string sig(double v, int digits = 4) { return units::format_significant(v, digits); }

Json optional_number(const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); }

double peak_rss_bytes() {
  struct rusage usage {};
  if (::getrusage(RUSAGE_SELF, &usage) != 0) return 0;
  return static_cast<double>(usage.ru_maxrss) * 1024.0;  // Linux reports KiB
}

// Progress: a one-line bar redrawn in place on a terminal, plain log lines otherwise.
class ProgressPrinter {
 public:
  ProgressPrinter(bool bar, bool quiet) : bar_(bar), quiet_(quiet) {}

  void operator()(const train::Progress& p) {
    if (quiet_) return;
    const bool last = p.step == p.steps;
    if (bar_) {
      const auto now = std::chrono::steady_clock::now();
      if (!last && !p.eval_loss && now - last_draw_ < std::chrono::milliseconds(100)) return;
      last_draw_ = now;
      const int width = 24, filled = static_cast<int>(width * p.tokens / p.total_tokens);
      std::string line = "\r[" + std::string(filled, '#') + std::string(width - filled, '-') + "] " +
                         units::format_count(p.tokens) + "/" + units::format_count(p.total_tokens) + " tokens  loss " +
                         sig(p.train_loss);
      if (p.eval_loss) last_eval_ = *p.eval_loss;
      if (last_eval_ >= 0) line += "  eval " + sig(last_eval_);
      line += "  " + units::format_count(p.tokens_per_s) + " tok/s  ETA " + units::format_duration(p.eta_s, 2) +
              "\033[K";
      if (last) line += "\n";
      std::fputs(line.c_str(), stderr);
      std::fflush(stderr);
      return;
    }
    const long long every = std::max<long long>(1, p.steps / 20);
    if (!last && !p.eval_loss && p.step % every != 0) return;
    std::string line = "step " + std::to_string(p.step) + "/" + std::to_string(p.steps) + " (" +
                       units::format_count(p.tokens) + " tokens): loss " + sig(p.train_loss);
    if (p.eval_loss) line += ", eval " + sig(*p.eval_loss);
    line += ", lr " + sig(p.lr, 3) + ", " + units::format_count(p.tokens_per_s) + " tok/s, ETA " +
            units::format_duration(p.eta_s, 2);
    spdlog::info("{}", line);
  }

 private:
  bool bar_, quiet_;
  double last_eval_ = -1;
  std::chrono::steady_clock::time_point last_draw_{};
};

Json result_json(const train::Job& job, const train::TrainResult& r, bool resume, const std::string& curve_file,
                 const std::string& results_file) {
  Json inputs = job_json(job);
  inputs["resume"] = resume;
  return {{"schema", "isoflop/train/v1"},
          {"inputs", inputs},
          {"interrupted", r.interrupted},
          {"resumed", r.resumed},
          {"final_train_loss", r.final_train_loss},
          {"eval_loss", optional_number(r.eval_loss)},
          {"entropy_floor", optional_number(r.entropy_floor)},
          {"val_floor", optional_number(r.val_floor)},
          {"params", r.params},
          {"non_embedding_params", r.non_embedding_params},
          {"steps", r.steps},
          {"steps_total", r.steps_total},
          {"tokens", r.tokens},
          {"flops_per_token", r.flops_per_token},
          {"flops", r.flops},
          {"flops_6nd", r.flops_6nd},
          {"wall_s", r.wall_s},
          {"train_s", r.train_s},
          {"tokens_per_s", r.tokens_per_s},
          {"achieved_tflops", r.achieved_tflops},
          {"mfu", optional_number(r.mfu)},
          {"device", r.device},
          {"accelerator", r.accelerator},
          {"peak_flops", r.peak_flops},
          {"backend", std::string(train::kBackendKindNames.name(r.backend))},
          {"precision", std::string(train::kPrecisionNames.name(r.precision))},
          {"memory_bytes", r.memory_bytes},
          {"peak_rss_bytes", peak_rss_bytes()},
          {"data", r.data_description},
          {"checkpoint", r.checkpoint_path},
          {"curve_file", curve_file},
          {"results_file", results_file}};
}

std::string render_table(const Json& d) {
  auto number = [&](const char* key, int digits = 4) {
    return d[key].is_null() ? std::string("-") : sig(d[key].get<double>(), digits);
  };
  std::vector<std::pair<std::string, std::string>> rows;
  rows.emplace_back("device", d["device"].get<std::string>() + " (" + d["backend"].get<std::string>() + ", " +
                                  d["precision"].get<std::string>() + ")");
  rows.emplace_back("data", d["data"].get<std::string>());
  rows.emplace_back("params", units::format_count(d["params"].get<double>()) + " (" +
                                  units::format_count(d["non_embedding_params"].get<double>()) + " non-embedding)");
  rows.emplace_back("steps", std::to_string(d["steps"].get<long long>()) + " of " +
                                 std::to_string(d["steps_total"].get<long long>()) +
                                 (d["interrupted"].get<bool>() ? " (interrupted)" : ""));
  rows.emplace_back("tokens", units::format_count(d["tokens"].get<double>()));
  rows.emplace_back("final train loss", number("final_train_loss"));
  rows.emplace_back("eval loss", number("eval_loss"));
  if (!d["entropy_floor"].is_null()) {
    std::string floor = number("entropy_floor") + " nats (source entropy rate)";
    if (!d["eval_loss"].is_null())
      floor += "; eval is " + sig(d["eval_loss"].get<double>() - d["entropy_floor"].get<double>(), 3) + " above";
    rows.emplace_back("entropy floor", floor);
  }
  rows.emplace_back("FLOPs", units::format_scientific(d["flops"].get<double>()) + " (chinchilla App. F), " +
                                 units::format_scientific(d["flops_6nd"].get<double>()) + " (6ND)");
  rows.emplace_back("wall time", units::format_duration(d["wall_s"].get<double>()));
  rows.emplace_back("throughput", units::format_count(d["tokens_per_s"].get<double>()) + " tokens/s, " +
                                      sig(d["achieved_tflops"].get<double>() * 1e3, 3) + " GFLOP/s");
  rows.emplace_back("MFU", d["mfu"].is_null() ? std::string("- (no catalog peak for this device)")
                                              : sig(d["mfu"].get<double>() * 100, 3) + " % of " +
                                                    d["accelerator"].get<std::string>() + "'s peak");
  rows.emplace_back("memory", sig(d["memory_bytes"].get<double>() / 1048576.0, 3) + " MiB allocated, peak RSS " +
                                  sig(d["peak_rss_bytes"].get<double>() / 1048576.0, 3) + " MiB");
  rows.emplace_back("checkpoint", d["checkpoint"].get<std::string>());
  rows.emplace_back("loss curve", d["curve_file"].get<std::string>());
  rows.emplace_back("results", d["results_file"].get<std::string>());
  return report::render_key_values(rows, 0);
}

}  // namespace

int run_train(const std::vector<std::string>& args) {
  po::options_description options("Options");
  options.add_options()
      ("job", po::value<std::string>()->value_name("JOB.yaml"), "the job file (positional)")
      ("resume", po::bool_switch(), "continue from the job's checkpoint (after Ctrl-C or a crash)")
      ("curve", po::value<std::string>()->value_name("FILE"), "write the loss curve CSV here (default <output>/loss_curve.csv)")
      ("threads", po::value<std::string>()->value_name("N"), "CPU backend threads, overriding the job's 'threads' (0: every core)")
      ("example", po::bool_switch(), "print a commented example job and exit");
  po::positional_options_description positional;
  positional.add("job", 1);
  auto parsed = parse_command_line(kHelp, args, options, &positional);
  if (!parsed) return 0;
  const auto& vm = parsed->values;
  const auto job_file = get_string(vm, "job");
  if (vm["example"].as<bool>()) {
    if (job_file) throw InputError("train: --example prints a job; give it without JOB.yaml");
    const std::string text = train::example_job_text();
    std::fwrite(text.data(), 1, text.size(), stdout);
    return 0;
  }
  if (!job_file) throw InputError("train: missing JOB.yaml (isoflop train --example prints one); see 'isoflop help train'");
  const bool resume = vm["resume"].as<bool>();
  // Before anything is read or written: the CPU backend's GEMMs run 2-3x faster on the kernels the CPU has.
  std::vector<std::string> whole{"train"};
  whole.insert(whole.end(), args.begin(), args.end());
  reexec_with_detected_blas_core(whole);

  train::Job job = train::load_job(*job_file);
  if (const auto threads = get_int(vm, "threads", units::Sign::kNonNegative, train::kMaxThreads)) job.threads = *threads;
  const catalog::Catalog catalog = load_catalog(parsed->common);
  const std::string results_file = (fs::path(job.output) / "results.json").string();
  const std::string curve_file = get_string(vm, "curve").value_or((fs::path(job.output) / "loss_curve.csv").string());

  ProgressPrinter printer(::isatty(STDERR_FILENO) != 0, parsed->common.quiet);
  train::RunOptions run;
  run.resume = resume;
  run.stop = &g_stop;
  run.catalog = &catalog;
  run.on_progress = [&](const train::Progress& p) { printer(p); };
  run.on_note = [](const std::string& text) { spdlog::info("{}", text); };
  train::TrainResult result;
  {
    g_stop.store(false);
    StopSignals signals;
    result = train::run_training(job, run);
  }

  const Json doc = result_json(job, result, resume, curve_file, results_file);
  std::error_code ec;
  fs::create_directories(job.output, ec);
  if (ec) throw InputError("output: cannot create '" + job.output + "': " + ec.message());
  write_file_atomically(curve_file, train::curve_csv(result.curve), "--curve");
  write_file_atomically(results_file, report::to_json_text(doc), "output");
  if (result.interrupted)
    spdlog::warn("interrupted after step {} of {}; checkpoint saved to {}; continue with: isoflop train {} --resume",
                 result.steps, result.steps_total, result.checkpoint_path, *job_file);

  Json rows = Json::array();
  for (const auto& p : result.curve)
    rows.push_back({{"step", p.step}, {"tokens", p.tokens}, {"lr", p.lr}, {"train_loss", p.train_loss},
                    {"eval_loss", p.eval_loss >= 0 ? Json(p.eval_loss) : Json(nullptr)}, {"grad_norm", p.grad_norm},
                    {"elapsed_s", p.elapsed_s}});
  write_result(parsed->common, doc, [&] { return render_table(doc); }, &rows);
  if (result.interrupted) return 128 + (g_signal.load() ? g_signal.load() : SIGINT);
  return 0;
}

}  // namespace isoflop::app

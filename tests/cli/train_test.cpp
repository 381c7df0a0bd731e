// End-to-end tests of `isoflop train`: the example job runs, results.json and the loss curve are written,
// Ctrl-C saves a checkpoint and exits 130, --resume finishes with the uninterrupted run's losses, and bad jobs
// exit 2 with one line while nothing already written is lost.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli_json.hpp"
#include "support/run_cli.hpp"
#include "support/temp_files.hpp"

namespace {

namespace fs = std::filesystem;
using namespace isoflop::test;

fs::path temp_dir(const std::string& name) { return fresh_temp_dir("isoflop-train-cli", name); }

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  REQUIRE_MESSAGE(at != std::string::npos, from);
  return text.replace(at, from.size(), to);
}

// The example job, scaled down to a few seconds on one thread.
std::string small_example() {
  const auto example = run_cli("train --example");
  REQUIRE(example.status == 0);
  std::string job = example.out;
  job = replace_all(job, "tokens: 2M", "tokens: 49152");
  job = replace_all(job, "warmup: 64k", "warmup: 4k");
  job = replace_all(job, "  tokens: 1M", "  tokens: 60k");
  job = replace_all(job, "backend: auto", "backend: cpu");
  job = replace_all(job, "threads: 0", "threads: 1");
  job = replace_all(job, "every: 200", "every: 16");
  job = replace_all(job, "tokens: 64k", "tokens: 4k");
  return job;
}

std::string write_job(const fs::path& dir, const std::string& text) {
  const fs::path file = dir / "job.yaml";
  std::ofstream(file) << text;
  return file.string();
}

// The loss columns of a loss_curve.csv (step,tokens,lr,train_loss,eval_loss,…), without the elapsed time.
std::vector<std::string> loss_columns(const std::string& csv) {
  std::vector<std::string> rows;
  std::istringstream in(csv);
  std::string line;
  while (std::getline(in, line)) rows.push_back(line.substr(0, line.rfind(',')));
  return rows;
}

}  // namespace

TEST_CASE("train: the example job runs and reports in JSON, with results.json and the loss curve") {
  const fs::path dir = temp_dir("example");
  const std::string job = write_job(dir, small_example());
  const std::string plot = (dir / "loss.svg").string();
  const auto r = run_cli("train " + job + " -o json --plot " + plot);
  REQUIRE_MESSAGE(r.status == 0, r.err);
  const auto doc = nlohmann::json::parse(r.out);
  CHECK(doc["schema"] == "isoflop/train/v2");
  CHECK(doc["tokens"] == 48 * 1024);  // an integer
  CHECK(doc["steps"] == 48);
  CHECK(doc["curve"].size() == 48);
  CHECK(doc["curve"][47]["train_loss"] == doc["final_train_loss"]);
  CHECK(doc["curve"][47]["eval_loss"] == doc["eval_loss"]);
  CHECK(doc["flops"].get<double>() == doc["flops_per_token"].get<double>() * 48 * 1024);
  CHECK(doc["backend"] == "cpu");
  CHECK(doc["device"].get<std::string>().rfind("cpu (1 thread, OpenBLAS ", 0) == 0);
  // A CPU the catalog does not list: MFU against the sgemm peak measured with the run's thread.
  CHECK(doc["peak_source"] == "measured_sgemm");
  CHECK(doc["accelerator"].is_null());
  CHECK(doc["mfu"].get<double>() == doctest::Approx(doc["achieved_tflops"].get<double>() * 1e12 /
                                                    doc["peak_flops"].get<double>()));
  CHECK(r.err.find("wrote " + plot) != std::string::npos);
  const std::string svg = read_file(plot);
  CHECK(svg.find("train loss") != std::string::npos);
  CHECK(svg.find("eval loss") != std::string::npos);
  CHECK(doc["eval_loss"].get<double>() > doc["entropy_floor"].get<double>());
  CHECK(doc["eval_loss"].get<double>() < std::log(64.0));
  // results.json is the same train document.
  const auto results = nlohmann::json::parse(read_file(dir / "run" / "results.json"));
  CHECK(results == doc);
  const auto curve = loss_columns(read_file(dir / "run" / "loss_curve.csv"));
  REQUIRE(curve.size() == 49);  // header + 48 steps
  CHECK(curve[0] == "step,tokens,lr,train_loss,eval_loss,grad_norm");
  fs::remove_all(dir);
}

TEST_CASE("train: SIGINT saves a checkpoint and exits 130 — --resume ends with the uninterrupted losses") {
  const fs::path whole = temp_dir("whole"), split = temp_dir("split");
  // Long enough that the signal lands mid-run: it is sent as soon as the first checkpoint appears.
  std::string text = small_example();
  text = replace_all(text, "d_model: 64", "d_model: 32");
  text = replace_all(text, "seq: 64", "seq: 32");
  text = replace_all(text, "tokens: 49152", "tokens: 160k");
  text = replace_all(text, "  tokens: 60k", "  tokens: 200k");
  text = replace_all(text, "every: 500", "every: 20");
  const auto reference = run_cli("train " + write_job(whole, text) + " --threads 1 -q");  // results repeat per count
  REQUIRE_MESSAGE(reference.status == 0, reference.err);

  const std::string job = write_job(split, text);
  // Run with the output options a user gives, so the printed command must carry them.
  const std::string output = (split / "out").string(), curve = (split / "curve.csv").string();
  const std::string checkpoint = (split / "out" / "checkpoint.bin").string();
  // A script, so the shell's job control ($!, wait) needs no quoting here.
  const fs::path script = split / "interrupt.sh";
  std::ofstream(script) << "'" << ISOFLOP_BINARY << "' train '" << job << "' --output '" << output << "' --curve '"
                        << curve << "' --threads 1 >/dev/null 2>'" << (split / "err.txt").string()
                        << "' &\npid=$!\ni=0\nwhile [ ! -f '" << checkpoint << "' ]; do\n"
                        << "  kill -0 $pid 2>/dev/null || { echo exited-before-a-checkpoint; exit 0; }\n"
                        << "  i=$((i+1)); [ $i -gt 6000 ] && { kill -KILL $pid; echo no-checkpoint-in-60-s; exit 0; }\n"
                        << "  sleep 0.01\ndone\nkill -INT $pid\nwait $pid\necho $?\n";
  FILE* pipe = ::popen(("/bin/sh '" + script.string() + "'").c_str(), "r");
  REQUIRE(pipe != nullptr);
  char buffer[64] = {};
  const size_t n = std::fread(buffer, 1, sizeof buffer - 1, pipe);
  ::pclose(pipe);
  CHECK(std::string(buffer, n) == "130\n");
  const std::string err = read_file(split / "err.txt");
  CHECK(fs::exists(checkpoint));
  // The printed command, run as printed (the shell reads its quoting), finishes this run.
  const std::string marker = "continue with: isoflop ";
  const size_t at = err.find(marker);
  REQUIRE_MESSAGE(at != std::string::npos, err);
  const size_t end = err.find('\n', at);
  const std::string printed = err.substr(at + marker.size(), end == std::string::npos ? end : end - at - marker.size());
  CHECK(printed.find("--output") != std::string::npos);
  CHECK(printed.find("--threads 1") != std::string::npos);
  CHECK(printed.find("--force") == std::string::npos);  // the curve it wrote is the run's own while unchanged
  const auto resumed = run_cli(printed + " -q -o json");
  REQUIRE_MESSAGE(resumed.status == 0, std::string(printed + ": " + resumed.err));
  CHECK(nlohmann::json::parse(resumed.out)["resumed"] == true);
  CHECK(loss_columns(read_file(curve)) == loss_columns(read_file(whole / "run" / "loss_curve.csv")));
  fs::remove_all(whole);
  fs::remove_all(split);
}

TEST_CASE("train: bad jobs exit 2 with one line, and what was written stays") {
  const fs::path dir = temp_dir("bad");
  const std::string good = small_example();
  struct Case {
    std::string from, to, needle;
  };
  const std::vector<Case> cases = {
      {"  heads: 4           # attention heads\n", "", "'heads': is missing"},
      {"heads: 4 ", "heads: 3 ", "not divisible by heads 3"},
      {"tokens: 49152", "tokens: -1", "tokens"},
      {"backend: cpu", "backend: gpu", "not one of auto|cpu|cuda"},
      {"source: markov", "source: wikipedia", "source"},
      {"  tokens: 60k", "  tokens: 500", "does not fit"},
      // Token counts past kMaxTokens would overflow the whole-number step counts made from them.
      {"tokens: 49152", "tokens: 3.9e124", "section 'train' field 'tokens': is too large: 3.9e124 tokens (at most 1e16)"},
      {"warmup: 4k", "warmup: 1e200", "section 'train' field 'warmup': is too large: 1e200 tokens (at most 1e16)"},
      {"tokens: 4k", "tokens: 1e30", "section 'eval' field 'tokens': is too large: 1e30 tokens (at most 1e16)"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.needle);
    const auto r = run_cli("train " + write_job(dir, replace_all(good, c.from, c.to)));
    CHECK(r.status == 2);
    CHECK(r.err.find(c.needle) != std::string::npos);
    CHECK(r.err.rfind("isoflop: error: ", 0) == 0);
    CHECK(r.err.find('\n') == r.err.size() - 1);  // one line
    CHECK(!fs::exists(dir / "run"));
  }
  check_refused("train " + (dir / "nothing.yaml").string(), "cannot read");
  check_refused("train " + write_job(dir, good) + " --threads two", "--threads");

  // A finished run, then the same job again without --resume: refused, the checkpoint and results untouched.
  const std::string job = write_job(dir, good);
  REQUIRE(run_cli("train " + job + " -q").status == 0);
  const std::string checkpoint = read_file(dir / "run" / "checkpoint.bin");
  const std::string results = read_file(dir / "run" / "results.json");
  check_refused("train " + job, "--resume: not given, and checkpoint.path");
  CHECK(read_file(dir / "run" / "checkpoint.bin") == checkpoint);
  CHECK(read_file(dir / "run" / "results.json") == results);

  // A corrupt checkpoint is named and left as it is.
  std::ofstream(dir / "run" / "checkpoint.bin", std::ios::binary) << checkpoint.substr(0, checkpoint.size() - 3);
  check_refused("train " + job + " --resume", "checkpoint");
  CHECK(read_file(dir / "run" / "results.json") == results);
  fs::remove_all(dir);
}

TEST_CASE("train: backend cuda without a device is an error, never a silent fallback") {
  if (fs::exists("/dev/nvidia0")) return;  // a machine with a GPU runs the CUDA backend instead
  const fs::path dir = temp_dir("cuda");
  check_refused("train " + write_job(dir, replace_all(small_example(), "backend: cpu", "backend: cuda")),
                "backend: cuda requested but");
  CHECK(!fs::exists(dir / "run"));
  fs::remove_all(dir);
}

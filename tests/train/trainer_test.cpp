// The training run end to end on the CPU reference: the markov source's entropy floor is approached from
// above, the schedule ends where the job says, same seed gives the same losses, an interrupted run resumes
// bit for bit, and bad jobs are refused before anything is written.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "model/flops.hpp"
#include "model/params.hpp"
#include "support/temp_files.hpp"
#include "train/job.hpp"
#include "train/session.hpp"
#include "train/trainer.hpp"
#include "train/tiny_job.hpp"

namespace isoflop::train {
namespace {

namespace fs = std::filesystem;

using test::read_file;
using namespace testing;  // kTinyJob, parse, stopped_run, temp_dir, with (tiny_job.hpp)

TEST_CASE("the example job parses and validates") {
  const fs::path dir = temp_dir("example");
  const Job job = parse(example_job_text(), dir);
  CHECK(job.model.layers == 2);
  CHECK(job.data.source == DataSource::kMarkov);
  CHECK(job.train.min_lr_fraction == doctest::Approx(0.1));
  CHECK(job.steps() * job.tokens_per_step() == 1'999'872);  // 1953 whole steps of 16 x 64 tokens
  fs::remove_all(dir);
}

TEST_CASE("a job built in code is held to the token bound its file is: no step count made from 1e200 tokens") {
  const fs::path dir = temp_dir("bound");
  Job job = parse(kTinyJob, dir);
  job.train.warmup_tokens = 1e200;
  CHECK_THROWS_WITH_AS(job.validate(), "train.warmup: is too large: 1e200 tokens (at most 1e16)", InputError);
  job = parse(kTinyJob, dir);
  job.eval.tokens = std::nan("");
  CHECK_THROWS_WITH_AS(job.validate(), "eval.tokens: is not a number", InputError);
  job = parse(kTinyJob, dir);
  job.train.tokens = kMaxTokens;  // the bound itself is accepted
  CHECK_NOTHROW(job.validate());
  job.train.tokens = 4096.5;
  CHECK_THROWS_WITH_AS(job.validate(), "train.tokens: 4096.5 is not a whole number of tokens", InputError);
  fs::remove_all(dir);
}

TEST_CASE("a small model on the order-1 markov source (V 64) approaches the entropy floor from above") {
  const fs::path dir = temp_dir("floor");
  const Job job = parse(R"(
model: {layers: 1, d_model: 32, heads: 2, seq: 32, vocab: 64}
train: {tokens: 256k, batch: 16, lr: 1e-2, warmup: 16k, seed: 1}
data: {source: markov, tokens: 300k, order: 1}
backend: cpu
threads: 1
eval: {every: 100, tokens: 32k}
output: run
)",
                        dir);
  const TrainResult r = run_training(job, RunOptions{});
  REQUIRE(r.entropy_floor);
  REQUIRE(r.val_floor);
  REQUIRE(r.eval_loss);
  const double floor = *r.entropy_floor;
  MESSAGE("entropy floor " << floor << " nats, validation floor " << *r.val_floor << ", eval loss " << *r.eval_loss);
  // It starts near a uniform guess (ln 64 = 4.159) and ends within 5 % above the floor. The bound below the floor
  // is the true source's own loss on this validation split, which no model can beat in expectation.
  CHECK(r.curve.front().train_loss == doctest::Approx(std::log(64.0)).epsilon(0.05));
  CHECK(*r.eval_loss < 1.05 * floor);
  CHECK(*r.eval_loss > *r.val_floor - 0.01);
  // Evaluations fall overall: the last is well below the first.
  double first_eval = -1;
  for (const auto& p : r.curve)
    if (p.eval_loss >= 0 && first_eval < 0) first_eval = p.eval_loss;
  CHECK(*r.eval_loss < first_eval);
  fs::remove_all(dir);
}

TEST_CASE("the schedule warms up to the peak and ends at 10 % of it on the last planned step") {
  const fs::path dir = temp_dir("schedule");
  const Job job = parse(kTinyJob, dir);
  const TrainResult r = run_training(job, RunOptions{});
  REQUIRE(r.curve.size() == static_cast<size_t>(job.steps()));
  CHECK(job.steps() == 96);
  CHECK(job.warmup_steps() == 8);
  CHECK(r.curve[0].lr == doctest::Approx(job.train.lr / 8));                 // linear: step 1 of 8
  CHECK(r.curve[7].lr == doctest::Approx(job.train.lr));                     // the peak at the end of warm-up
  CHECK(r.curve.back().lr == doctest::Approx(0.1 * job.train.lr).epsilon(1e-9));  // exactly at the planned tokens
  for (size_t i = 8; i < r.curve.size(); ++i) CHECK(r.curve[i].lr <= r.curve[i - 1].lr);
  fs::remove_all(dir);
}

TEST_CASE("FLOPs are counted in the planner's conventions") {
  const fs::path dir = temp_dir("flops");
  const Job job = parse(kTinyJob, dir);
  const TrainResult r = run_training(job, RunOptions{});
  model::Architecture a;
  a.layers = 1;
  a.d_model = 16;
  a.heads = 2;
  a.vocab = 32;
  a.seq = 16;
  CHECK(r.params == model::count_params(a).total());
  CHECK(r.tokens == 12288);
  CHECK(r.flops_per_token == doctest::Approx(model::chinchilla_training_flops_per_sequence(a, 16) / 16));
  CHECK(r.flops == doctest::Approx(r.flops_per_token * r.tokens));
  CHECK(r.flops_6nd == doctest::Approx(6 * r.params * r.tokens));
  CHECK(r.achieved_tflops > 0);
  CHECK(r.tokens_per_s > 0);
  // The throughput is the steady state: the first step, which builds plans and touches the buffers, is timed
  // apart (in train_s, not in tokens_per_s).
  REQUIRE(r.steps > 1);
  REQUIRE(r.first_step_s);
  CHECK(*r.first_step_s > 0);
  CHECK(*r.first_step_s < r.train_s);
  CHECK(r.tokens_per_s == doctest::Approx(static_cast<double>((r.steps - 1) * job.tokens_per_step()) /
                                          (r.train_s - *r.first_step_s)));
  CHECK(r.achieved_tflops == doctest::Approx(r.flops_per_token * r.tokens_per_s / 1e12));
  // No catalog entry for a CPU: MFU against the fp32 sgemm peak measured with the run's threads.
  CHECK(r.peak_source == PeakSource::kMeasuredSgemm);
  REQUIRE(r.mfu);
  CHECK(r.peak_flops > 1e8);
  CHECK(*r.mfu == doctest::Approx(r.achieved_tflops * 1e12 / r.peak_flops));
  CHECK(*r.mfu > 0);
  CHECK(*r.mfu < 1.5);  // a tiny model reaches a fraction of the peak (the bound allows timing noise)
  fs::remove_all(dir);
}

TEST_CASE("a session stepped by hand: run_training's losses, evaluations and checkpoint") {
  const fs::path a = temp_dir("session-a"), b = temp_dir("session-b");
  const TrainResult whole = run_training(parse(kTinyJob, a), RunOptions{});
  TrainingSession session(parse(kTinyJob, b), RunOptions{});
  while (!session.finished()) session.step();
  CHECK(session.session_steps() == whole.steps);
  CHECK(session.evaluate() == whole.eval_loss.value());  // the same validation batches, the same parameters
  session.checkpoint();
  const TrainResult by_hand = session.finish(false);
  REQUIRE(by_hand.curve.size() == whole.curve.size());
  for (size_t i = 0; i < whole.curve.size(); ++i) {
    CHECK(by_hand.curve[i].train_loss == whole.curve[i].train_loss);
    CHECK(by_hand.curve[i].eval_loss == whole.curve[i].eval_loss);
  }
  CHECK(by_hand.checkpoint_path == (b / "run" / "checkpoint.bin").string());
  CHECK(fs::exists(by_hand.checkpoint_path));
  fs::remove_all(a);
  fs::remove_all(b);
}

TEST_CASE("MFU: the job's catalog accelerator when it names one, none when measuring is off") {
  const fs::path dir = temp_dir("peak");
  Job job = parse(kTinyJob, dir);
  job.peak_device = "a100-sxm4-80gb";
  const catalog::Catalog catalog = catalog::embedded_catalog();
  RunOptions options;
  options.catalog = &catalog;
  const TrainResult r = run_training(job, options);
  CHECK(r.peak_source == PeakSource::kCatalog);
  CHECK(r.accelerator == "a100-sxm4-80gb");
  CHECK(r.peak_flops == catalog.accelerator("a100-sxm4-80gb", "peak_device").peak_fp32_flops);
  REQUIRE(r.mfu);
  CHECK(*r.mfu == doctest::Approx(r.achieved_tflops * 1e12 / r.peak_flops));
  RunOptions off;
  off.measure_cpu_peak = false;
  const fs::path other = temp_dir("no-peak");
  const TrainResult n = run_training(parse(kTinyJob, other), off);
  CHECK(n.peak_source == PeakSource::kNone);
  CHECK(!n.mfu);
  fs::remove_all(dir);
  fs::remove_all(other);
}

TEST_CASE("same seed, same loss sequence — another seed, another") {
  const fs::path a = temp_dir("seed-a"), b = temp_dir("seed-b"), c = temp_dir("seed-c");
  const TrainResult ra = run_training(parse(kTinyJob, a), RunOptions{});
  const TrainResult rb = run_training(parse(kTinyJob, b), RunOptions{});
  std::string other = kTinyJob;
  other.replace(other.find("seed: 7"), 7, "seed: 8");
  const TrainResult rc = run_training(parse(other, c), RunOptions{});
  REQUIRE(ra.curve.size() == rb.curve.size());
  for (size_t i = 0; i < ra.curve.size(); ++i) {
    CHECK(ra.curve[i].train_loss == rb.curve[i].train_loss);  // bitwise
    CHECK(ra.curve[i].grad_norm == rb.curve[i].grad_norm);
  }
  CHECK(ra.curve.back().train_loss != rc.curve.back().train_loss);
  for (const auto& d : {a, b, c}) fs::remove_all(d);
}

TEST_CASE("an interrupted run resumes to the bitwise-identical loss sequence and final weights") {
  const fs::path whole = temp_dir("whole"), split = temp_dir("split");
  RunOptions keep;
  keep.keep_parameters = true;
  const TrainResult reference = run_training(parse(kTinyJob, whole), keep);

  const Job job = parse(kTinyJob, split);
  RunOptions first;
  first.stop_after_steps = 37;  // mid-way, off the evaluation and checkpoint grid
  const TrainResult stopped = run_training(job, first);
  CHECK(stopped.interrupted);
  CHECK(stopped.steps == 37);
  REQUIRE(fs::exists(job.checkpoint.path));

  RunOptions second = keep;
  second.resume = true;
  const TrainResult resumed = run_training(job, second);
  CHECK(resumed.resumed);
  CHECK(!resumed.interrupted);
  REQUIRE(resumed.curve.size() == reference.curve.size());
  for (size_t i = 0; i < reference.curve.size(); ++i) {
    CHECK(resumed.curve[i].train_loss == reference.curve[i].train_loss);
    CHECK(resumed.curve[i].eval_loss == reference.curve[i].eval_loss);
    CHECK(resumed.curve[i].lr == reference.curve[i].lr);
  }
  REQUIRE(resumed.parameters.size() == reference.parameters.size());
  CHECK(resumed.parameters == reference.parameters);
  CHECK(*resumed.eval_loss == *reference.eval_loss);
  fs::remove_all(whole);
  fs::remove_all(split);
}

TEST_CASE("a resume on another thread count goes on, and says its losses will not repeat bit for bit") {
  const fs::path dir = temp_dir("other-device");
  stopped_run(kTinyJob, dir, 5);
  std::vector<std::string> notes;
  RunOptions resume;
  resume.resume = true;
  resume.on_note = [&](const std::string& n) { notes.push_back(n); };
  const TrainResult r = run_training(parse(with(kTinyJob, "threads: 1", "threads: 2"), dir), resume);
  CHECK(r.steps == r.steps_total);
  bool noted = false;
  for (const auto& n : notes) noted = noted || n.find("will not repeat bit for bit") != std::string::npos;
  CHECK(noted);
  fs::remove_all(dir);
}

// Expects run_training (or parsing) to refuse the job with a message containing `needle`.
void check_refused(const std::string& text, const std::string& needle, const fs::path& dir, bool resume = false) {
  CAPTURE(needle);
  try {
    RunOptions options;
    options.resume = resume;
    run_training(parse(text, dir), options);
    FAIL("the job was accepted");
  } catch (const InputError& e) {
    const std::string message = e.what();
    CAPTURE(message);
    CHECK(message.find(needle) != std::string::npos);
    CHECK(message.find('\n') == std::string::npos);  // one line
  }
}

TEST_CASE("bad jobs are refused with a one-line message naming the field") {
  const fs::path dir = temp_dir("bad");
  check_refused(with(kTinyJob, "heads: 2, ", ""), "'heads': is missing", dir);
  check_refused(with(kTinyJob, "d_model: 16, heads: 2", "d_model: 16, heads: 3"), "not divisible by heads 3", dir);
  check_refused(with(kTinyJob, "tokens: 12288", "tokens: 0"), "tokens", dir);
  check_refused(with(kTinyJob, "tokens: 12288", "tokens: -5"), "tokens", dir);
  check_refused(with(kTinyJob, "backend: cpu", "backend: tpu"), "not one of auto|cpu|cuda", dir);
  check_refused(with(kTinyJob, "source: markov", "source: wiki"), "source", dir);
  check_refused(with(kTinyJob, "tokens: 40k", "tokens: 100"), "does not fit", dir);  // a batch outgrows the data
  check_refused(with(with(kTinyJob, "source: markov, tokens: 40k, order: 1", "source: text, path: missing.txt"),
                     "vocab: 32", "vocab: 256"),
                "missing.txt", dir);
  check_refused(with(kTinyJob, "warmup: 1024", "warmup: 1M"), "train.warmup", dir);
  check_refused(with(kTinyJob, "threads: 1", "threads: -1"), "threads", dir);
  check_refused(with(kTinyJob, "threads: 1", "threads: 4294967298"), "is too large: 4294967298", dir);
  check_refused(with(kTinyJob, "output: run", "output: run\nfoo: 1"), "foo", dir);
  // Whole tokens only (a run reads whole tokens), and one document: YAML::Load would train the first silently.
  check_refused(with(kTinyJob, "tokens: 12288", "tokens: 12288.5"), "12288.5 is not a whole number of tokens", dir);
  check_refused(with(kTinyJob, "warmup: 1024", "warmup: 1024.25"), "1024.25 is not a whole number of tokens", dir);
  check_refused(std::string(kTinyJob) + "---\nmodel: {layers: 9}\n",
                "a second document ('---') in the file; accepted: one document", dir);
  fs::remove_all(dir);
}

TEST_CASE("a checkpoint is never lost: refused when it exists without resume, and when it is corrupt") {
  const fs::path dir = temp_dir("keep");
  const Job job = stopped_run(kTinyJob, dir, 5);
  const std::string saved = read_file(job.checkpoint.path);
  REQUIRE(!saved.empty());

  // Starting afresh over it would overwrite it.
  check_refused(kTinyJob, "resume: not given, and checkpoint.path", dir);
  CHECK(read_file(job.checkpoint.path) == saved);

  // A different job cannot resume it (unless the changes are allowed: tests/train/resume_test.cpp).
  check_refused(with(kTinyJob, "seed: 7", "seed: 9"), "allow_changes: not given, and the job changed since", dir, true);
  check_refused(with(kTinyJob, "layers: 1", "layers: 2"), "belongs to a different job: model.layers 1 → 2", dir, true);
  CHECK(read_file(job.checkpoint.path) == saved);

  // A flipped byte fails the checksum; a truncated file is corrupt too. Neither is touched.
  std::string flipped = saved;
  flipped[flipped.size() / 2] ^= 0x40;
  std::ofstream(job.checkpoint.path, std::ios::binary) << flipped;
  check_refused(kTinyJob, "checkpoint", dir, true);
  CHECK(read_file(job.checkpoint.path) == flipped);
  std::ofstream(job.checkpoint.path, std::ios::binary) << saved.substr(0, 20);
  check_refused(kTinyJob, "checkpoint", dir, true);
  CHECK(read_file(job.checkpoint.path) == saved.substr(0, 20));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace isoflop::train

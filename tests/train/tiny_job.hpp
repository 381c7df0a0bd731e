// The job files the trainer tests share: a tiny markov job that runs in a fraction of a second, written into a
// test's folder and loaded as `isoflop train` loads it.
#pragma once

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "support/temp_files.hpp"
#include "train/job.hpp"
#include "train/trainer.hpp"

namespace isoflop::train::testing {

inline std::filesystem::path temp_dir(const std::string& name) {
  return test::fresh_temp_dir("isoflop-trainer-test", name);
}

// One thread: the tests run beside others (ctest -j), and determinism is promised per thread count.
inline Job parse(const std::string& text, const std::filesystem::path& dir) {
  const std::filesystem::path file = dir / "job.yaml";
  std::ofstream(file) << text;
  return load_job(file.string());
}

// A few dozen steps of a 1-layer d 16 model: enough to compare runs step by step, quick under sanitizers.
inline const char* kTinyJob = R"(
model: {layers: 1, d_model: 16, heads: 2, seq: 16, vocab: 32}
train: {tokens: 12288, batch: 8, lr: 1e-2, warmup: 1024, seed: 7}
data: {source: markov, tokens: 40k, order: 1}
backend: cpu
threads: 1
eval: {every: 16, tokens: 2048}
output: run
)";

// `text` with its first `from` replaced by `to` (which must occur).
inline std::string with(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

// The job of `text` in `dir`, run for `steps` steps and stopped (as by Ctrl-C): its checkpoint is on disk.
inline Job stopped_run(const std::string& text, const std::filesystem::path& dir, long long steps) {
  const Job job = parse(text, dir);
  RunOptions stop;
  stop.stop_after_steps = steps;
  REQUIRE(run_training(job, stop).interrupted);
  return job;
}

}  // namespace isoflop::train::testing

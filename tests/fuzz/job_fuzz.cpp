// Fuzz target: a training job file (YAML) parsed and validated as `isoflop train JOB` does before training,
// then the step arithmetic every run does on it.
#include "core/error.hpp"
#include "fuzz_support.hpp"
#include "train/job.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = isoflop::fuzz::as_text(data, size);
  try {
    const isoflop::train::Job job = isoflop::train::parse_job(text, "job.yaml");
    ISOFLOP_FUZZ_CHECK(job.tokens_per_step() > 0);
    ISOFLOP_FUZZ_CHECK(job.steps() > 0);
    ISOFLOP_FUZZ_CHECK(job.warmup_steps() >= 0 && job.warmup_steps() < job.steps());
  } catch (const isoflop::Error&) {
  }
  return 0;
}

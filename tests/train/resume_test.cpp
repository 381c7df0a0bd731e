// Holding a run's output folder and resuming it safely: one trainer per folder, stale temporary files of a
// killed save removed and never read, a changed job refused (or recorded when allowed), a finished run left
// as it is, and a job too large for the memory refused with the figures before anything is allocated.
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/error.hpp"
#include "support/input_error.hpp"
#include "train/cpu/gpt.hpp"
#include "train/memory.hpp"
#include "train/run_folder.hpp"
#include "train/tiny_job.hpp"
#include "train/trainer.hpp"

namespace isoflop::train {
namespace {

namespace fs = std::filesystem;
using test::input_error_message;
using test::read_file;
using namespace testing;  // kTinyJob, parse, stopped_run, temp_dir, with (tiny_job.hpp)

TEST_CASE("a second run on a held output folder is refused, naming the holder's pid") {
  const fs::path dir = temp_dir("lock");
  const Job job = parse(kTinyJob, dir);
  RunFolder first(job);
  first.prepare();  // creates and locks run/
  const std::string message = input_error_message([&] { run_training(job, RunOptions{}); });
  CHECK(message == "output folder '" + job.output + "' is in use by pid " + std::to_string(::getpid()) +
                       "; wait for it to finish or use another folder");
  CHECK(!fs::exists(job.checkpoint.path));
  // Held by the caller and passed in, the same folder runs.
  RunOptions options;
  options.folder = &first;
  CHECK(run_training(job, options).steps == job.steps());
  fs::remove_all(dir);
}

TEST_CASE("temporary files a killed save left are removed on start and never read as a checkpoint") {
  const fs::path dir = temp_dir("stale");
  const Job job = stopped_run(kTinyJob, dir, 5);
  const std::string saved = read_file(job.checkpoint.path);
  // A kill -9 mid-save: a complete copy under the temporary name of a writer that is gone, the real file lost.
  // pid 2^31-2 is above any pid_max; pid 1 always runs, so its temporary file is left alone.
  const fs::path stale = fs::path(job.output) / ".checkpoint.bin.isoflop-tmp.2147483646.0";
  const fs::path live = fs::path(job.output) / ".checkpoint.bin.isoflop-tmp.1.0";
  std::ofstream(stale, std::ios::binary) << saved;
  std::ofstream(live, std::ios::binary) << "live";
  fs::remove(job.checkpoint.path);
  RunOptions resume;
  resume.resume = true;
  const std::string message = input_error_message([&] { run_training(job, resume); });
  CHECK(message.find("cannot read checkpoint '" + job.checkpoint.path + "'") != std::string::npos);
  CHECK(!fs::exists(stale));
  CHECK(fs::exists(live));
  // Naming a temporary file as the checkpoint does not make it one.
  Job named = job;
  named.checkpoint.path = live.string();
  CHECK(input_error_message([&] { named.validate(); }).find("is named like a temporary file") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("a resume with a changed job names the changes, and when allowed goes on and records them") {
  const fs::path dir = temp_dir("changes");
  stopped_run(kTinyJob, dir, 20);
  const Job changed = parse(with(with(kTinyJob, "lr: 1e-2", "lr: 5e-3"), "warmup: 1024", "warmup: 2048"), dir);
  const std::string saved = read_file(changed.checkpoint.path);
  RunOptions resume;
  resume.resume = true;
  CHECK(input_error_message([&] { run_training(changed, resume); }) ==
        "allow_changes: not given, and the job changed since checkpoint '" + changed.checkpoint.path +
            "': train.lr 0.01 → 0.005, train.warmup 1024 → 2048; run the job as it was, or allow the changes to "
            "continue with them");
  CHECK(read_file(changed.checkpoint.path) == saved);
  resume.allow_changes = true;
  const TrainResult r = run_training(changed, resume);
  CHECK(r.steps == r.steps_total);
  REQUIRE(r.job_changes.size() == 2);
  CHECK(r.job_changes[0] == JobChange{20, "train.lr", "0.01", "0.005"});
  CHECK(r.job_changes[1] == JobChange{20, "train.warmup", "1024", "2048"});
  // The new schedule from step 21 on: the cosine of the changed job ends at 10 % of the new peak.
  CHECK(r.curve.back().lr == doctest::Approx(0.1 * 5e-3).epsilon(1e-9));
  // The model's shape cannot change, allowed or not.
  const fs::path other = temp_dir("changes-model");
  stopped_run(kTinyJob, other, 3);
  CHECK(input_error_message([&] { run_training(parse(with(kTinyJob, "d_model: 16", "d_model: 32"), other), resume); })
            .find("belongs to a different job: model.d_model 16 → 32") != std::string::npos);
  fs::remove_all(dir);
  fs::remove_all(other);
}

TEST_CASE("a resume of a finished run trains nothing and writes nothing") {
  const fs::path dir = temp_dir("finished");
  const Job job = parse(kTinyJob, dir);
  const TrainResult done = run_training(job, RunOptions{});
  const std::string saved = read_file(job.checkpoint.path);
  const auto written = fs::last_write_time(job.checkpoint.path);
  RunOptions resume;
  resume.resume = true;
  const TrainResult again = run_training(job, resume);
  CHECK(again.already_finished);
  CHECK(again.steps == done.steps);
  CHECK(again.curve == done.curve);
  CHECK(again.eval_loss == done.eval_loss);
  CHECK(again.train_s == 0);
  CHECK_FALSE(again.first_step_s);  // no step this session: none, not 0
  CHECK(read_file(job.checkpoint.path) == saved);
  CHECK(fs::last_write_time(job.checkpoint.path) == written);
  fs::remove_all(dir);
}

TEST_CASE("the memory estimate counts what the CPU backend allocates, and a job beyond the memory is refused") {
  const fs::path dir = temp_dir("memory");
  const Job job = parse(kTinyJob, dir);
  const MemoryEstimate e = estimate_memory(job, BackendKind::kCpu);
  const cpu::Gpt<float> model(job.model, job.train.batch);
  const double moments = 2.0 * sizeof(float) * model.layout().total;
  CHECK(e.weights_bytes == sizeof(float) * model.layout().total);
  CHECK(e.weights_bytes + e.gradients_bytes + e.activations_bytes + e.optimizer_bytes ==
        static_cast<double>(model.memory_bytes()) + moments);
  CHECK(e.data_bytes >= 2 * sizeof(int32_t) * 40000.0);  // the corpus and its split copies
  CHECK(e.checkpoint_bytes > 6 * e.weights_bytes);  // parameters and moments copied out, then encoded
  // CUDA keeps the model in device memory: the host holds the data and the checkpoint copies.
  const MemoryEstimate device = estimate_memory(job, BackendKind::kCuda);
  CHECK(device.weights_bytes == 0);
  CHECK(device.total_bytes() == e.data_bytes + e.checkpoint_bytes);

  // 100000 layers of d 1024: 1.26e12 parameters, 4.58 TiB of weights alone. Refused with the figures.
  const Job huge = parse(with(with(kTinyJob, "layers: 1", "layers: 100000"), "d_model: 16", "d_model: 1024"), dir);
  const std::string message = input_error_message([&] { run_training(huge, RunOptions{}); });
  CHECK(message.rfind("train: the job needs about ", 0) == 0);
  CHECK(message.find("weights 4.58 TiB") != std::string::npos);
  // No batch would do: the advice is the deepest model that fits at the batch that needs least.
  CHECK(message.find("use model.layers ") != std::string::npos);
  CHECK(message.find(" or fewer, at train.batch ") != std::string::npos);
  {
    const double limit = 8e9;  // 8 GB: 100000 layers of d 1024 need 4.58 TiB of weights alone
    const std::string advice = memory_advice(huge, BackendKind::kCpu, limit, 0);
    CAPTURE(advice);
    REQUIRE(advice.rfind("model.layers ", 0) == 0);
    const int layers = std::stoi(advice.substr(13));
    const int batch = std::stoi(advice.substr(advice.find("at train.batch ") + 15));
    Job shallow = huge;
    shallow.train.batch = batch;
    shallow.model.layers = layers;
    CHECK(estimate_memory(shallow, BackendKind::kCpu).total_bytes() <= limit);
    shallow.model.layers = layers + 1;
    CHECK(estimate_memory(shallow, BackendKind::kCpu).total_bytes() > limit);
  }
  CHECK(!fs::exists(huge.output));
  RunOptions capped;
  capped.max_memory_bytes = 256 << 10;  // the tiny job needs about 0.9 MiB
  const std::string capped_message = input_error_message([&] { run_training(job, capped); });
  CAPTURE(capped_message);
  CHECK(capped_message.rfind("max_memory: the job needs about ", 0) == 0);
  CHECK(capped_message.find("of the 256 KiB allowed (this process holds ") != std::string::npos);
  // Where the activations are the excess, the largest batch that fits is named: it fits, one more does not.
  Job wide = job;
  wide.train.batch = 64;
  const auto need = [&](Job j, int batch) {
    j.train.batch = batch;
    return estimate_memory(j, BackendKind::kCpu).total_bytes();
  };
  const double cap = need(job, job.train.batch) * 1.5;
  const auto named = [](const std::string& advice, const std::string& before) {
    const size_t at = advice.find(before);
    REQUIRE(at != std::string::npos);
    return std::stoi(advice.substr(at + before.size()));
  };
  const std::string smaller = memory_advice(wide, BackendKind::kCpu, cap, 0);
  CAPTURE(smaller);
  CHECK(smaller.find(" (the largest that fits; the activations grow with it)") != std::string::npos);
  const int largest = named(smaller, "train.batch ");
  CHECK(largest < 64);
  CHECK(need(wide, largest) <= cap);
  CHECK(need(wide, largest + 1) > cap);
  // Where the checkpoint's curve is (a point per step: 1e11 tokens at 8 × 32 per step), a larger batch that fits.
  Job long_run = job;
  long_run.train.tokens = 1e11;
  const double long_cap = need(long_run, 4096);
  const std::string larger = memory_advice(long_run, BackendKind::kCpu, long_cap, 0);
  CAPTURE(larger);
  const int smallest = named(larger, "train.batch ");
  CHECK(larger.find("(the smallest that fits: fewer steps") != std::string::npos);
  CHECK(smallest > job.train.batch);
  CHECK(need(long_run, smallest) <= long_cap);
  CHECK(need(long_run, smallest - 1) > long_cap);
  // What the process holds counts against a limit on the process.
  CHECK(memory_advice(job, BackendKind::kCpu, 1e6, 2e6).rfind("a larger --max-memory", 0) == 0);
  CHECK(available_memory().bytes > 0);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace isoflop::train

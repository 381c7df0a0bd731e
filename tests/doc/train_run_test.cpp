// Tests for doc::run_train_job: a tiny job trained from its file, the files it leaves (only those the caller
// named announced), a finished run resumed (nothing written, its results returned), and the output checks made
// before the first step.
#include "doc/train_run.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "support/temp_files.hpp"
#include "train/tiny_job.hpp"

namespace isoflop::doc {
namespace {

namespace fs = std::filesystem;

std::string flag_like(std::string_view field) { return "--" + std::string(field); }

struct Fixture {
  fs::path dir = test::fresh_temp_dir("train-run", "job");
  std::vector<std::string> written;
  TrainRequest request;
  Fixture() {
    std::ofstream(dir / "job.yaml") << train::testing::kTinyJob;
    request = {
        .job_file = (dir / "job.yaml").string(),
        .output = (dir / "out").string(),
        .threads = 1,
        .curve = std::nullopt,
        .plot = (dir / "curve.svg").string(),
        .outputs = {OutputRules{false, "no"}, flag_like, [this](const OutputTarget& t) { written.push_back(t.path); }}};
  }
};

TEST_CASE("a tiny job runs to its end and leaves results.json, the curve and the figure") {
  Fixture f;
  const TrainRun run = run_train_job(f.request, train::RunOptions{});
  const train::TrainResult& r = run.document.result;
  CHECK_FALSE(run.finished_before);
  CHECK(r.steps > 0);
  CHECK(r.steps == r.steps_total);
  CHECK(run.document.inputs.threads == 1);
  CHECK(run.document.results_file == (f.dir / "out" / "results.json").string());
  CHECK(run.document.curve_file == (f.dir / "out" / "loss_curve.csv").string());
  CHECK(f.written == std::vector<std::string>{*f.request.plot});  // the run's own files are not announced
  CHECK(Json::parse(test::read_file(run.document.results_file)) == run.json);
  CHECK(run.json.at("schema") == "isoflop/train/v2");
  const std::string csv = test::read_file(run.document.curve_file);
  CHECK(csv == train::curve_csv(r.curve));
  CHECK(std::count(csv.begin(), csv.end(), '\n') == static_cast<long>(r.curve.size()) + 1);
  CHECK(test::read_file(*f.request.plot).find("<svg") != std::string::npos);

  // Resumed when finished: nothing trained or written; the stored results come back and a note says so.
  f.written.clear();
  f.request.plot = std::nullopt;
  train::RunOptions resume;
  resume.resume = true;
  std::vector<std::string> notes;
  resume.on_note = [&](const std::string& text) { notes.push_back(text); };
  const std::string stored = test::read_file(run.document.results_file);
  const TrainRun again = run_train_job(f.request, resume);
  CHECK(again.finished_before);
  CHECK(f.written.empty());
  CHECK(again.json == Json::parse(stored));
  CHECK(again.document.result.steps == r.steps);
  CHECK(test::read_file(run.document.results_file) == stored);
  REQUIRE(notes.size() == 1);
  CHECK(notes[0] == "the run in " + (f.dir / "out").string() + " finished already (" + std::to_string(r.steps) +
                        " of " + std::to_string(r.steps) + " steps); nothing to do, its results are kept");
}

TEST_CASE("the files a run writes are checked before the first step, named as the caller spells them") {
  Fixture f;
  std::ofstream(*f.request.plot) << "kept";
  CHECK_THROWS_WITH_AS(run_train_job(f.request, train::RunOptions{}),
                       ("--plot: " + *f.request.plot + " exists; no").c_str(), InputError);
  CHECK(test::read_file(*f.request.plot) == "kept");
  CHECK_FALSE(fs::exists(f.dir / "out"));  // no output folder made (nor its lock file) for a refused run
  const auto kept_plot = f.request.plot;
  f.request.plot = (f.dir / "missing" / "curve.svg").string();  // a folder this run does not make
  CHECK_THROWS_WITH_AS(run_train_job(f.request, train::RunOptions{}), doctest::Contains("does not exist"), InputError);
  CHECK_FALSE(fs::exists(f.dir / "out"));
  f.request.plot = kept_plot;
  f.request.curve = f.request.plot = (f.dir / "same.csv").string();
  CHECK_THROWS_WITH_AS(run_train_job(f.request, train::RunOptions{}),
                       ("--plot: '" + *f.request.plot + "' is also the --curve file; name a file of its own").c_str(),
                       InputError);
  CHECK_FALSE(fs::exists(f.dir / "out" / "checkpoint.bin"));
}

TEST_CASE("a resumed run replaces the curve and figure its interrupted session wrote, and no file edited since") {
  Fixture f;
  f.request.curve = (f.dir / "curve.csv").string();
  train::RunOptions first;
  first.stop_after_steps = 3;
  const TrainRun stopped = run_train_job(f.request, first);
  REQUIRE(stopped.document.result.interrupted);
  const std::string curve_then = test::read_file(*f.request.curve);
  // Unchanged since: the run's own, replaced without the caller's permission to replace files.
  train::RunOptions resume;
  resume.resume = true;
  const TrainRun resumed = run_train_job(f.request, resume);
  CHECK_FALSE(resumed.document.result.interrupted);
  CHECK(test::read_file(*f.request.curve) == train::curve_csv(resumed.document.result.curve));
  CHECK(test::read_file(*f.request.curve) != curve_then);
  CHECK(test::read_file(*f.request.plot) == render_train_figure(resumed.document));  // the figure too
  // Edited since: the user's, kept, and the resume refused before its first step.
  Fixture g;
  g.request.curve = (g.dir / "curve.csv").string();
  REQUIRE(run_train_job(g.request, first).document.result.interrupted);
  std::ofstream(*g.request.curve, std::ios::app) << "# a note of mine\n";
  const std::string edited = test::read_file(*g.request.curve);
  CHECK_THROWS_WITH_AS(
      run_train_job(g.request, resume),
      ("--curve: " + *g.request.curve + " exists; it is not what this run wrote last (edited since?); no").c_str(),
      InputError);
  CHECK(test::read_file(*g.request.curve) == edited);
  // ... and so is a figure edited since, while an unchanged curve beside it is the run's own.
  Fixture h;
  REQUIRE(run_train_job(h.request, first).document.result.interrupted);
  std::ofstream(*h.request.plot, std::ios::app) << "<!-- mine -->";
  CHECK_THROWS_WITH_AS(
      run_train_job(h.request, resume),
      ("--plot: " + *h.request.plot + " exists; it is not what this run wrote last (edited since?); no").c_str(),
      InputError);
}

}  // namespace
}  // namespace isoflop::doc

// The bad-input suite: every command and file input handed what scripts and users really produce. The
// cases are data (cases.txt): each gives the exit status, a fragment of the one-line message, the files
// that must come out byte-identical, and the command line ({dir} is a folder of fixtures made below).
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "core/folder_lock.hpp"
#include "support/run_cli.hpp"
#include "support/temp_files.hpp"

namespace fs = std::filesystem;
using namespace isoflop::test;

namespace {

struct Case {
  int line = 0;
  int exit = 0;
  std::string fragment;
  std::vector<std::string> unchanged;
  std::string args;
};

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

// "exit | fragment | unchanged files | command line"; '#' starts a comment line.
std::vector<Case> load_cases(const std::string& path) {
  std::ifstream in(path);
  std::vector<Case> cases;
  std::string text;
  for (int line = 1; std::getline(in, text); ++line) {
    if (trim(text).empty() || trim(text)[0] == '#') continue;
    std::vector<std::string> parts;
    size_t start = 0;
    for (int i = 0; i < 3; ++i) {
      const size_t bar = text.find(" | ", start);
      REQUIRE_MESSAGE(bar != std::string::npos, path << ":" << line << ": expected 4 fields");
      parts.push_back(trim(text.substr(start, bar - start)));
      start = bar + 3;
    }
    Case c;
    c.line = line;
    c.exit = std::stoi(parts[0]);
    c.fragment = parts[1];
    std::istringstream files(parts[2]);
    for (std::string f; files >> f;)
      if (f != "-") c.unchanged.push_back(f);
    c.args = trim(text.substr(start));
    cases.push_back(c);
  }
  return cases;
}

void write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

const char* kAccelerator =
    "accelerators:\n  - name: t1\n    peak_16bit_tflops: 100\n    memory_gb: 80\n"
    "    memory_bandwidth_gb_per_s: 2000\n    tdp: 700 W\n    source: test\n";

// The fixtures every case may name.
void make_fixtures(const fs::path& d) {
  const std::string root = ISOFLOP_SOURCE_DIR;
  const std::string runs = read_file(root + "/share/examples/runs.csv");
  write(d / "runs.csv", runs);
  write(d / "curves.csv", read_file(root + "/share/examples/curves.csv"));
  std::string crlf;
  for (char ch : runs) crlf += ch == '\n' ? std::string("\r\n") : std::string(1, ch);
  write(d / "crlf.csv", crlf);
  write(d / "bom.csv", "\xEF\xBB\xBF" + runs);
  write(d / "empty.csv", "");
  write(d / "header.csv", "params,tokens,loss\n");
  std::string one_point = "params,tokens,loss\n";
  for (int k = 0; k < 8; ++k) one_point += "1e6,2e7,3.5\n";  // eight rows, one run
  write(d / "one-point.csv", one_point);
  write(d / "ragged.csv", "params,tokens,loss\n1e9,2e10\n");
  write(d / "text.csv", "params,tokens,loss\n1e9,abc,2.5\n");
  write(d / "negative.csv", "params,tokens,loss\n-1e9,2e10,2.5\n");
  write(d / "inf.csv", "params,tokens,loss\ninf,2e10,2.5\n");
  write(d / "semicolons.csv", "params;tokens;loss\n1e9;2e10;2.5\n");
  write(d / "suffix.csv", "params,tokens,loss\n100M,2e10,2.5\n");
  write(d / "nan.csv", "params,tokens,loss\n1e9,2e10,nan\n");
  write(d / "quote.csv", "params,tokens,loss\n\"1e9,2e10,2.5\n");
  write(d / "dupcol.csv", "params,params,loss\n1e9,2e10,2.5\n");
  write(d / "flops-disagree.csv", "run,params,tokens,flops,loss\nr0,1e8,2e9,1e30,3.1\n");
  write(d / "duprun.csv", "run,params,tokens,flops,loss\nr0,1e8,2e9,1.2e18,3.1\nr0,1e8,2e9,1.2e18,9.99\n");
  write(d / "both-empty.csv", "run,params,tokens,flops,loss\nr0,1e8,,,3.1\n");
  write(d / "exists.svg", "keep me\n");
  write(d / "exists.yaml", "keep me\n");
  write(d / "laws" / "old.yaml", "keep me\n");
  fs::create_directories(d / "folder");
  // Sweep folders for validate report: a truncated sweep.json, and a document of another kind in its place.
  write(d / "sweep-corrupt" / "sweep.json", "{\"schema\": \"isoflop/sweep/v2\", \"origin\": ");
  write(d / "sweep-kind" / "sweep.json", "{\"schema\": \"isoflop/fit/v2\"}\n");
  fs::create_symlink(d / "runs.csv", d / "link-to-runs.svg");
  fs::create_symlink(d / "exists.svg", d / "link-to-exists.svg");
  fs::create_symlink(d / "nowhere.svg", d / "dangling.svg");
  fs::create_hard_link(d / "runs.csv", d / "hardlink.csv");
  REQUIRE(::mkfifo((d / "fifo").c_str(), 0600) == 0);
  fs::create_directories(d / "empty-catalog");
  write(d / "job.yaml",
        "model: {layers: 1, d_model: 16, heads: 2, seq: 16, vocab: 32}\n"
        "train: {tokens: 4k, batch: 2, lr: 1e-3}\ndata: {source: markov}\noutput: out\n");
  const std::map<std::string, std::string> jobs = {
      {"job-dup.yaml",
       "model:\n  layers: 1\n  layers: 2\n  d_model: 16\n  heads: 2\n  seq: 16\n  vocab: 32\n"
       "train: {tokens: 4k, batch: 2, lr: 1e-3}\ndata: {source: markov}\n"},
      {"job-dupsec.yaml",
       "model: {layers: 1, d_model: 16, heads: 2, seq: 16, vocab: 32}\n"
       "train: {tokens: 4k, batch: 2, lr: 1e-3}\ndata: {source: markov}\n"
       "train: {tokens: 8k, batch: 2, lr: 1e-3}\n"},
      {"job-empty.yaml", ""},
      {"job-list.yaml", "- a\n- b\n"},
      {"job-syntax.yaml", "model: {layers: 1\n"},
      {"job-order.yaml",
       "model: {layers: 1, d_model: 16, heads: 2, seq: 16, vocab: 32}\n"
       "train: {tokens: 4k, batch: 2, lr: 1e-3}\ndata: {source: markov, order: 1e12}\n"},
      {"job-lr.yaml",
       "model: {layers: 1, d_model: 16, heads: 2, seq: 16, vocab: 32}\n"
       "train: {tokens: 4k, batch: 2, lr: .nan}\ndata: {source: markov}\n"},
      {"job-layers.yaml",
       "model: {layers: [1, 2], d_model: 16, heads: 2, seq: 16, vocab: 32}\n"
       "train: {tokens: 4k, batch: 2, lr: 1e-3}\ndata: {source: markov}\n"},
      {"job-heads.yaml",
       "model: {layers: 1, d_model: 16, heads: 1e12, seq: 16, vocab: 32}\n"
       "train: {tokens: 4k, batch: 2, lr: 1e-3}\ndata: {source: markov}\n"},
      {"job-unknown.yaml",
       "model: {layers: 1, d_model: 16, heads: 2, seq: 16, vocab: 32, laeyrs: 3}\n"
       "train: {tokens: 4k, batch: 2, lr: 1e-3}\ndata: {source: markov}\n"},
      {"job-quanta-alpha.yaml",
       "model: {layers: 1, d_model: 16, heads: 2, seq: 16, vocab: 32}\n"
       "train: {tokens: 4k, batch: 2, lr: 1e-3}\ndata: {source: quanta, alpha: -1}\n"},
      {"job-quanta-segment.yaml",
       "model: {layers: 1, d_model: 16, heads: 2, seq: 16, vocab: 32}\n"
       "train: {tokens: 4k, batch: 2, lr: 1e-3}\ndata: {source: quanta, segment: 0.5}\n"},
      {"job-quanta-vocab.yaml",
       "model: {layers: 1, d_model: 16, heads: 2, seq: 16, vocab: 2}\n"
       "train: {tokens: 4k, batch: 2, lr: 1e-3}\ndata: {source: quanta}\n"},
      {"job-quanta-branching.yaml",
       "model: {layers: 1, d_model: 16, heads: 2, seq: 16, vocab: 32}\n"
       "train: {tokens: 4k, batch: 2, lr: 1e-3}\ndata: {source: quanta, branching: 40}\n"},
      {"job-quanta-skills.yaml",
       "model: {layers: 1, d_model: 16, heads: 2, seq: 16, vocab: 32}\n"
       "train: {tokens: 4k, batch: 2, lr: 1e-3}\ndata: {source: quanta, skills: 0}\n"},
      {"job-quanta-split.yaml",
       "model: {layers: 1, d_model: 16, heads: 2, seq: 16, vocab: 32}\n"
       "train: {tokens: 4k, batch: 2, lr: 1e-3}\ndata: {source: quanta, val_fraction: 0.2}\n"},
      {"job-quanta-val.yaml",
       "model: {layers: 1, d_model: 16, heads: 2, seq: 16, vocab: 32}\n"
       "train: {tokens: 4k, batch: 2, lr: 1e-3}\ndata: {source: quanta, val_tokens: 20}\n"},
      {"job-val-all.yaml",
       "model: {layers: 1, d_model: 16, heads: 2, seq: 16, vocab: 32}\n"
       "train: {tokens: 4k, batch: 2, lr: 1e-3}\ndata: {source: markov, val_fraction: 1}\n"},
      {"job-val-none.yaml",
       "model: {layers: 1, d_model: 16, heads: 2, seq: 16, vocab: 32}\n"
       "train: {tokens: 4k, batch: 2, lr: 1e-3}\ndata: {source: markov, val_fraction: 0}\n"},
  };
  for (const auto& [name, text] : jobs) write(d / name, text);
  // Text data that is no file: a folder, a FIFO (open would block) and a device that never ends.
  for (const auto& [name, path] :
       std::map<std::string, std::string>{{"job-text-folder.yaml", (d / "empty-catalog").string()},
                                          {"job-text-fifo.yaml", (d / "fifo").string()},
                                          {"job-text-zero.yaml", "/dev/zero"}})
    write(d / name,
          "model: {layers: 1, d_model: 16, heads: 2, seq: 16, vocab: 256}\n"
          "train: {tokens: 4k, batch: 2, lr: 1e-3}\ndata: {source: text, path: '" +
              path + "'}\n");
  // Training runs: a job too large for any machine, a folder another trainer holds (this process), a finished
  // run and jobs that resume it changed, a checkpoint named like a temporary file.
  const std::string tiny = "model: {layers: 1, d_model: 16, heads: 2, seq: 16, vocab: 32}\n";
  const std::string schedule = "train: {tokens: 4k, batch: 2, lr: 1e-3}\ndata: {source: markov}\n";
  write(d / "job-huge.yaml", "model: {layers: 100000, d_model: 1024, heads: 2, seq: 16, vocab: 32}\n" + schedule);
  write(d / "job-locked.yaml", tiny + schedule + "output: locked\n");
  write(d / "job-done.yaml", tiny + schedule + "threads: 1\noutput: done\n");
  write(d / "job-done-lr.yaml", tiny + "train: {tokens: 4k, batch: 2, lr: 2e-3}\ndata: {source: markov}\noutput: done\n");
  write(d / "job-done-layers.yaml", "model: {layers: 2, d_model: 16, heads: 2, seq: 16, vocab: 32}\n" + schedule +
                                        "output: done\n");
  write(d / "job-tmpname.yaml", tiny + schedule + "checkpoint: {path: .c.bin.isoflop-tmp.1.0}\n");
  // check: proposals and policies.
  const std::string proposal = "name: p\narch: chinchilla-70b\ntokens: 1.4T\ncluster:\n  gpu: a100-sxm4-80gb\n  gpus: 1024\n";
  write(d / "proposal.yaml", proposal);
  write(d / "proposal-type.yaml", "name: p\narch: chinchilla-70b\ntokens: [1]\ncluster: {gpu: a100-sxm4-80gb, gpus: 8}\n");
  write(d / "proposal-key.yaml", proposal + "layout:\n  tp: 8\n  zeroo: 1\n");
  write(d / "proposal-dup.yaml", proposal + "tokens: 2T\n");
  write(d / "proposal-huge.yaml",
        "name: p\narch: chinchilla-70b\ntokens: 1e30\ncluster: {gpu: a100-sxm4-80gb, gpus: 8}\n");
  write(d / "proposal-tp.yaml", proposal + "layout:\n  tp: 4294967297\n");
  write(d / "proposal-zero.yaml", proposal + "layout:\n  zero: 9\n");
  write(d / "proposal-gpu.yaml", "name: p\narch: chinchilla-70b\ntokens: 1.4T\ncluster:\n  gpu: a100-80\n  gpus: 8\n");
  write(d / "policy-ok.yaml", "rules:\n  days: {max: 90}\n");
  write(d / "policy-noloss.yaml", "rules:\n  loss_gap_vs_optimal: {max_percent: 5, law: chinchilla-approach1}\n");
  write(d / "policy-unknown.yaml", "rules:\n  days: {max: 90}\n  loss_gap_vs_optimum: {max_percent: 1}\n");
  write(d / "policy-type.yaml", "rules:\n  days:\n    max: many\n");
  write(d / "policy-dup.yaml", "rules:\n  days: {max: 90}\n  days: {max: 30}\n");
  write(d / "policy-negative.yaml", "rules:\n  co2e_t:\n    max: -5\n");
  write(d / "policy-crossed.yaml", "rules:\n  tokens_per_param: {min: 300, max: 10}\n");
  write(d / "policy-unbounded.yaml", "rules:\n  days: {}\n");
  write(d / "policy-setting.yaml", "rules:\n  mfu: {minn: 0.3}\n");
  write(d / "policy-severity.yaml", "rules:\n  mfu: {min: 0.3, severity: fatal}\n");
  fs::create_directories(d / "locked");
  static std::optional<isoflop::FolderLock> held;  // for the whole suite, as a running trainer would
  held.emplace((d / "locked").string(), "output folder");
  REQUIRE(run_cli("train " + (d / "job-done.yaml").string() + " -q").status == 0);
  const std::string acc = kAccelerator;
  const std::map<std::string, std::string> overlays = {
      {"ov-dup", acc + "    memory_gb: 40\n"},
      // So slow that a plausible utilisation's run time is past a double (the overflow guards stay reachable).
      {"ov-slow",
       "accelerators:\n  - name: t1\n    peak_16bit_tflops: 1e-298\n    memory_gb: 80\n"
       "    memory_bandwidth_gb_per_s: 2000\n    tdp: 700 W\n    source: test\n"},
      {"ov-dupsec", acc + acc},
      {"ov-gpn",
       "nodes:\n  - name: n1\n    accelerator: h100-sxm5-80gb\n    gpus_per_node: 1e10\n"
       "    max_power: 10 kW\n    intra_node_bandwidth_gb_per_s: 900\n"
       "    inter_node_bandwidth_gb_per_s: 400\n    source: test\n"},
      {"ov-nodes", "clusters:\n  - name: c1\n    node: dgx-h100\n    nodes: 99999999999\n    source: test\n"},
      {"ov-year", "grids:\n  - name: g1\n    intensity: 400 g/kWh\n    year: 1e12\n    source: test\n"},
      {"ov-inf",
       "accelerators:\n  - name: t1\n    peak_16bit_tflops: .inf\n    memory_gb: 80\n"
       "    memory_bandwidth_gb_per_s: 2000\n    tdp: 700 W\n    source: test\n"},
      {"ov-infword",
       "accelerators:\n  - name: t1\n    peak_16bit_tflops: inf\n    memory_gb: 80\n"
       "    memory_bandwidth_gb_per_s: 2000\n    tdp: 700 W\n    source: test\n"},
      {"ov-nan",
       "accelerators:\n  - name: t1\n    peak_16bit_tflops: 100\n    memory_gb: 80\n"
       "    memory_bandwidth_gb_per_s: 2000\n    tdp: 700 W\n    measured_power: nan\n    source: test\n"},
      {"ov-nonscalar",
       "accelerators:\n  - name: t1\n    peak_16bit_tflops: [1, 2]\n    memory_gb: 80\n"
       "    memory_bandwidth_gb_per_s: 2000\n    tdp: 700 W\n    source: test\n"},
      {"ov-namelist", "accelerators:\n  - name: {a: 1}\n    peak_16bit_tflops: 1\n"},
      {"ov-keymap", "accelerators:\n  - ? [a, b]\n    : 1\n"},
      {"ov-seckey", "? [a]\n: 1\n"},
      {"ov-toplist", "- a\n- b\n"},
      {"ov-section", "acclerators: []\n"},
      {"ov-sectionmap", "accelerators: {name: x}\n"},
      {"ov-syntax", "accelerators: [\n"},
      {"ov-unknown", acc + "    colour: red\n"},
      {"ov-negative",
       "accelerators:\n  - name: t1\n    peak_16bit_tflops: -1\n    memory_gb: 80\n"
       "    memory_bandwidth_gb_per_s: 2000\n    tdp: 700 W\n    source: test\n"},
      {"ov-ref",
       "nodes:\n  - name: n1\n    accelerator: nope\n    gpus_per_node: 8\n    max_power: 10 kW\n"
       "    intra_node_bandwidth_gb_per_s: 900\n    inter_node_bandwidth_gb_per_s: 400\n    source: test\n"},
      {"ov-fraction",
       "nodes:\n  - name: n1\n    accelerator: h100-sxm5-80gb\n    gpus_per_node: 2.5\n"
       "    max_power: 10 kW\n    intra_node_bandwidth_gb_per_s: 900\n"
       "    inter_node_bandwidth_gb_per_s: 400\n    source: test\n"},
      {"ov-power", acc.substr(0, acc.find("    tdp")) + "    tdp: lots\n    source: test\n"},
      {"ov-overhead", acc.substr(0, acc.find("    source")) +
                          "    calibration:\n      gemm_efficiency_max: 0.5\n      gemm_half_width: 100\n"
                          "      comm_efficiency: 0.8\n      layer_overhead_us: -5\n      source: test\n"
                          "    source: test\n"},
      {"ov-binary", std::string("accelerators:\n  - name: \x01\x02\xff\n") + '\0'},  // ends in a NUL byte
  };
  for (const auto& [name, text] : overlays) write(d / name / "catalog.yaml", text);
  write(d / "ov-dupsec" / "catalog.yaml", acc + "nodes: []\naccelerators: []\n");
  // Above the overlay limit: ~9 MiB of entries, refused before parsing (loading it took > 3 GB before).
  std::string big = "accelerators:\n";
  for (int i = 0; big.size() < (9u << 20); ++i)
    big += "  - name: acc-" + std::to_string(i) +
           "\n    peak_16bit_tflops: 100\n    memory_gb: 80\n    memory_bandwidth_gb_per_s: 2000\n"
           "    tdp: 700 W\n    source: a generated overlay entry for the scale test of the catalog loader\n";
  write(d / "ov-big" / "catalog.yaml", big);
  write(d / "arch-wide.yaml", "layers: 2\nd_model: 4000000000000000000\nheads: 1\nvocab: 32\n");
  // Measured runs whose degrees multiply past an int, or whose batch is past the sanity limit.
  const std::string run = "runs:\n  - name: wide\n    gpu: a100-sxm4-80gb\n    node: dgx-a100\n    gpus: 32\n"
                          "    arch: {layers: 24, d_model: 2304, heads: 24, vocab: 51200, seq: 2048}\n";
  const std::string measured = "    measured: {hardware_tflops_per_gpu: 137}\n    source: a test\n";
  write(d / "runs-wide.yaml", run + "    global_batch: 512\n    layout: {tp: 1024, pp: 4096, cp: 1024}\n" + measured);
  write(d / "runs-batch.yaml", run + "    global_batch: 9000000000000000000\n    layout: {tp: 1}\n" + measured);
  // YAML aliases: one inside itself (an endless graph) and aliases of aliases (9^8 values from 8 lines).
  write(d / "alias-loop.yaml", "a: &a [*a]\n");
  write(d / "alias-map.yaml", "model: &a {x: *a}\n");            // a NeMo config inside itself
  write(d / "alias-branches.yaml", "a: &a [*a, *a, *a, *a]\n");  // a loop that grows faster than it is walked
  std::string bomb = "a: &a [x,x,x,x,x,x,x,x,x]\n";
  for (char c = 'b'; c <= 'h'; ++c) {
    const std::string prev(1, static_cast<char>(c - 1)), alias = "*" + prev;
    bomb += std::string(1, c) + (c < 'h' ? ": &" + std::string(1, c) + " [" : ": [");
    for (int k = 0; k < 9; ++k) bomb += alias + (k < 8 ? "," : "]\n");
  }
  write(d / "alias-bomb.yaml", bomb);
  write(d / "deep.yaml", "schema: " + std::string(100, '[') + std::string(100, ']') + "\n");
  write(d / "arch-vast.yaml", "layers: 1000000000\nd_model: 1000000000000\nheads: 1\nvocab: 32\n");
  write(d / "arch-dup.yaml", "layers: 2\nlayers: 3\nd_model: 64\n");
  write(d / "doc-dup.yaml", "schema: isoflop/plan/v2\nschema: isoflop/cost/v2\n");
  write(d / "not-a-doc.json", "{\"hello\": 1}\n");
  write(d / "dup-top.json", "{\"schema\": \"isoflop/arch/v2\", \"schema\": \"isoflop/plan/v2\"}\n");
  write(d / "dup-arch.json", "{\"schema\": \"isoflop/arch/v2\", \"architecture\": {\"layers\": 2, \"layers\": 3}}\n");
  write(d / "dup-deep.json", "{\"schema\": \"isoflop/layout/v2\", \"layouts\": [{\"tp\": 1}, {\"tp\": 1, \"tp\": 2}]}\n");
  write(d / "dup-plain.json", "{\"layers\": 2, \"d_model\": 64, \"layers\": 3}\n");
  write(d / "truncated.json", "{\"schema\": \"isoflop/plan/v2\", \"inputs\": {");
  write(d / "array.json", "[1, 2, 3]\n");
  write(d / "list.yaml", "- arch: llama2-7b\n  tokens: 2T\n");  // a YAML list where a mapping is a document
  write(d / "wrong-kind.json", "{\"schema\": \"isoflop/nothing/v2\"}\n");
  write(d / "old.json", "{\"schema\": \"isoflop/plan/v1\"}\n");
}

std::string expand(std::string args, const std::string& dir) {
  for (size_t at; (at = args.find("{dir}")) != std::string::npos;) args.replace(at, 5, dir);
  return args;
}

}  // namespace

TEST_CASE("bad inputs: every case exits as its line says, with one message, and leaves the user's files") {
  const fs::path dir = isoflop::test::fresh_temp_dir("badinput", "suite");
  make_fixtures(dir);
  const auto cases = load_cases(std::string(ISOFLOP_SOURCE_DIR) + "/tests/badinput/cases.txt");
  CHECK(cases.size() >= 150);
  for (const Case& c : cases) {
    const std::string args = expand(c.args, dir.string());
    std::map<std::string, std::string> before;
    for (const auto& f : c.unchanged) before[f] = read_file(dir / f);
    const auto r = run_cli(args);
    INFO("cases.txt:" << c.line << ": isoflop " << args << "\nstderr: " << r.err);
    CHECK(r.status == c.exit);
    CHECK(r.err.find(c.fragment) != std::string::npos);
    if (c.exit == 2 || c.exit == 3) {
      CHECK(r.err.find("internal error") == std::string::npos);
      CHECK(r.err.find("isoflop: error: ") != std::string::npos);
      CHECK(r.err.find("isoflop: error: ", r.err.find("isoflop: error: ") + 1) == std::string::npos);
    }
    for (const auto& [f, text] : before) {
      CHECK_MESSAGE(!text.empty(), f << " is an empty fixture");
      CHECK_MESSAGE(read_file(dir / f) == text, f << " changed");
    }
    for (const auto& entry : fs::recursive_directory_iterator(dir))
      CHECK_MESSAGE(entry.path().filename().string().find(".isoflop-tmp.") == std::string::npos,
                    entry.path() << " left behind");
  }
}

namespace {
// Runs the binary through /bin/sh with `redirects` of its own (stdout closed, /dev/full, a pipe); returns the
// exit status and what it wrote on stderr (collected in `err`).
int run_raw(const std::string& args, const fs::path& err) {
  const std::string command = "NO_COLOR=1 " + std::string(ISOFLOP_BINARY) + " " + args + " 2>" + err.string();
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
}  // namespace

TEST_CASE("results that cannot be written are a failure (exit 3, one line), a closed pipe is quiet") {
  const fs::path dir = isoflop::test::fresh_temp_dir("badinput", "stdout");
  const fs::path err = dir / "err.txt";
  CHECK(run_raw("optimal --flops 5.76e23 >&-", err) == 3);
  CHECK(read_file(err) == "isoflop: error: cannot write results to standard output: Bad file descriptor\n");
  CHECK(run_raw("optimal --flops 5.76e23 -o json >/dev/full", err) == 3);
  CHECK(read_file(err) == "isoflop: error: cannot write results to standard output: No space left on device\n");
  CHECK(run_raw("catalog --help >/dev/full", err) == 3);
  CHECK(read_file(err).find("No space left on device") != std::string::npos);
  // A result longer than the stream's buffer fails while it is written, not when it is flushed: the same reason.
  CHECK(run_raw("catalog >/dev/full", err) == 3);
  CHECK(read_file(err) == "isoflop: error: cannot write results to standard output: No space left on device\n");
  // Piped into a reader that stops early: no message (as the coreutils do); the pipeline's status is head's.
  CHECK(run_raw("catalog -o json | head -c 10 >/dev/null", err) == 0);
  CHECK(read_file(err).empty());
  // A closed stdout never lets an output file take descriptor 1: the figure holds only the figure.
  CHECK(run_raw("fit " + std::string(ISOFLOP_SOURCE_DIR) + "/share/examples/runs.csv -q --plot " +
                    (dir / "fig.svg").string() + " >&-",
                err) == 3);
  CHECK(read_file(dir / "fig.svg").rfind("<?xml", 0) == 0);
  CHECK(read_file(dir / "fig.svg").find("\"schema\"") == std::string::npos);
}

TEST_CASE("a CSV with a byte-order mark or CRLF line ends fits exactly like the plain file") {
  const fs::path dir = isoflop::test::fresh_temp_dir("badinput", "csv");
  const std::string runs = read_file(std::string(ISOFLOP_SOURCE_DIR) + "/share/examples/runs.csv");
  std::string crlf;
  for (char ch : runs) crlf += ch == '\n' ? std::string("\r\n") : std::string(1, ch);
  write(dir / "plain.csv", runs);
  write(dir / "crlf.csv", crlf);
  write(dir / "bom.csv", "\xEF\xBB\xBF" + crlf);
  auto fit = [&](const std::string& name) {
    auto r = run_cli("fit " + (dir / name).string() + " -o csv -q");
    CHECK(r.status == 0);
    std::string out = r.out;
    for (size_t at; (at = out.find(name)) != std::string::npos;) out.replace(at, name.size(), "X");
    return out;
  };
  const std::string plain = fit("plain.csv");
  CHECK(plain.size() > 20);
  CHECK(fit("crlf.csv") == plain);
  CHECK(fit("bom.csv") == plain);
}

TEST_CASE("an overlay just under the limit loads in linear time, one over it is refused before parsing") {
  const fs::path dir = isoflop::test::fresh_temp_dir("badinput", "overlay");
  std::string big = "accelerators:\n";
  int count = 0;
  for (; big.size() < (1u << 20); ++count)
    big += "  - name: acc-" + std::to_string(count) +
           "\n    peak_16bit_tflops: 100\n    memory_gb: 80\n    memory_bandwidth_gb_per_s: 2000\n"
           "    tdp: 700 W\n    source: generated\n";
  write(dir / "ok" / "big.yaml", big);
  auto r = run_cli("catalog --kind hardware -o json --catalog " + (dir / "ok").string());
  CHECK(r.status == 0);
  CHECK(r.out.find("\"acc-" + std::to_string(count - 1) + "\"") != std::string::npos);
  std::string huge;
  while (huge.size() < (50u << 20)) huge += big;  // the 50 MB overlay of the report
  write(dir / "huge" / "big.yaml", huge);
  r = run_cli("optimal --flops 1e21 --catalog " + (dir / "huge").string());
  CHECK(r.status == 2);
  CHECK(r.err.find("at most 8 MiB of catalog files are read") != std::string::npos);
}

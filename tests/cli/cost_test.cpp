// End-to-end tests of `isoflop cost`: the 420 x DGX A100 month, Patterson's GPT-3 and T5 rows, Narayanan eq. 4,
// the three energy methods, the inverse (affordable FLOPs), embodied carbon, the 4Ms what-if, bad input.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>

#include "cli/cli_json.hpp"
#include "support/run_cli.hpp"
#include "support/temp_files.hpp"

using namespace isoflop::test;

namespace {
// A number of the run-cost section ("cost": time, energy, CO2e, money ...).
double field(const std::string& out, const char* key) { return nlohmann::json::parse(out)["cost"][key].get<double>(); }
}  // namespace

TEST_CASE("cost: 420 DGX A100 at 6.5 kW for 720 h is 2.73 MW and 1,965.6 MWh") {
  const auto r = run_cli("cost --node dgx-a100 --nodes 420 --time 720h -o json");
  REQUIRE(r.status == 0);
  CHECK(nlohmann::json::parse(r.out)["schema"] == "isoflop/cost/v2");
  CHECK(std::fabs(field(r.out, "power_w") - 2.73e6) < 1e-6);
  CHECK(std::fabs(field(r.out, "it_energy_kwh") - 1965.6e3) < 1e-6);
  CHECK(std::fabs(field(r.out, "gpu_hours") - 3360 * 720) < 1e-6);
  const auto t = run_cli("cost --node dgx-a100 --nodes 420 --time 720h");
  CHECK(t.out.find("2.73 MW") != std::string::npos);
  CHECK(t.out.find("1.966 GWh at the machines") != std::string::npos);
}

TEST_CASE("cost: Patterson et al. 2021 GPT-3 from its published inputs") {
  const auto r = run_cli(
      "cost --flops 3.14e23 --tflops-per-gpu 24.6 --gpu v100-sxm2-32gb --gpus 10000 --power-w 330 --pue 1.1 --grid us -o json");
  REQUIRE(r.status == 0);
  CHECK(std::fabs(field(r.out, "days") / 14.77 - 1) < 0.002);
  CHECK(std::fabs(field(r.out, "energy_kwh") / 1287e3 - 1) < 0.002);
  CHECK(std::fabs(field(r.out, "co2e_kg") / 552.1e3 - 1) < 0.002);
  // 14.8 days measured: 1,289.4 MWh and 553.1 t.
  const auto m = run_cli("cost --time 14.8d --gpu v100-sxm2-32gb --gpus 10000 --power-w 330 --pue 1.1 --grid us -o json");
  REQUIRE(m.status == 0);
  CHECK(std::fabs(field(m.out, "energy_kwh") / 1289.4e3 - 1) < 0.001);
  CHECK(std::fabs(field(m.out, "co2e_kg") / 553.1e3 - 1) < 0.001);
}

TEST_CASE("cost: Narayanan eq. 4, 175B on 300B tokens (8TP FLOPs), 1024 GPUs at 140 TFLOP/s: 33.9 days") {
  const auto r = run_cli("cost --flops 4.2e23 --tflops-per-gpu 140 --gpu a100-sxm4-80gb --gpus 1024 -o json");
  REQUIRE(r.status == 0);
  CHECK(std::fabs(field(r.out, "days") / 33.9 - 1) < 0.003);
  const auto t = run_cli("cost --flops 3.6e24 --tflops-per-gpu 163 --gpu a100-sxm4-80gb --gpus 3072 -o json");
  REQUIRE(t.status == 0);
  CHECK(std::fabs(field(t.out, "days") / 83.2 - 1) < 0.003);
}

TEST_CASE("cost: Patterson et al. 2021 T5 on TPU v3, an accelerator without a catalog node") {
  const auto r = run_cli("cost --gpu tpu-v3 --gpus 512 --time 20d --power-w 310 --pue 1.12 --grid google-taiwan-2019 -o json");
  REQUIRE(r.status == 0);
  CHECK(std::fabs(field(r.out, "energy_kwh") / 85.7e3 - 1) < 0.01);
  CHECK(std::fabs(field(r.out, "co2e_kg") / 46.7e3 - 1) < 0.01);
  const auto doc = nlohmann::json::parse(r.out)["cost"];
  CHECK(doc["energy_methods"][0]["available"] == false);  // no node power
  CHECK(doc["energy_methods"][0]["power_w"].is_null());
  CHECK(doc["energy_method"] == "measured");
  CHECK(nlohmann::json::parse(r.out)["inputs"]["node"].is_null());
}

TEST_CASE("cost: all three energy methods with their assumptions, --energy-method chooses") {
  const auto r = run_cli("cost --node dgx-a100 --nodes 420 --time 720h -o json");
  REQUIRE(r.status == 0);
  const auto doc = nlohmann::json::parse(r.out)["cost"];
  REQUIRE(doc["energy_methods"].size() == 3);
  int chosen = 0;
  for (const auto& m : doc["energy_methods"]) {
    CHECK(!m["assumptions"].get<std::string>().empty());
    chosen += m["chosen"].get<bool>();
  }
  CHECK(chosen == 1);
  CHECK(doc["energy_methods"][0]["method"] == "node");
  CHECK(doc["energy_methods"][0]["chosen"] == true);
  CHECK(doc["energy_methods"][0]["assumptions"].get<std::string>().find("6.5 kW") != std::string::npos);
  // TDP method: (400 W × 1 + 237 W host) × 3,360 = 2.14 MW.
  CHECK(std::fabs(doc["energy_methods"][2]["power_w"].get<double>() - 3360 * 637) < 1e-6);
  const auto t = run_cli("cost --node dgx-a100 --nodes 420 --time 720h --energy-method tdp --tdp-utilisation 0.8 -o json");
  REQUIRE(t.status == 0);
  CHECK(std::fabs(field(t.out, "power_w") - 3360 * (0.8 * 400 + 237)) < 1e-6);
  CHECK(nlohmann::json::parse(t.out)["cost"]["power_method"] == "TDP-based power");
  CHECK(nlohmann::json::parse(t.out)["cost"]["inputs"]["tdp_utilisation"] == 0.8);
  const auto h = run_cli("cost --node dgx-a100 --nodes 420 --time 720h");
  CHECK(h.out.find("node (used)") != std::string::npos);
  CHECK(h.out.find("237 W host overhead") != std::string::npos);
}

TEST_CASE("cost: the FLOPs a duration affords, and the tokens for a model size") {
  const auto r = run_cli("cost --gpus 3360 --gpu a100-sxm4-80gb --time 30d --mfu 0.4 -o json");
  REQUIRE(r.status == 0);
  const double c = 3360 * 312e12 * 0.4 * 30 * 86400.0;
  CHECK(std::fabs(nlohmann::json::parse(r.out)["inputs"]["affordable_flops"].get<double>() / c - 1) < 1e-12);
  CHECK(nlohmann::json::parse(r.out)["cost"]["inputs"]["mfu"] == 0.4);
  CHECK(std::fabs(field(r.out, "days") - 30) < 1e-9);
  const auto n = run_cli("cost --gpus 3360 --gpu a100-sxm4-80gb --time 30d --mfu 0.4 --params 70B -o json");
  REQUIRE(n.status == 0);
  CHECK(std::fabs(nlohmann::json::parse(n.out)["inputs"]["affordable_tokens"].get<double>() / (c / (6 * 70e9)) - 1) < 1e-12);
  // A measured run without a utilisation: the work is not known, nothing is "affordable".
  const auto m = run_cli("cost --gpus 3360 --gpu a100-sxm4-80gb --time 30d -o json");
  REQUIRE(m.status == 0);
  CHECK(nlohmann::json::parse(m.out)["inputs"]["affordable_flops"].is_null());
  // ... nor its FLOPs and utilisation, which are null (not the full peak they are costed at), and read back so.
  const auto measured = nlohmann::json::parse(m.out);
  CHECK(measured["cost"]["inputs"]["flops"].is_null());
  CHECK(measured["cost"]["inputs"]["mfu"].is_null());
  const std::string saved = (isoflop::test::fresh_temp_dir("cost", "time-only") / "cost.json").string();
  std::ofstream(saved) << m.out;
  const auto recosted = run_cli("cost --from " + saved + " --pue 1.2 -o json");
  REQUIRE(recosted.status == 0);
  const auto again = nlohmann::json::parse(recosted.out)["cost"];
  CHECK(again["inputs"]["flops"].is_null());
  CHECK(again["inputs"]["mfu"].is_null());
  CHECK(again["days"].get<double>() == doctest::Approx(30).epsilon(1e-12));
  CHECK(again["energy_kwh"].get<double>() ==
        doctest::Approx(measured["cost"]["it_energy_kwh"].get<double>() * 1.2).epsilon(1e-12));
  // One of the two given and the other null is a damaged document, not a utilisation of 1.
  auto mixed = measured;
  mixed["cost"]["inputs"]["mfu"] = 0.4;
  std::ofstream(saved) << mixed.dump();
  const auto refused = run_cli("cost --from " + saved);
  CHECK(refused.status == 2);
  CHECK(refused.err.find("cost.inputs.mfu: must be null, as flops and mfu are together") != std::string::npos);
  const auto h = run_cli("cost --gpus 3360 --gpu a100-sxm4-80gb --time 30d --mfu 0.4");
  CHECK(h.out.find("affordable") != std::string::npos);
}

TEST_CASE("cost --embodied: LLMCarbon share of the accelerators' manufacturing carbon") {
  const auto r = run_cli("cost --gpus 3360 --gpu a100-sxm4-80gb --time 365d --embodied -o json");
  REQUIRE(r.status == 0);
  const auto doc = nlohmann::json::parse(r.out)["cost"];
  // A100 80GB: 8.26 cm² × 1.6 kg/cm² + 80 GB × 0.4 kg/GB = 45.216 kg; a year is a fifth of its life.
  CHECK(std::fabs(doc["inputs"]["embodied_kg_per_gpu"].get<double>() - 45.216) < 1e-9);
  CHECK(std::fabs(doc["inputs"]["embodied_lifetime_s"].get<double>() - 5 * 365 * 86400.0) < 1e-6);
  CHECK(std::fabs(doc["embodied"]["share"].get<double>() - 0.2) < 1e-12);
  CHECK(std::fabs(doc["embodied"]["co2e_kg"].get<double>() - 3360 * 45.216 * 0.2) < 1e-6);
  CHECK(std::fabs(doc["total_co2e_kg"].get<double>() - doc["co2e_kg"].get<double>() - 3360 * 45.216 * 0.2) < 1e-6);
  const auto without = run_cli("cost --gpus 3360 --gpu a100-sxm4-80gb --time 365d -o json");
  CHECK(nlohmann::json::parse(without.out)["cost"]["embodied"].is_null());
}

TEST_CASE("cost: a what-if lever shows the 4Ms table without --whatif, which alone shows it too") {
  const std::string base = "cost --gpu a100-sxm4-80gb --gpus 1024 --time 30d";
  CHECK(run_cli(base).out.find("4Ms what-if") == std::string::npos);
  CHECK(run_cli(base + " --whatif").out.find("4Ms what-if") != std::string::npos);
  const auto lever = run_cli(base + " --whatif-gpu h100-sxm5-80gb");
  REQUIRE(lever.status == 0);
  CHECK(lever.out.find("4Ms what-if") != std::string::npos);
  CHECK(lever.out.find("a100-sxm4-80gb -> h100-sxm5-80gb") != std::string::npos);
}

TEST_CASE("cost --whatif: the 4Ms rows, none above the baseline") {
  const auto r = run_cli("cost --params 70B --tokens 1.4T --gpu a100-sxm4-80gb --gpus 1024 --mfu 0.45 --pue industry-average "
                         "--price-per-gpu-hour 2 --price-per-kwh 0.1 --whatif -o json");
  REQUIRE(r.status == 0);
  const auto doc = nlohmann::json::parse(r.out)["cost"];
  const auto& rows = doc["whatif"];
  REQUIRE(rows.size() == 6);
  const char* levers[] = {"baseline", "model", "machine", "mechanization", "map", "all"};
  for (size_t i = 0; i < 6; ++i) {
    INFO(levers[i]);
    CHECK(rows[i]["lever"] == levers[i]);
    CHECK(rows[i]["energy_kwh"].get<double>() <= doc["energy_kwh"].get<double>() * (1 + 1e-12));
    CHECK(rows[i]["co2e_kg"].get<double>() <= doc["co2e_kg"].get<double>() * (1 + 1e-12));
    CHECK(rows[i]["cost_usd"].get<double>() <= doc["cost_usd"].get<double>() * (1 + 1e-12));
  }
  CHECK(std::fabs(rows[1]["energy_factor"].get<double>() - 3) < 1e-12);
  CHECK(std::fabs(rows[3]["energy_factor"].get<double>() - 1.58 / 1.10) < 1e-12);
  // Map: the cleanest of the stated cloud regions (Finland), beside Patterson's 5-10x.
  CHECK(rows[4]["change"].get<std::string>().find("gcp-europe-north1") != std::string::npos);
  CHECK(rows[4]["published_range"] == nlohmann::json::array({5.0, 10.0}));
  // A pinned machine that would be worse is not applied.
  const auto p = run_cli("cost --params 70B --tokens 1.4T --gpu h100-sxm5-80gb --gpus 1024 --mfu 0.45 --whatif-gpu p100-sxm2-16gb -o json");
  REQUIRE(p.status == 0);
  const auto pinned = nlohmann::json::parse(p.out)["cost"];
  const auto& machine = pinned["whatif"][2];
  CHECK(machine["applied"] == false);
  CHECK(machine["energy_factor"].get<double>() == 1);
  CHECK(machine["cost_usd"].is_null());  // unpriced: unknown, not 0
  CHECK(machine["cost_factor"].is_null());
  const auto h = run_cli("cost --params 70B --tokens 1.4T --gpu a100-sxm4-80gb --gpus 1024 --mfu 0.45 --whatif");
  CHECK(h.out.find("4Ms what-if") != std::string::npos);
  CHECK(h.out.find("mechanization") != std::string::npos);
}

TEST_CASE("cost bad input exits 2") {
  const std::string base = "cost --gpu a100-sxm4-80gb --gpus 64 ";
  check_bad_input(base, {"--flops 1e22", "--flops 1e22 --mfu 1.5", "--flops 1e22 --mfu 0", "--flops 1e22 --mfu 0.4 --pue 0.9",
                           "--flops 1e22 --mfu 0.4 --power-w -5", "--flops 1e22 --mfu 0.4 --grid atlantis",
                           "--flops 1e22 --params 7B --tokens 1T --mfu 0.4", "--params 7B --mfu 0.4",
                           "--flops 1e22 --mfu 0.4 --cfe 1.2", "--flops 1e22 --mfu 0.4 --gpu a100-sxm4-80g",
                           "--flops 1e22 --mfu 0.4 --time 30d", "--params 7B --tokens 1T --time 30d --mfu 0.4",
                           "--tokens 1T --mfu 0.4", "--flops 1e22 --mfu -0.4", "--flops 1e22 --tflops-per-gpu 400",
                           "--flops 1e22 --mfu 0.4 --power-w 0", "--flops 1e22 --mfu 0.4 --node-power-kw -6.5",
                           "--flops 1e22 --mfu 0.4 --pue 0.99", "--flops 1e22 --mfu 0.4 --grid -5g/kWh",
                           "--flops 1e22 --mfu 0.4 --energy-method nodes", "--flops 1e22 --mfu 0.4 --energy-method measured",
                           "--flops 1e22 --mfu 0.4 --tdp-utilisation 1.5", "--flops 1e22 --mfu 0.4 --host-overhead-w -1",
                           "--flops 1e22 --mfu 0.4 --whatif --whatif-gpu h100", "--flops 1e22 --mfu 0.4 --whatif-grid quebec",
                           "--flops 1e22 --mfu 0.4 --whatif-model-factor 0.5", "--flops 1e22 --mfu 0.4 --embodied-kg-per-gpu -3"});
}

TEST_CASE("cost bad cluster and embodied input exits 2") {
  check_bad_input("cost ", {"--flops 1e22 --mfu 0.4 --gpu mi300x --node dgx-a100 --nodes 2",  // node of another accelerator
                             "--time 30d --gpu tpu-v3 --nodes 4",                           // TPUs have no catalog node
                             "--time 30d --gpu tpu-v3 --gpus 512 --energy-method node",     // so no node power either
                             "--flops 1e22 --mfu 0.4 --gpu mi300x --gpus 8 --embodied",     // no embodied entry
                             "--flops 1e22 --mfu 0.4 --gpu a100-sxm4-80gb"});               // no count
}

TEST_CASE("cost: unknown names suggest the nearest") {
  check_refused("cost --gpu a100-sxm4-80g --gpus 8 --flops 1e22 --mfu 0.4", "did you mean 'a100-sxm4-80gb'");
  check_refused("cost --gpu a100-sxm4-80gb --gpus 8 --flops 1e22 --mfu 0.4 --grid frr", "did you mean");
  check_refused("cost --gpu a100-sxm4-80gb --gpus 8 --flops 1e22 --mfu 0.4 --whatif-gpu h100-sxm5-80g",
                "did you mean 'h100-sxm5-80gb'");
}

TEST_CASE("cost: an unpriced run's money is null, a priced one's is hours x price + energy x price") {
  const std::string run = "cost --params 70B --tokens 1.4T --gpu a100-sxm4-80gb --gpus 1024 --mfu 0.45 ";
  const auto u = run_cli(run + "-o json");
  REQUIRE(u.status == 0);
  const auto unpriced = nlohmann::json::parse(u.out)["cost"];
  CHECK(unpriced["cost_usd"].is_null());
  CHECK(unpriced["compute_cost_usd"].is_null());
  CHECK(unpriced["energy_cost_usd"].is_null());
  CHECK(unpriced["inputs"]["price_per_gpu_hour_usd"].is_null());
  for (const auto& row : unpriced["whatif"]) CHECK(row["cost_usd"].is_null());
  CHECK(run_cli(run).out.find("not priced") != std::string::npos);
  const auto p = run_cli(run + "--price-per-gpu-hour 2 --price-per-kwh 0.1 -o json");
  REQUIRE(p.status == 0);
  const auto priced = nlohmann::json::parse(p.out)["cost"];
  const double hours = priced["gpu_hours"].get<double>(), kwh = priced["energy_kwh"].get<double>();
  CHECK(std::fabs(priced["compute_cost_usd"].get<double>() - 2 * hours) < 1e-6);
  CHECK(std::fabs(priced["cost_usd"].get<double>() - (2 * hours + 0.1 * kwh)) < 1e-6);
  CHECK(priced["whatif"][0]["cost_factor"] == 1.0);
}

TEST_CASE("cost --from: the same run cost read back, or recosted with the flags given") {
  const auto dir = isoflop::test::fresh_temp_dir("cost-from", "chain");
  const std::string a = (dir / "a.json").string();
  const auto r = run_cli("cost --params 70B --tokens 1.4T --gpu a100-sxm4-80gb --gpus 1024 --mfu 0.45 --whatif-model-factor 5 "
                         "-o json");
  REQUIRE(r.status == 0);
  std::ofstream(a) << r.out;
  const auto first = nlohmann::json::parse(r.out);
  const auto again = run_json("cost --from " + a + " -o json");
  CHECK(again["cost"] == first["cost"]);
  CHECK(again["inputs"]["from"] == a);
  CHECK(again["inputs"]["gpu"] == "a100-sxm4-80gb");
  // "-" reads standard input (here empty).
  check_refused("cost --from - -o json", "<stdin>: not a document: it is empty");
  // Another grid: the same energy, CO2e scaled by the intensity ratio; nothing else asked changes.
  const auto fr = run_cli("cost --from " + a + " --grid fr --price-per-gpu-hour 2 -o json");
  REQUIRE(fr.status == 0);
  const auto moved = nlohmann::json::parse(fr.out)["cost"];
  const double ratio = moved["inputs"]["intensity_kg_per_kwh"].get<double>() /
                       first["cost"]["inputs"]["intensity_kg_per_kwh"].get<double>();
  CHECK(ratio < 0.2);  // France's grid against the US's
  CHECK(std::fabs(moved["co2e_kg"].get<double>() / first["cost"]["co2e_kg"].get<double>() / ratio - 1) < 1e-12);
  CHECK(moved["energy_kwh"] == first["cost"]["energy_kwh"]);
  CHECK(std::fabs(moved["cost_usd"].get<double>() - 2 * moved["gpu_hours"].get<double>()) < 1e-6);
  CHECK(moved["inputs"]["whatif"]["model_factor"] == 5.0);  // the levers asked before are kept
  CHECK(std::fabs(moved["whatif"][1]["energy_factor"].get<double>() - 5) < 1e-12);
  // A new measured power switches the method to it.
  const auto w = run_cli("cost --from " + a + " --power-w 330 -o json");
  REQUIRE(w.status == 0);
  CHECK(nlohmann::json::parse(w.out)["cost"]["energy_method"] == "measured");
  CHECK(std::fabs(field(w.out, "power_w") - 330 * 1024) < 1e-6);
  // The page says where the run came from.
  CHECK(run_cli("cost --from " + a).out.find("recosted from") != std::string::npos);
}

TEST_CASE("cost --from a bad document exits 2 naming the file and the JSON path") {
  const auto dir = isoflop::test::fresh_temp_dir("cost-from", "bad");
  const std::string a = (dir / "a.json").string();
  const auto r = run_cli("cost --flops 1e22 --mfu 0.4 --gpu a100-sxm4-80gb --gpus 64 -o json");
  REQUIRE(r.status == 0);
  const std::string text = r.out;
  std::ofstream(a) << text;
  auto write = [&](const std::string& name, const std::string& content) {
    const std::string path = (dir / name).string();
    std::ofstream(path) << content;
    return path;
  };
  auto replaced = [&](const std::string& from, const std::string& to) {
    std::string t = text;
    t.replace(t.find(from), from.size(), to);
    return t;
  };
  struct Case {
    std::string path;
    std::string message;
  };
  const std::vector<Case> cases = {
      {write("truncated.json", text.substr(0, text.size() / 2)), "truncated.json: not a JSON document"},
      {write("v1.json", replaced("isoflop/cost/v2", "isoflop/cost/v1")), "v1.json: schema: isoflop/cost/v1 is version 1"},
      {write("kind.json", replaced("isoflop/cost/v2", "isoflop/layout/v2")), "kind.json: schema: a layout document"},
      {write("missing.json", replaced("\"pue\":", "\"pue_x\":")), "missing.json: cost.inputs.pue: missing"},
      {write("type.json", replaced("\"gpus\": 64,", "\"gpus\": 64.5,")), "type.json: inputs.gpus: must be an integer"},
      // Values out of range name the document's key, not a flag that was not given (--pue, --cfe).
      {write("pue.json", replaced("\"pue\": 1.", "\"pue\": -1.")), "pue.json: cost.inputs.pue: must be at least 1"},
      {write("cfe.json", replaced("\"cfe\": 0", "\"cfe\": 2")), "cfe.json: cost.inputs.cfe: "},
  };
  for (const auto& c : cases) {
    INFO(c.path);
    const auto e = run_cli("cost --from " + c.path);
    CHECK(e.status == 2);
    CHECK(e.err.find(c.message) != std::string::npos);
    CHECK(std::count(e.err.begin(), e.err.end(), '\n') == 1);
  }
  // The run comes from the document: work and cluster options are refused with it.
  check_refused("cost --from " + a + " --gpus 8", "--gpus");
  CHECK(run_cli("cost --from " + (dir / "absent.json").string()).status == 2);
}

TEST_CASE("cost: library errors are reported under the flag the user typed") {
  const std::string base = "cost --gpu a100-sxm4-80gb --gpus 64 --flops 1e22 --mfu 0.4 ";
  for (const auto& [args, flag] : std::vector<std::pair<std::string, std::string>>{
           {"--pue 0.9", "--pue: "}, {"--cfe 1.2", "--cfe: "}, {"--grid atlantis", "--grid: "},
           {"--tdp-utilisation 1.5", "--tdp-utilisation: "}, {"--whatif-model-factor 0.5", "--whatif-model-factor: "},
           {"--whatif-gpu h100", "--whatif-gpu: "}, {"--energy-method measured", "--energy-method: "}}) {
    INFO(args);
    const auto r = run_cli(base + args);
    CHECK(r.status == 2);
    CHECK(r.err.rfind("isoflop: error: " + flag, 0) == 0);
  }
  // What cures it is named as the flag that gives it.
  CHECK(run_cli(base + "--energy-method measured").err ==
        "isoflop: error: --energy-method: measured: the catalog has no measured power for this accelerator; give "
        "--power-w\n");
  CHECK(run_cli(base + "--energy-method measured --power-w 400").status == 0);
  const auto m = run_cli("cost --gpu a100-sxm4-80gb --gpus 64 --flops 1e22 --mfu 1.5");
  CHECK(m.err.rfind("isoflop: error: --mfu: ", 0) == 0);
}

TEST_CASE("cost --from an infeasible plan: infeasible (exit 1), naming why, as layout and emit say of it") {
  const auto dir = isoflop::test::fresh_temp_dir("cost-cli", "infeasible");
  const auto p = run_cli("plan --arch mt-nlg-530b --gpus 8 --gpu a100-sxm4-80gb --days 1 -o json");
  REQUIRE(p.status == 1);
  REQUIRE(nlohmann::json::parse(p.out)["cost"].is_null());
  const std::string file = (dir / "plan.json").string();
  std::ofstream(file) << p.out;
  const auto r = run_cli("cost --from " + file);
  CHECK(r.status == 1);
  CHECK(r.out.empty());
  CHECK(r.err == "isoflop: infeasible: " + file +
                     ": no layout of this plan fits, so it has no run to cost; re-plan with more GPUs or another "
                     "accelerator\n");
}

TEST_CASE("cost --from a refused plan: its cost as plan showed it, and exit 1 with plan's reason, as emit refuses it") {
  const auto dir = isoflop::test::fresh_temp_dir("cost-cli", "refused");
  const auto p = run_cli("plan --gpus 256 --gpu a100-sxm4-80gb --days 14 --min-mfu 0.9 -o json");
  REQUIRE(p.status == 1);
  const auto plan = nlohmann::json::parse(p.out);
  REQUIRE(plan["problem"].is_object());
  const std::string file = (dir / "plan.json").string();
  std::ofstream(file) << p.out;
  const auto r = run_cli("cost --from " + file + " -o json");
  CHECK(r.status == 1);
  CHECK(nlohmann::json::parse(r.out)["cost"] == plan["cost"]);
  CHECK(r.err.rfind("isoflop: refused: the plan was refused", 0) == 0);
  CHECK(r.err.find(plan["problem"]["reason"].get<std::string>()) != std::string::npos);
  CHECK(run_cli("emit megatron --from " + file + " --out " + (dir / "launch").string()).status == 1);
  // The same plan without the floor is acted on: exit 0.
  const auto ok = run_cli("plan --gpus 256 --gpu a100-sxm4-80gb --days 14 -o json");
  REQUIRE(ok.status == 0);
  std::ofstream(dir / "ok.json") << ok.out;
  const auto fine = run_cli("cost --from " + (dir / "ok.json").string());
  CHECK(fine.status == 0);
  CHECK(fine.err.empty());
}

TEST_CASE("cost: a node of another size than the catalog's draws the catalog node's power per GPU") {
  // A DGX A100's 6.5 kW is for its 8 GPUs: 64 GPUs draw 52 kW however they are grouped into nodes.
  for (const int per_node : {8, 64, 4}) {
    INFO(per_node);
    const auto doc = run_json("cost --gpu a100-sxm4-80gb --gpus 64 --time 30d --gpus-per-node " +
                              std::to_string(per_node) + " -o json");
    CHECK(doc["cost"]["power_w"].get<double>() == doctest::Approx(52000));
    CHECK(doc["cost"]["inputs"]["node_power_w"].get<double>() == doctest::Approx(6500.0 / 8 * per_node));
  }
}

TEST_CASE("cost: GPUs that do not fill their nodes hold them whole under the node method, and only there") {
  // 4 and 12 A100s occupy one and two DGX A100 nodes of 6.5 kW; the TDP and per-GPU methods count the GPUs.
  for (const auto& [gpus, nodes] : {std::pair{4, 1}, std::pair{12, 2}, std::pair{1001, 126}}) {
    INFO(gpus);
    const std::string run = "cost --gpu a100-sxm4-80gb --gpus " + std::to_string(gpus) + " --time 10h";
    CHECK(run_json(run + " -o json")["cost"]["power_w"].get<double>() == doctest::Approx(6500.0 * nodes));
    const auto tdp = run_json(run + " --energy-method tdp -o json");
    CHECK(tdp["cost"]["power_w"].get<double>() == doctest::Approx((400 + 237) * gpus));
    CHECK(run_json(run + " --power-w 400 -o json")["cost"]["power_w"].get<double>() == doctest::Approx(400.0 * gpus));
    const auto table = run_cli(run);
    CHECK(table.out.find(std::to_string(gpus) + " accelerators occupy " + std::to_string(nodes) +
                         (nodes == 1 ? " node, billed whole" : " nodes, billed whole")) != std::string::npos);
  }
  // A layout places whole nodes: the count is refused, naming the nearest that fill them.
  const auto r = run_cli("layout --arch chinchilla-70b --gpus 12 --gpu a100-sxm4-80gb --global-batch 1536");
  CHECK(r.status == 2);
  CHECK(
      r.err ==
      "isoflop: error: --gpus: 12 is not a whole number of 8-GPU nodes; give a multiple of 8 (8 or 16), a node count, "
      "or the GPUs per node\n");
}

TEST_CASE("cost: the money line splits GPU-hours from energy where both are priced") {
  // 512 H100s for 30 days: 368,640 GPU-hours at $2 = $737,280; the energy's share follows its kWh at $0.1.
  const std::string args = "cost --gpu h100-sxm5-80gb --gpus 512 --time 30d --price-per-gpu-hour 2 ";
  const auto both = run_cli(args + "--price-per-kwh 0.1");
  REQUIRE(both.status == 0);
  const auto doc = nlohmann::json::parse(run_cli(args + "--price-per-kwh 0.1 -o json").out).at("cost");
  CHECK(doc.at("compute_cost_usd").get<double>() == doctest::Approx(368640 * 2.0));
  CHECK(both.out.find("($737k GPU-hours at $2/GPU-h, $") != std::string::npos);
  CHECK(both.out.find(" energy at $0.1/kWh)") != std::string::npos);
  // One part priced: the total alone.
  const auto one = run_cli(args);
  CHECK(one.out.find("money         $737k\n") != std::string::npos);
}

TEST_CASE("cost --from a plan whose cost section names another cluster than the plan's is refused") {
  const auto dir = isoflop::test::fresh_temp_dir("cost-from", "edited");
  const auto plan = run_cli("plan --flops 1e21 --gpu a100-sxm4-80gb --gpus 64 -o json");
  REQUIRE(plan.status == 0);
  const auto doc = nlohmann::json::parse(plan.out);
  auto write = [&](const std::string& name, const nlohmann::json& j) {
    const std::string path = (dir / name).string();
    std::ofstream(path) << j.dump();
    return path;
  };
  CHECK(run_cli("cost --from " + write("as-planned.json", doc)).status == 0);
  auto fewer = doc;
  fewer["cost"]["inputs"]["gpus"] = 8;
  const auto gpus = run_cli("cost --from " + write("gpus.json", fewer));
  CHECK(gpus.status == 2);
  CHECK(gpus.err.find("cost.inputs.gpus 8 contradicts cluster.gpus 64") != std::string::npos);
  auto other = doc;
  other["cost"]["inputs"]["accelerator"] = "h100-sxm5-80gb";
  const auto gpu = run_cli("cost --from " + write("gpu.json", other));
  CHECK(gpu.status == 2);
  CHECK(gpu.err.find("cost.inputs.accelerator 'h100-sxm5-80gb' contradicts cluster.accelerator.name "
                     "'a100-sxm4-80gb'") != std::string::npos);
  CHECK(gpu.out.empty());
}

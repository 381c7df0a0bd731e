// Reads data/launch/*.yaml into LaunchData.
#include "emit/launch_data.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>

#include "core/error.hpp"
#include "emit/argv.hpp"

namespace isoflop::emit {

namespace {

struct Sections {
  std::map<std::string, std::pair<std::string, YAML::Node>> by_key;  // key → (file, node)

  const YAML::Node& at(const std::string& key) const {
    auto it = by_key.find(key);
    if (it == by_key.end()) throw CatalogError("data/launch: section '" + key + "' is missing");
    return it->second.second;
  }
  template <class T>
  T get(const std::string& section, const std::string& key) const {
    const YAML::Node node = at(section)[key];
    if (!node) throw CatalogError(by_key.at(section).first + ": " + section + "." + key + " is missing");
    try {
      return node.as<T>();
    } catch (const YAML::Exception&) {
      throw CatalogError(by_key.at(section).first + ":" + std::to_string(node.Mark().line + 1) + ": " + section +
                         "." + key + " has the wrong type");
    }
  }
};

std::vector<std::string> strings(const YAML::Node& node) {
  std::vector<std::string> out;
  for (const auto& item : node) out.push_back(item.as<std::string>());
  return out;
}

// An argparse option list: data/launch/megatron_flags.yaml or megatron_deepspeed_flags.yaml. The files list each
// option as add_argument spells it (the long-option word); LaunchData keeps its name.
std::map<std::string, MegatronFlag> read_flag_list(const YAML::Node& list, const std::vector<std::string>& versions) {
  std::map<std::string, MegatronFlag> flags;
  for (const auto& f : list) {
    MegatronFlag flag;
    const std::string word = f["name"].as<std::string>();
    const std::optional<std::string> name = option_name(word);
    if (!name) throw CatalogError("data/launch: '" + word + "' is not a long option");
    flag.name = *name;
    const std::string nargs = f["nargs"].as<std::string>();
    if (nargs == "*" || nargs == "+") {
      flag.nargs = MegatronFlag::kAnyValues;
      flag.at_least_one = nargs == "+";
    } else if (nargs == "?") {
      flag.nargs = MegatronFlag::kAnyValues;  // at most one; the launch files never use the form
    } else {
      flag.nargs = std::stoi(nargs);
    }
    if (const YAML::Node type = f["type"]) {
      const std::string t = type.as<std::string>();
      if (t != "int" && t != "float")
        throw CatalogError("data/launch: " + word + " has type '" + t + "'; accepted: int, float");
      flag.type = t == "int" ? ArgparseType::kInt : ArgparseType::kFloat;
    }
    if (f["choices"]) flag.choices = strings(f["choices"]);
    flag.versions = f["in"] ? strings(f["in"]) : versions;
    flags[flag.name] = flag;
  }
  return flags;
}

void read_flags(const Sections& s, LaunchData& d) {
  d.megatron_versions = strings(s.at("megatron_versions"));
  d.megatron_flags = read_flag_list(s.at("megatron_flags"), d.megatron_versions);
  d.megatron_deepspeed_flags = read_flag_list(s.at("megatron_deepspeed_flags"), {});
}

void read_nemo_keys(const Sections& s, LaunchData& d) {
  d.nemo_versions = strings(s.at("nemo_versions"));
  for (const char* list : {"nemo_keys", "nemo_added_keys"})
    for (const auto& k : s.at(list)) {
      auto& versions = d.nemo_keys[k["path"].as<std::string>()];
      for (const auto& v : k["in"] ? strings(k["in"]) : d.nemo_versions) versions.push_back(v);
    }
}

void read_deepspeed_keys(const Sections& s, LaunchData& d) {
  const YAML::Node keys = s.at("deepspeed_keys");
  d.deepspeed_keys_version = keys["version"].as<std::string>();
  d.deepspeed_top_level_keys = strings(keys["top_level"]);
  for (const auto& section : keys["sections"])
    d.deepspeed_section_keys[section.first.as<std::string>()] = strings(section.second);
  d.deepspeed_auto_dropped = strings(keys["auto_dropped"]);
  for (const auto& pair : keys["ignored_when"])
    d.deepspeed_ignored_when[pair.first.as<std::string>()] = pair.second.as<std::string>();
  if (d.deepspeed_top_level_keys.empty() || d.deepspeed_section_keys.empty())
    throw CatalogError("data/launch/deepspeed_keys.yaml: no keys");
}

// The scalar settings of defaults.yaml: section, key and the member each one fills, read by one loop per type.
template <class T>
struct Field {
  const char* section;
  const char* key;
  T LaunchData::*member;
};
constexpr Field<double> kDoubles[] = {{"schedule", "min_lr_ratio", &LaunchData::min_lr_ratio},
                                      {"schedule", "warmup_tokens", &LaunchData::warmup_tokens},
                                      {"schedule", "warmup_max_fraction", &LaunchData::warmup_max_fraction},
                                      {"optimizer", "adam_beta1", &LaunchData::adam_beta1},
                                      {"optimizer", "adam_beta2", &LaunchData::adam_beta2},
                                      {"optimizer", "adam_eps", &LaunchData::adam_eps},
                                      {"optimizer", "weight_decay", &LaunchData::weight_decay},
                                      {"optimizer", "clip_grad", &LaunchData::clip_grad},
                                      {"deepspeed", "reduce_bucket_size", &LaunchData::reduce_bucket_size},
                                      {"deepspeed", "allgather_bucket_size", &LaunchData::allgather_bucket_size},
                                      {"slurm", "time_margin_fraction", &LaunchData::time_margin_fraction}};
constexpr Field<int> kInts[] = {{"intervals", "log_interval", &LaunchData::log_interval},
                                {"intervals", "save_interval", &LaunchData::save_interval},
                                {"intervals", "eval_interval", &LaunchData::eval_interval},
                                {"intervals", "eval_iters", &LaunchData::eval_iters},
                                {"slurm", "rendezvous_port", &LaunchData::rendezvous_port},
                                {"slurm", "cpus_per_gpu", &LaunchData::cpus_per_gpu},
                                {"nemo", "micro_batch_size", &LaunchData::nemo_micro_batch_size},
                                {"nemo", "global_batch_size", &LaunchData::nemo_global_batch_size}};
constexpr Field<std::string> kStrings[] = {{"intervals", "split", &LaunchData::split},
                                           {"deepspeed", "version", &LaunchData::deepspeed_version}};

template <class T, std::size_t N>
void read_fields(const Sections& s, LaunchData& d, const Field<T> (&fields)[N]) {
  for (const auto& f : fields) d.*f.member = s.get<T>(f.section, f.key);
}

void read_defaults(const Sections& s, LaunchData& d) {
  for (const auto& a : s.at("schedule")["peak_lr"])
    d.peak_lr.push_back({a["params"].as<double>(), a["lr"].as<double>()});
  std::sort(d.peak_lr.begin(), d.peak_lr.end(), [](auto& x, auto& y) { return x.params < y.params; });
  read_fields(s, d, kDoubles);
  read_fields(s, d, kInts);
  read_fields(s, d, kStrings);
  d.deepspeed_optimizers = strings(s.at("deepspeed")["optimizers"]);
  d.torch_optimizers = strings(s.at("deepspeed")["torch_optimizers"]);
  d.deepspeed_schedulers = strings(s.at("deepspeed")["schedulers"]);
  d.torch_schedulers = strings(s.at("deepspeed")["torch_schedulers"]);
  for (const auto& entry : s.at("deepspeed")["scheduler_params"])
    d.deepspeed_scheduler_params[entry.first.as<std::string>()] = {strings(entry.second["required"]),
                                                                   strings(entry.second["optional"])};
  for (const auto& e : s.at("environment"))
    d.environment.push_back({e["name"].as<std::string>(), e["value"].as<std::string>()});
}

}  // namespace

const MegatronFlag* LaunchData::megatron_flag(const std::string& name) const {
  auto it = megatron_flags.find(name);
  return it == megatron_flags.end() ? nullptr : &it->second;
}

LaunchData parse_launch_data(const std::vector<std::pair<std::string, std::string>>& files) {
  Sections s;
  for (const auto& [file, text] : files) {
    YAML::Node root;
    try {
      root = YAML::Load(text);
    } catch (const YAML::Exception& e) {
      throw CatalogError(file + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
    }
    for (const auto& item : root) s.by_key[item.first.as<std::string>()] = {file, item.second};
  }
  LaunchData d;
  try {
    read_flags(s, d);
    read_nemo_keys(s, d);
    read_deepspeed_keys(s, d);
    read_defaults(s, d);
  } catch (const YAML::Exception& e) {
    throw CatalogError("data/launch:" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  if (d.megatron_versions.empty() || d.nemo_versions.empty() || d.peak_lr.empty()) throw CatalogError("data/launch: empty version or lr table");
  return d;
}

const LaunchData& launch_data() {
  static const LaunchData data = [] {
    std::vector<std::pair<std::string, std::string>> files;
    for (const auto& f : embedded_launch_files()) files.emplace_back(f.name, f.text);
    return parse_launch_data(files);
  }();
  return data;
}

bool release_at_least(const std::vector<std::string>& releases, const std::string& release, const std::string& floor) {
  const auto at = std::find(releases.begin(), releases.end(), release);
  const auto from = std::find(releases.begin(), releases.end(), floor);
  return at != releases.end() && from != releases.end() && at >= from;
}

}  // namespace isoflop::emit

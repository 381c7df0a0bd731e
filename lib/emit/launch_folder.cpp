// Checking and writing the launch files' folder.
#include "emit/launch_folder.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <vector>

namespace isoflop::emit {
namespace {

// The text of a regular file, or nothing (missing, a folder, unreadable).
std::optional<std::string> file_text(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The manifest emit wrote into `folder` earlier, or nothing (none, or a file of another kind under its name).
std::optional<nlohmann::json> earlier_manifest(const std::string& folder) {
  const auto text = file_text(folder_prefix(folder) + kManifestName);
  if (!text) return std::nullopt;
  auto j = nlohmann::json::parse(*text, nullptr, false);
  if (!j.is_object() || !j.contains("plan") || !j.contains("files") || !j["files"].is_array()) return std::nullopt;
  return j;
}

// The entries of an earlier manifest naming a file that none of `files` rewrites (entries without a file name are
// not isoflop's and are passed over).
std::vector<const nlohmann::json*> not_rewritten(const nlohmann::json& earlier, const std::vector<EmittedFile>& files) {
  std::vector<const nlohmann::json*> out;
  for (const auto& entry : earlier["files"]) {
    if (!entry.is_object() || !entry.contains("file") || !entry["file"].is_string()) continue;
    const std::string& name = entry["file"].get_ref<const std::string&>();
    if (std::none_of(files.begin(), files.end(), [&](const EmittedFile& f) { return f.name == name; }))
      out.push_back(&entry);
  }
  return out;
}

}  // namespace

std::string folder_prefix(const std::string& folder) {
  return folder.empty() || folder.back() == '/' ? folder : folder + "/";
}

void check_launch_folder(const std::string& folder, Target target, const NamedOutputs& outputs) {
  if (!check_output_folder(folder, spelled(outputs.spell, "out"))) return;  // a new one is made before writing
  // The manifest of an earlier emit into this folder is isoflop's own list, updated when the plan is the same
  // (write_launch_folder decides, knowing the plan); any other file under its name is the user's.
  const bool manifest_kept = earlier_manifest(folder).has_value();
  for (const auto& name : file_names(target))
    if (!(name == kManifestName && manifest_kept)) outputs.check(folder_prefix(folder) + name, "out");
}

void write_launch_folder(const std::string& folder, const std::vector<EmittedFile>& files, const LaunchSpec& spec,
                         const NamedOutputs& outputs) {
  // Every file is checked again before the first is written: inputs read since check_launch_folder (the plan
  // document) are known now, and a refusal must leave the folder as it was.
  // An earlier emit of the same plan into this folder (one target at a time, as `emit all` offers when a target
  // cannot be written): its manifest is updated, keeping the files it lists that are there unchanged.
  const std::optional<nlohmann::json> earlier = earlier_manifest(folder);
  // The same plan ranked with the same layout options: files of one layout (another --tp would mix two).
  const bool same_plan = earlier && (*earlier)["plan"] == spec.plan_hash &&
                         earlier->value("layout_options", std::string()) == spec.layout_options;
  if (check_output_folder(folder, spelled(outputs.spell, "out"))) {
    for (const auto& f : files) outputs.check(folder_prefix(folder) + f.name, "out");
    const bool other_options = earlier && (*earlier)["plan"] == spec.plan_hash && !same_plan;
    if (other_options && !outputs.rules.replace)
      throw InputError(spelled(outputs.spell, "out") + ": " + folder_prefix(folder) + kManifestName +
                       " lists files of the same plan written with other layout options (" +
                       (earlier->value("layout_options", std::string()).empty()
                            ? std::string("none")
                            : earlier->value("layout_options", std::string())) +
                       "); one folder holds one layout: use another folder, or --force to replace it");
    if (!same_plan) outputs.check(folder_prefix(folder) + kManifestName, "out");
    // Files of an earlier emit of another plan (or layout) that this one does not write would stay beside the new
    // ones under one manifest that no longer lists them: a folder of two runs. Refused even with --force.
    if (earlier && !same_plan) {
      std::string stale;
      for (const nlohmann::json* entry : not_rewritten(*earlier, files)) {
        const std::string name = (*entry)["file"];
        std::error_code ec;
        if (std::filesystem::exists(folder_prefix(folder) + name, ec)) stale += (stale.empty() ? "" : ", ") + name;
      }
      if (!stale.empty())
        throw InputError(spelled(outputs.spell, "out") + ": " + folder_prefix(folder) + " holds " + stale +
                         " of an earlier emit of " +
                         ((*earlier)["plan"] == spec.plan_hash ? std::string("other layout options")
                                                               : "another plan (" + (*earlier)["plan"].dump() + ")") +
                         ", which this emit would leave beside its own; remove them or use another folder");
    }
  }
  std::vector<nlohmann::ordered_json> kept;
  if (same_plan)
    for (const nlohmann::json* entry : not_rewritten(*earlier, files)) {
      if (!entry->contains("hash")) continue;
      const auto text = file_text(folder_prefix(folder) + (*entry)["file"].get<std::string>());
      if (text && (*entry)["hash"] == document_hash(*text)) kept.push_back(nlohmann::ordered_json(*entry));
    }
  make_output_folder(folder, spelled(outputs.spell, "out"));
  for (const auto& f : files) outputs.write(folder_prefix(folder) + f.name, f.content, "out");
  NamedOutputs manifest_output = outputs;
  manifest_output.rules.replace = outputs.rules.replace || same_plan;  // isoflop's own list, of this plan
  manifest_output.write(folder_prefix(folder) + kManifestName, manifest(files, spec, kept), "out");
}

}  // namespace isoflop::emit

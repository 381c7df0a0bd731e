// Checking and writing the launch files' folder.
#include "emit/launch_folder.hpp"

namespace isoflop::emit {

std::string folder_prefix(const std::string& folder) {
  return folder.empty() || folder.back() == '/' ? folder : folder + "/";
}

void check_launch_folder(const std::string& folder, Target target, const NamedOutputs& outputs) {
  if (!check_output_folder(folder, spelled(outputs.spell, "out"))) return;  // a new one is made before writing
  for (const auto& name : file_names(target)) outputs.check(folder_prefix(folder) + name, "out");
}

void write_launch_folder(const std::string& folder, const std::vector<EmittedFile>& files, const LaunchSpec& spec,
                         const NamedOutputs& outputs) {
  // Every file is checked again before the first is written: inputs read since check_launch_folder (the plan
  // document) are known now, and a refusal must leave the folder as it was.
  if (check_output_folder(folder, spelled(outputs.spell, "out"))) {
    for (const auto& f : files) outputs.check(folder_prefix(folder) + f.name, "out");
    outputs.check(folder_prefix(folder) + kManifestName, "out");
  }
  make_output_folder(folder, spelled(outputs.spell, "out"));
  for (const auto& f : files) outputs.write(folder_prefix(folder) + f.name, f.content, "out");
  outputs.write(folder_prefix(folder) + kManifestName, manifest(files, spec), "out");
}

}  // namespace isoflop::emit

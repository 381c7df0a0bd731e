// The folder `emit --out DIR` writes: each target's file and the manifest, checked before the planning (a
// folder that cannot take them fails first) and written after it, the folder made when missing.
#pragma once

#include <string>
#include <vector>

#include "core/output_path.hpp"
#include "emit/emit.hpp"

namespace isoflop::emit {

// `folder` with a separator at its end ("out" → "out/", "" stays ""): the prefix of the files' paths.
std::string folder_prefix(const std::string& folder);

// Checks that `folder` is a folder or can be made (core/output_path.hpp's check_output_folder) and, when it
// exists, that each file `target` writes there (file_names) may be written: an InputError naming the field
// "out" as `outputs` spells it.
void check_launch_folder(const std::string& folder, Target target, const NamedOutputs& outputs);

// Makes `folder` when missing, then writes `files` and the manifest (kManifestName) into it, in that order.
void write_launch_folder(const std::string& folder, const std::vector<EmittedFile>& files, const LaunchSpec& spec,
                         const NamedOutputs& outputs);

}  // namespace isoflop::emit

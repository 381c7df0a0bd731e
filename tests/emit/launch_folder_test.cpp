// Tests for lib/emit/launch_folder: the folder checked before the planning and written after it, every file
// and the manifest, named as the caller spells the field.
#include "emit/launch_folder.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "support/temp_files.hpp"

namespace isoflop::emit {
namespace {

namespace fs = std::filesystem;

std::string flag_like(std::string_view field) { return "--" + std::string(field); }

TEST_CASE("folder_prefix ends a folder's name with one separator") {
  CHECK(folder_prefix("out") == "out/");
  CHECK(folder_prefix("out/") == "out/");
  CHECK(folder_prefix("") == "");
}

TEST_CASE("the launch folder: a new one passes, a file or a missing parent is refused, its files are checked") {
  const fs::path dir = test::fresh_temp_dir("emit-folder", "check");
  const NamedOutputs outputs{OutputRules{false, "no"}, flag_like, nullptr};
  CHECK_NOTHROW(check_launch_folder((dir / "new").string(), Target::kAll, outputs));
  CHECK_FALSE(fs::exists(dir / "new"));  // made only before writing
  std::ofstream(dir / "file") << "x";
  CHECK_THROWS_WITH_AS(check_launch_folder((dir / "file").string(), Target::kMegatron, outputs),
                       ("--out: '" + (dir / "file").string() + "' is not a folder; name a folder").c_str(), InputError);
  CHECK_THROWS_WITH_AS(check_launch_folder((dir / "no" / "out").string(), Target::kMegatron, outputs),
                       doctest::Contains("--out: cannot create"), InputError);
  std::ofstream(dir / "megatron.sh") << "#!/bin/bash\n";
  CHECK_NOTHROW(check_launch_folder(dir.string(), Target::kSlurm, outputs));  // slurm writes no megatron.sh
  CHECK_THROWS_WITH_AS(check_launch_folder(dir.string(), Target::kMegatron, outputs),
                       ("--out: " + (dir / "megatron.sh").string() + " exists; no").c_str(), InputError);
}

TEST_CASE("the launch folder is made and takes every file, the manifest last") {
  const fs::path dir = test::fresh_temp_dir("emit-folder", "write");
  std::vector<std::string> written;
  const NamedOutputs outputs{OutputRules{false, "no"}, flag_like,
                             [&](const OutputTarget& t) { written.push_back(t.path); }};
  const std::vector<EmittedFile> files = {{"megatron.sh", Target::kMegatron, "#!/bin/bash\n", "", ""},
                                          {"job.sbatch", Target::kSlurm, "#!/bin/bash\n#SBATCH -N 1\n", "", ""}};
  LaunchSpec spec;
  spec.plan_hash = "abc";
  const std::string out = (dir / "launch").string();
  write_launch_folder(out, files, spec, outputs);
  CHECK(written == std::vector<std::string>{out + "/megatron.sh", out + "/job.sbatch", out + "/manifest.json"});
  CHECK(test::read_file(dir / "launch" / "job.sbatch") == files[1].content);
  const auto manifest = nlohmann::json::parse(test::read_file(dir / "launch" / "manifest.json"));
  CHECK(manifest.at("plan") == "abc");
  REQUIRE(manifest.at("files").size() == 2);
  CHECK(manifest.at("files")[1].at("file") == "job.sbatch");
  CHECK(manifest.at("files")[1].at("bytes") == files[1].content.size());
}

TEST_CASE("a launch folder one of whose files is an input is refused before any file is written") {
  const fs::path dir = test::fresh_temp_dir("emit-folder", "input");
  std::ofstream(dir / "job.sbatch") << "a plan, named as the folder's last file\n";
  note_input((dir / "job.sbatch").string());  // read after check_launch_folder ran, as the plan document is
  const NamedOutputs outputs{OutputRules{true, "no"}, flag_like, nullptr};
  const std::vector<EmittedFile> files = {{"megatron.sh", Target::kMegatron, "#!/bin/bash\n", "", ""},
                                          {"job.sbatch", Target::kSlurm, "#!/bin/bash\n#SBATCH -N 1\n", "", ""}};
  CHECK_THROWS_WITH_AS(write_launch_folder(dir.string(), files, LaunchSpec{}, outputs),
                       doctest::Contains("job.sbatch' is one of this command's inputs"), InputError);
  CHECK_FALSE(fs::exists(dir / "megatron.sh"));
  CHECK_FALSE(fs::exists(dir / "manifest.json"));
  CHECK(test::read_file(dir / "job.sbatch") == "a plan, named as the folder's last file\n");
}

}  // namespace
}  // namespace isoflop::emit

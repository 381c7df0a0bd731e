// Tests for lib/core/output_path's NamedOutputs and note_folder_inputs: files the caller named, checked and
// written under its rules with the field spelled its way, and a folder's files kept from being replaced.
#include "core/output_path.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "support/temp_files.hpp"

using namespace isoflop;

namespace {

namespace fs = std::filesystem;

std::string flag_like(std::string_view field) { return "--" + std::string(field); }

}  // namespace

TEST_CASE("NamedOutputs writes under its rules, names the field its way and tells on_written") {
  const fs::path dir = test::fresh_temp_dir("output-path", "named");
  std::vector<std::string> written;
  NamedOutputs outputs{OutputRules{false, "allow it"}, flag_like,
                       [&](const OutputTarget& t) { written.push_back(t.target); }};
  const std::string file = (dir / "figure.svg").string();
  CHECK(outputs.check(file, "plot").path == file);
  CHECK(outputs.write(file, "<svg/>", "plot").target == file);
  CHECK(test::read_file(file) == "<svg/>");
  CHECK(written == std::vector<std::string>{file});
  CHECK_THROWS_WITH_AS(outputs.check(file, "plot"), ("--plot: " + file + " exists; allow it").c_str(), InputError);
  CHECK_THROWS_WITH_AS(outputs.write(file, "other", "save_law"), ("--save_law: " + file + " exists; allow it").c_str(),
                       InputError);
  CHECK(test::read_file(file) == "<svg/>");
  CHECK(written.size() == 1);  // a refused file is not announced
  outputs.spell = nullptr;     // the field's own name
  CHECK_THROWS_WITH_AS(outputs.check(dir.string(), "plot"),
                       ("plot: '" + dir.string() + "' is a directory; name a file").c_str(), InputError);
  // "-" is standard input to a reader; as an output file name it is refused, replacing allowed or not.
  outputs.rules.replace = true;
  CHECK_THROWS_WITH_AS(outputs.check("-", "plot"),
                       "plot: '-' would be a file named '-' (this output is a file, standard output is for -o); name a "
                       "file, or ./- for that name",
                       InputError);
  CHECK(!fs::exists("-"));
  outputs.on_written = nullptr;
  outputs.write(file, "<svg>2</svg>", "plot");
  CHECK(test::read_file(file) == "<svg>2</svg>");
}

TEST_CASE("every file of a folder noted as an input is refused as an output, even when replacing is allowed") {
  const fs::path dir = test::fresh_temp_dir("output-path", "folder");
  fs::create_directories(dir / "overlay");
  std::ofstream(dir / "overlay" / "laws.yaml") << "laws: []\n";
  const OutputRules replace{true, ""};
  const std::string law = (dir / "overlay" / "laws.yaml").string();
  CHECK_NOTHROW(check_output_path(law, "plot", replace));
  note_folder_inputs((dir / "overlay").string());
  CHECK_THROWS_WITH_AS(check_output_path(law, "plot", replace),
                       ("plot: '" + law + "' is one of this command's inputs; name another file").c_str(), InputError);
  CHECK_NOTHROW(note_folder_inputs((dir / "missing").string()));
  forget_input(law);
  CHECK_NOTHROW(check_output_path(law, "plot", replace));
}

TEST_CASE("an input is known by its file, not by an inode number a deleted input leaves free") {
  const fs::path dir = test::fresh_temp_dir("output-path", "inode");
  const OutputRules replace{true, ""};
  const std::string input = (dir / "job.yaml").string(), other = (dir / "curve.svg").string();
  std::ofstream(input) << "train: {}\n";
  note_input(input);
  // A second name of the same file is still the input.
  fs::create_hard_link(input, other);
  CHECK_THROWS_WITH_AS(check_output_path(other, "plot", replace),
                       ("plot: '" + other + "' is one of this command's inputs; name another file").c_str(),
                       InputError);
  // Once the input's own path no longer leads to that inode (deleted: the file system may give the number to
  // the next file it makes), a file with that inode is not an input.
  fs::remove(input);
  CHECK_NOTHROW(check_output_path(other, "plot", replace));
  // An input replaced under its name is the new file at that name.
  std::ofstream(input) << "train: {}\n";
  note_input(input);
  CHECK_THROWS_AS(check_output_path(input, "plot", replace), InputError);
}

TEST_CASE("two outputs of one command that are one file are refused, by name, through a link or a folder") {
  const fs::path dir = test::fresh_temp_dir("output-path", "distinct");
  const std::string a = (dir / "a.svg").string(), b = (dir / "b.svg").string();
  CHECK_NOTHROW(require_distinct_outputs({{a, "--plot"}, {b, "--curve"}}));
  CHECK_THROWS_WITH_AS(
      require_distinct_outputs({{a, "--plot"}, {(dir / "." / "a.svg").string(), "--curve"}}),
      ("--curve: '" + (dir / "." / "a.svg").string() + "' is also the --plot file; name a file of its own").c_str(),
      InputError);
  fs::create_directories(dir / "real");
  fs::create_directory_symlink(dir / "real", dir / "link");
  CHECK_THROWS_WITH_AS(require_distinct_outputs(
                           {{(dir / "real" / "x").string(), "--save-law"}, {(dir / "link" / "x").string(), "--plot"}}),
                       doctest::Contains("is also the --save-law file"), InputError);
  // Files of folders that do not exist yet are told apart by name.
  CHECK_NOTHROW(
      require_distinct_outputs({{(dir / "new" / "x").string(), "--plot"}, {(dir / "new" / "y").string(), "--curve"}}));
  CHECK_THROWS_AS(
      require_distinct_outputs({{(dir / "new" / "x").string(), "--plot"}, {(dir / "new" / "x").string(), "--curve"}}),
      InputError);
}

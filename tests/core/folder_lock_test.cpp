// Folder locks and temporary files: one holder at a time, named in the refusal; temporary files recognised by
// name and removed only when their writer is gone.
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/folder_lock.hpp"
#include "support/temp_files.hpp"

namespace isoflop {
namespace {

namespace fs = std::filesystem;

TEST_CASE("a folder lock admits one holder and names it to the next") {
  const fs::path dir = test::fresh_temp_dir("isoflop-core-test", "lock");
  {
    FolderLock held(dir.string(), "output folder");
    CHECK(held.held());
    CHECK(test::read_file(dir / kFolderLockName) == std::to_string(::getpid()) + "\n");
    std::string message;
    try {
      FolderLock second(dir.string(), "output folder");
    } catch (const InputError& e) {
      message = e.what();
    }
    CHECK(message == "output folder '" + dir.string() + "' is in use by pid " + std::to_string(::getpid()) +
                         "; wait for it to finish or use another folder");
    FolderLock moved = std::move(held);
    CHECK(moved.held());
    CHECK(!held.held());  // NOLINT(bugprone-use-after-move): a moved-from lock holds nothing
  }
  // Released with its holder: the next one takes it.
  CHECK(FolderLock(dir.string(), "output folder").held());
  CHECK_THROWS_AS(FolderLock((dir / "missing").string(), "output folder"), InputError);
  fs::remove_all(dir);
}

TEST_CASE("temporary files are recognised by name, and only a gone writer's are removed") {
  CHECK(is_temporary_name(".checkpoint.bin.isoflop-tmp.1234.0"));
  CHECK(is_temporary_name(".results.json.isoflop-tmp.99.12"));
  CHECK(!is_temporary_name("checkpoint.bin"));
  CHECK(!is_temporary_name("checkpoint.bin.isoflop-tmp.1234.0"));  // not hidden: a user's file
  CHECK(!is_temporary_name(".checkpoint.bin.isoflop-tmp.x.0"));
  CHECK(!is_temporary_name(".checkpoint.bin.isoflop-tmp.12"));
  CHECK(!is_temporary_name(".checkpoint.bin.isoflop-tmp.12.3.4"));

  const fs::path dir = test::fresh_temp_dir("isoflop-core-test", "stale");
  const std::string gone = ".c.bin.isoflop-tmp.2147483646.0", running = ".c.bin.isoflop-tmp.1.0";
  const std::string mine = ".c.bin.isoflop-tmp." + std::to_string(::getpid()) + ".0";
  for (const auto& name : {gone, running, mine, std::string("c.bin")}) std::ofstream(dir / name) << "x";
  const auto removed = remove_stale_temporaries(dir.string());
  REQUIRE(removed.size() == 1);
  CHECK(removed[0] == (dir / gone).string());
  CHECK(!fs::exists(dir / gone));
  CHECK(fs::exists(dir / running));
  CHECK(fs::exists(dir / mine));
  CHECK(fs::exists(dir / "c.bin"));
  // What write_temporary_beside names is recognised.
  const std::string temp = write_temporary_beside((dir / "out.json").string(), "{}", "output", 0600);
  CHECK(is_temporary_name(fs::path(temp).filename().string()));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace isoflop

// The binary's start: the libraries only some commands use are not among those the dynamic loader maps for
// every command (README "Start time"). Read from the binary's dynamic section as the loader reads it (its
// DT_NEEDED entries, listed by readelf).
#include <doctest/doctest.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace {

std::vector<std::string> needed_libraries(const std::string& binary) {
  const std::string command = "readelf --dynamic --wide '" + binary + "'";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  REQUIRE(pipe);
  std::vector<std::string> names;
  char line[4096];
  while (std::fgets(line, sizeof line, pipe.get())) {
    const std::string text = line;
    if (text.find("(NEEDED)") == std::string::npos) continue;
    const size_t open = text.find('['), close = text.find(']');
    REQUIRE(open != std::string::npos);
    REQUIRE(close > open);
    names.push_back(text.substr(open + 1, close - open - 1));
  }
  return names;
}

}  // namespace

TEST_CASE("isoflop needs neither CUDA nor the libraries only train, fit and check use") {
  const std::vector<std::string> needed = needed_libraries(ISOFLOP_BINARY);
  REQUIRE(!needed.empty());
  bool libc = false;
  for (const std::string& name : needed) {
    INFO(name);
    libc = libc || name.rfind("libc.so", 0) == 0;
    for (const char* absent : {"libcudart", "libcublas", "libcuda.", "libnlopt", "libopenblas", "libpugixml",
                               "libyaml-cpp", "libboost"})
      CHECK(name.find(absent) == std::string::npos);
  }
  CHECK(libc);  // the listing was read: the C library is always needed
#ifdef ISOFLOP_STATIC_RUNTIME
  for (const std::string& name : needed) {
    INFO(name);
    CHECK(name.find("libstdc++") == std::string::npos);  // the C++ runtime is linked in
    CHECK(name.find("libgcc_s") == std::string::npos);
  }
#endif
}

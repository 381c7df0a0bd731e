// Tests for lib/core/shared_library: the first name that loads is used; a library or symbol that is missing is
// an error that names it.
#include "core/shared_library.hpp"

#include <doctest/doctest.h>

#include <string>

#include "core/error.hpp"

using namespace isoflop;

TEST_CASE("the first library of the list that loads is opened and its symbols bound") {
  void* handle = open_shared_library("libm", {"libisoflop-no-such-library.so", "libm.so.6"});
  REQUIRE(handle != nullptr);
  double (*cosine)(double) = nullptr;
  bind_symbol(handle, "libm", "cos", &cosine);
  REQUIRE(static_cast<bool>(cosine));
  CHECK(cosine(0.0) == 1.0);
}

TEST_CASE("a library none of whose names loads is an error naming it and the loader's reason") {
  try {
    open_shared_library("libnothing", {"libisoflop-no-such-library.so", "", nullptr});
    FAIL("no error");
  } catch (const Error& e) {
    const std::string what = e.what();
    CHECK(what.rfind("libnothing could not be loaded: ", 0) == 0);
    CHECK(what.find("libisoflop-no-such-library.so") != std::string::npos);  // dlerror names the file
  }
}

TEST_CASE("a missing symbol is an error naming the library and the symbol") {
  void* handle = open_shared_library("libm", {"libm.so.6"});
  void (*missing)() = nullptr;
  CHECK_THROWS_WITH_AS(bind_symbol(handle, "libm", "isoflop_no_such_symbol", &missing),
                       "libm has no isoflop_no_such_symbol", Error);
  CHECK(static_cast<bool>(missing) == false);
}

namespace {

// A table over libm, loaded as the OpenBLAS and NLopt tables are.
struct MathFunctions {
  static constexpr const char* kLibrary = "libm";
  static constexpr const char* kSoname = "libisoflop-no-such-library.so";  // the fallback path must be tried
  static constexpr const char* kPath = "libm.so.6";
  double (*cosine)(double) = nullptr;
  void bind(void* handle) { bind_symbol(handle, kLibrary, "cos", &cosine); }
};

}  // namespace

TEST_CASE("a function table is loaded once, from the first file that loads, and kept") {
  const MathFunctions& first = loaded_functions<MathFunctions>();
  REQUIRE(static_cast<bool>(first.cosine));
  CHECK(first.cosine(0.0) == 1.0);
  CHECK(&loaded_functions<MathFunctions>() == &first);  // the same table on every call
}

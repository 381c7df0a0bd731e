// Build tool: parses data/*.yaml with the catalog's own parsing (lib/catalog, every check and message of a
// load) and writes the resulting catalog as records (catalog/records.hpp) in a C++ source, so that the binary
// reads its embedded catalog without a YAML tree. A data file the catalog rejects fails the build.
//   isoflop_catalog_records OUTPUT.cpp data/a.yaml data/b.yaml …   (in the order the catalog merges them)
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "catalog/records.hpp"

int main(int argc, char** argv) {
  using namespace isoflop::catalog;
  if (argc < 2) {
    std::fprintf(stderr, "usage: isoflop_catalog_records OUTPUT.cpp DATA.yaml...\n");
    return 2;
  }
  records::Writer writer;
  try {
    Catalog catalog;
    DefinedAt defined;  // an entry in two data files is an error, not the later one winning
    for (int i = 2; i < argc; ++i) {
      std::ifstream in(argv[i], std::ios::binary);
      std::stringstream text;
      text << in.rdbuf();
      if (!in) throw std::runtime_error(std::string(argv[i]) + ": cannot read");
      // Named as the binary names them in messages and in the entries' `file`.
      merge_catalog_text(text.str(), "data/" + std::filesystem::path(argv[i]).filename().string(), &catalog, &defined);
    }
    check_references(catalog);
    writer(catalog);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "isoflop_catalog_records: %s\n", e.what());
    return 1;
  }
  // The bytes as numbers (a string literal this long is beyond what ISO C++ promises a compiler takes).
  std::string array;
  for (size_t at = 0; at < writer.bytes.size(); ++at) {
    array += (at % 24 == 0 ? "\n    " : " ") + std::to_string(static_cast<unsigned char>(writer.bytes[at])) + ",";
  }
  std::ofstream out(argv[1], std::ios::binary);
  out << "// Generated from data/*.yaml by lib/catalog/embed/write_records.cpp; do not edit.\n"
         "#include \"catalog/records.hpp\"\n\nnamespace isoflop::catalog::records {\nnamespace {\n\n"
         "constexpr unsigned char kRecords[] = {"
      << array
      << "\n};\n\n}  // namespace\n\nstd::string_view embedded_records() {\n"
         "  return {reinterpret_cast<const char*>(kRecords), sizeof kRecords};\n}\n\n"
         "}  // namespace isoflop::catalog::records\n";
  out.close();
  if (!out) {
    std::fprintf(stderr, "isoflop_catalog_records: cannot write %s\n", argv[1]);
    return 1;
  }
  return 0;
}

// Build tool: turns data/*.yaml into a C++ source of node records (catalog/embedded.hpp), so that the binary
// builds the catalogs' YAML trees directly instead of scanning YAML text at every start (yaml-cpp's scanner
// was ~60M instructions a start, most of a command's time). Duplicate keys fail the build, as they fail a load.
//   isoflop_embed_catalog OUTPUT.cpp data/a.yaml data/b.yaml …
#include <yaml-cpp/yaml.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

namespace {

// A C string literal for any bytes: printable ASCII as is, the rest as three-digit octal escapes.
std::string literal(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\' || c == '?') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char escape[8];
      std::snprintf(escape, sizeof escape, "\\%03o", c);
      out += escape;
    }
  }
  return out + "\"";
}

// Appends `node` and everything under it, in pre-order: a map is followed by its key and value records.
// Scalars go to `text` (their record holds the offset).
void emit(const YAML::Node& node, const std::string& file, std::string& out, std::string& text, size_t& count) {
  ++count;
  const std::string line = ", " + std::to_string(node.Mark().line);
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      out += "    {'M', " + std::to_string(node.size()) + ", 0" + line + "},\n";
      std::set<std::string> keys;
      for (const auto& item : node) {
        if (item.first.IsScalar() && !keys.insert(item.first.Scalar()).second)
          throw std::runtime_error(file + ":" + std::to_string(item.first.Mark().line + 1) + ": duplicate key '" +
                                   item.first.Scalar() + "'");
        emit(item.first, file, out, text, count);
        emit(item.second, file, out, text, count);
      }
      break;
    }
    case YAML::NodeType::Sequence:
      out += "    {'S', " + std::to_string(node.size()) + ", 0" + line + "},\n";
      for (const auto& item : node) emit(item, file, out, text, count);
      break;
    case YAML::NodeType::Scalar:
      out += "    {'V', " + std::to_string(node.Scalar().size()) + ", " + std::to_string(text.size()) + line + "},\n";
      text += node.Scalar();
      break;
    default:
      out += "    {'N', 0, 0" + line + "},\n";
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: isoflop_embed_catalog OUTPUT.cpp DATA.yaml...\n");
    return 2;
  }
  std::string arrays, table;
  try {
    for (int i = 2; i < argc; ++i) {
      const std::string name = "data/" + std::filesystem::path(argv[i]).filename().string();
      std::ifstream in(argv[i], std::ios::binary);
      std::stringstream text;
      text << in.rdbuf();
      if (!in) throw std::runtime_error(std::string(argv[i]) + ": cannot read");
      YAML::Node root;
      try {
        root = YAML::Load(text.str());
      } catch (const YAML::Exception& e) {
        throw std::runtime_error(name + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
      }
      size_t count = 0;
      std::string scalars;
      const std::string array = "kFile" + std::to_string(i - 2);
      arrays += "constexpr EmbeddedNode " + array + "[] = {\n";
      emit(root, name, arrays, scalars, count);
      arrays += "};\n";
      // The scalars as one literal, in lines of at most 100 bytes of text.
      arrays += "constexpr char " + array + "Text[] =";
      for (size_t at = 0; at < scalars.size(); at += 100) arrays += "\n    " + literal(scalars.substr(at, 100));
      if (scalars.empty()) arrays += " \"\"";
      arrays += ";\n";
      table += "      {" + literal(name) + ", " + array + ", " + std::to_string(count) + ", " + array + "Text},\n";
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "isoflop_embed_catalog: %s\n", e.what());
    return 1;
  }
  std::ofstream out(argv[1], std::ios::binary);
  out << "// Generated from data/*.yaml by lib/catalog/embed/embed_catalog.cpp; do not edit.\n"
         "#include \"catalog/embedded.hpp\"\n\nnamespace isoflop::catalog {\nnamespace {\n\n"
      << arrays
      << "\n}  // namespace\n\nconst std::vector<EmbeddedFile>& embedded_files() {\n"
         "  static const std::vector<EmbeddedFile> files = {\n"
      << table << "  };\n  return files;\n}\n\n}  // namespace isoflop::catalog\n";
  out.close();
  if (!out) {
    std::fprintf(stderr, "isoflop_embed_catalog: cannot write %s\n", argv[1]);
    return 1;
  }
  return 0;
}

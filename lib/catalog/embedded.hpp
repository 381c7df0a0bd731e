// The data/*.yaml catalogs compiled into the binary (generated at configure time from data/).
#pragma once

#include <vector>

namespace isoflop::catalog {

struct EmbeddedFile {
  const char* name;  // "data/hardware.yaml"
  const char* text;  // the file's contents
};

const std::vector<EmbeddedFile>& embedded_files();

}  // namespace isoflop::catalog

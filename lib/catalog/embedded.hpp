// The data/*.yaml catalogs compiled into the binary: each file's YAML tree as node records in pre-order,
// made at build time by lib/catalog/embed/embed_catalog.cpp (which also refuses duplicate keys).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace isoflop::catalog {

// One node: 'M' a mapping of `size` entries (each a key record then a value record follows), 'S' a sequence
// of `size` items, 'V' a scalar of `size` bytes at `offset` in its file's text, 'N' a null; `line` is where it
// stood (0-based), for the file:line of messages and of the entries' `file`. An offset rather than a pointer:
// the records need no relocation when the program is loaded, so a command that reads no catalog never touches
// them.
struct EmbeddedNode {
  char kind;
  std::uint32_t size;
  std::uint32_t offset;
  int line;
};

struct EmbeddedFile {
  const char* name;            // "data/hardware.yaml"
  const EmbeddedNode* nodes;   // the root first
  std::size_t count;
  const char* text;            // the scalars, one after another
};

const std::vector<EmbeddedFile>& embedded_files();

}  // namespace isoflop::catalog

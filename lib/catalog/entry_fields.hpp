// The fields every named catalog entry has, read alike by each entry's parser.
#pragma once

#include "catalog/field_reader.hpp"

namespace isoflop::catalog {

// A named catalog entry opens with its name and display name (default: the name) …
template <class Entry>
void read_names(FieldReader& r, Entry& e) {
  e.name = r.string("name");
  e.display_name = r.string_or("display_name", e.name);
}

// … and closes with its source and where it stands (the file and line of its name).
template <class Entry>
void read_source(FieldReader& r, Entry& e) {
  e.source = r.string("source");
  e.file = r.where("name");
}

// A named entry read whole: its names, what `read_body` reads of it, then its source.
template <class Entry, class Body>
Entry read_named_entry(FieldReader& r, Body&& read_body) {
  Entry e;
  read_names(r, e);
  read_body(e);
  read_source(r, e);
  return e;
}

}  // namespace isoflop::catalog

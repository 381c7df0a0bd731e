// Fuzz target: a result document as `--from FILE` reads it: parsed and schema-checked, decoded into the
// struct of its kind and encoded again, for every kind in lib/doc/registry. What isoflop encodes it must
// read back to the same JSON (the registry's promise), so a second round trip is checked to be exact.
#include "core/error.hpp"
#include "doc/document.hpp"
#include "doc/registry.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace doc = isoflop::doc;
  const std::string text = isoflop::fuzz::as_text(data, size);
  std::string first;
  try {
    const doc::SourceDocument document = doc::parse_document("doc.json", text);
    first = doc::reencode(document).dump(2);
  } catch (const isoflop::Error&) {
    return 0;
  }
  try {
    const doc::SourceDocument again = doc::parse_document("reencoded.json", first);
    const std::string second = doc::reencode(again).dump(2);
    if (second != first) {
      std::fprintf(stderr, "first encoding:\n%s\nsecond encoding:\n%s\n", first.c_str(), second.c_str());
      isoflop::fuzz::invariant_failed("decode(encode(x)) changed the document");
    }
  } catch (const isoflop::Error& e) {
    std::fprintf(stderr, "re-reading the encoded document failed: %s\n%s\n", e.what(), first.c_str());
    isoflop::fuzz::invariant_failed("an encoded document does not decode");
  }
  return 0;
}

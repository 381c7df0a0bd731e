// Strict JSON reading: nlohmann's SAX parser, building the document and keeping the keys of every open object.
#include "core/json_input.hpp"

#include <unordered_set>
#include <vector>

#include "core/error.hpp"

namespace isoflop {
namespace {

using Json = nlohmann::ordered_json;

// One object or array being read: its members or elements so far, an object's keys so far and its current key,
// an array's current index. The elements are gathered in a plain vector and become the array when it ends:
// ordered_json's push_back re-points every element's parent (JSON_DIAGNOSTICS), which would take n²/2 steps.
struct Frame {
  bool object = false;
  std::unordered_set<std::string> keys;
  std::string key;
  size_t index = 0;
  Json::object_t members;
  Json::array_t elements;
};

// "inputs.layouts[0]" for the frames below the innermost one.
std::string path_of(const std::vector<Frame>& frames) {
  std::string path;
  for (size_t i = 0; i + 1 < frames.size(); ++i) {
    if (frames[i].object) path += (path.empty() ? "" : ".") + frames[i].key;
    else path += "[" + std::to_string(frames[i].index) + "]";
  }
  return path;
}

// A SAX handler that builds the document with nlohmann's public interface and checks each key against its
// object's keys so far. (Not the parser-callback interface: with it, every object that ends scans its parent's
// elements for discarded values, so an array of n objects, a train result's curve, took n²/2 steps to read.)
// A container is built on its frame and moved into its parent when it ends, in time linear in its size.
class UniqueKeysReader {
 public:
  explicit UniqueKeysReader(const std::string& source) : source_(source) { frames_.reserve(16); }
  Json take() { return std::move(root_); }

  bool null() { return add(nullptr); }
  bool boolean(bool v) { return add(v); }
  bool number_integer(Json::number_integer_t v) { return add(v); }
  bool number_unsigned(Json::number_unsigned_t v) { return add(v); }
  bool number_float(Json::number_float_t v, const std::string&) { return add(v); }
  bool string(std::string& v) { return add(std::move(v)); }
  bool binary(Json::binary_t& v) { return add(Json::binary(std::move(v))); }
  bool start_object(size_t) {
    frames_.push_back(Frame{true, {}, {}, 0, {}, {}});
    return true;
  }
  bool key(std::string& key) {
    if (!frames_.back().keys.insert(key).second) {
      const std::string where = path_of(frames_);
      throw InputError(source_ + ": " + (where.empty() ? "" : where + ": ") + "duplicate key '" + key +
                       "' (a key may appear once in an object)");
    }
    frames_.back().key = key;
    return true;
  }
  bool end_object() { return close(); }
  bool start_array(size_t) {
    frames_.push_back(Frame{false, {}, {}, 0, {}, {}});
    return true;
  }
  bool end_array() { return close(); }
  template <class Exception>  // the parser's own type (parse_error, out_of_range), thrown as ordered_json::parse does
  bool parse_error(size_t, const std::string&, const Exception& e) {
    throw e;
  }

 private:
  bool close() {
    Frame& f = frames_.back();
    Json done = f.object ? Json(std::move(f.members)) : Json(std::move(f.elements));
    frames_.pop_back();
    return add(std::move(done));
  }
  // A value has been read: into the enclosing object under its key, or onto the enclosing array.
  bool add(Json value) {
    if (frames_.empty()) {
      root_ = std::move(value);
      return true;
    }
    Frame& f = frames_.back();
    if (f.object) {
      f.members.emplace_back(f.key, std::move(value));  // the key is new (checked above): no search for it
    } else {
      f.elements.push_back(std::move(value));
      ++f.index;
    }
    return true;
  }

  const std::string& source_;
  std::vector<Frame> frames_;
  Json root_;
};

}  // namespace

Json parse_json_unique_keys(std::string_view text, const std::string& source) {
  UniqueKeysReader reader(source);
  Json::sax_parse(text.begin(), text.end(), &reader);
  return reader.take();
}

}  // namespace isoflop

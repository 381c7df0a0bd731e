// Strict JSON reading: nlohmann's DOM builder, keeping the keys of every open object.
#include "core/json_input.hpp"

#include <unordered_set>
#include <vector>

#include "core/error.hpp"

namespace isoflop {
namespace {

using Json = nlohmann::ordered_json;

// One object or array being read: an object's keys so far and its current key, an array's current index.
struct Frame {
  bool object = false;
  std::unordered_set<std::string> keys;
  std::string key;
  size_t index = 0;
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

// nlohmann's own DOM builder, with each key checked against its object's keys so far. (Not the parser-callback
// interface: with it, every object that ends scans its parent's elements for discarded values, so an array of n
// objects, a train result's curve, took n²/2 steps to read.)
class UniqueKeysReader {
 public:
  UniqueKeysReader(Json& out, const std::string& source) : dom_(out), source_(source) {}

  bool null() { return value(dom_.null()); }
  bool boolean(bool v) { return value(dom_.boolean(v)); }
  bool number_integer(Json::number_integer_t v) { return value(dom_.number_integer(v)); }
  bool number_unsigned(Json::number_unsigned_t v) { return value(dom_.number_unsigned(v)); }
  bool number_float(Json::number_float_t v, const std::string& text) { return value(dom_.number_float(v, text)); }
  bool string(std::string& v) { return value(dom_.string(v)); }
  bool binary(Json::binary_t& v) { return value(dom_.binary(v)); }
  bool start_object(size_t n) {
    frames_.push_back(Frame{true, {}, {}, 0});
    return dom_.start_object(n);
  }
  bool key(std::string& key) {
    if (!frames_.back().keys.insert(key).second) {
      const std::string where = path_of(frames_);
      throw InputError(source_ + ": " + (where.empty() ? "" : where + ": ") + "duplicate key '" + key +
                       "' (a key may appear once in an object)");
    }
    frames_.back().key = key;
    return dom_.key(key);
  }
  bool end_object() {
    frames_.pop_back();
    return value(dom_.end_object());
  }
  bool start_array(size_t n) {
    frames_.push_back(Frame{});
    return dom_.start_array(n);
  }
  bool end_array() {
    frames_.pop_back();
    return value(dom_.end_array());
  }
  template <class Exception>  // the parser's own type (parse_error, out_of_range), which the DOM builder throws
  bool parse_error(size_t position, const std::string& token, const Exception& e) {
    return dom_.parse_error(position, token, e);
  }

 private:
  // An element has been read: the enclosing array's index moves on.
  bool value(bool ok) {
    if (!frames_.empty() && !frames_.back().object) ++frames_.back().index;
    return ok;
  }

  nlohmann::detail::json_sax_dom_parser<Json> dom_;
  const std::string& source_;
  std::vector<Frame> frames_;
};

}  // namespace

Json parse_json_unique_keys(std::string_view text, const std::string& source) {
  Json out;
  UniqueKeysReader reader(out, source);
  Json::sax_parse(text.begin(), text.end(), &reader);
  return out;
}

}  // namespace isoflop

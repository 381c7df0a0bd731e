// Strict JSON reading: nlohmann's parser with a callback that keeps the keys of every open object.
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

}  // namespace

Json parse_json_unique_keys(std::string_view text, const std::string& source) {
  std::vector<Frame> frames;
  const auto element_done = [&frames] {
    if (!frames.empty() && !frames.back().object) ++frames.back().index;
  };
  const Json::parser_callback_t check = [&](int, Json::parse_event_t event, Json& parsed) {
    switch (event) {
      case Json::parse_event_t::object_start: frames.push_back(Frame{true, {}, {}, 0}); break;
      case Json::parse_event_t::array_start: frames.push_back(Frame{}); break;
      case Json::parse_event_t::object_end:
      case Json::parse_event_t::array_end:
        frames.pop_back();
        element_done();
        break;
      case Json::parse_event_t::key: {
        const std::string& key = parsed.get_ref<const std::string&>();
        if (!frames.back().keys.insert(key).second) {
          const std::string where = path_of(frames);
          throw InputError(source + ": " + (where.empty() ? "" : where + ": ") + "duplicate key '" + key +
                           "' (a key may appear once in an object)");
        }
        frames.back().key = key;
        break;
      }
      case Json::parse_event_t::value: element_done(); break;
    }
    return true;
  };
  return Json::parse(text.begin(), text.end(), check);
}

}  // namespace isoflop

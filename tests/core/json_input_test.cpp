// Strict JSON reading: a repeated key is named with where it is; everything else parses as nlohmann does.
#include "core/json_input.hpp"

#include <doctest/doctest.h>

#include <string>

#include "core/error.hpp"
#include "support/input_error.hpp"

namespace isoflop {
namespace {

std::string refusal(const std::string& text) {
  return test::input_error_message([&] { parse_json_unique_keys(text, "doc.json"); });
}

TEST_CASE("a key twice in one object is refused, naming the key and the object's place") {
  CHECK(refusal(R"({"schema": "a", "schema": "b"})") ==
        "doc.json: duplicate key 'schema' (a key may appear once in an object)");
  CHECK(refusal(R"({"inputs": {"flops": 1, "seq": 2, "flops": 3}})") ==
        "doc.json: inputs: duplicate key 'flops' (a key may appear once in an object)");
  CHECK(refusal(R"({"layouts": [{"tp": 1}, {"pp": 2, "tp": 1, "tp": 2}]})") ==
        "doc.json: layouts[1]: duplicate key 'tp' (a key may appear once in an object)");
  CHECK(refusal(R"({"a": [[1, 2], [{"b": {"c": 1, "c": 1}}]]})") ==
        "doc.json: a[1][0].b: duplicate key 'c' (a key may appear once in an object)");
}

TEST_CASE("the same key in different objects, and every other document, reads as nlohmann reads it") {
  const std::string text = R"({"a": {"x": 1}, "b": {"x": 2}, "c": [{"x": 3}, {"x": 4}], "x": [1, "x"]})";
  CHECK(parse_json_unique_keys(text, "doc.json") == nlohmann::ordered_json::parse(text));
  CHECK(parse_json_unique_keys("[]", "doc.json") == nlohmann::ordered_json::array());
  CHECK(parse_json_unique_keys("3", "doc.json") == 3);
  CHECK_THROWS_AS(parse_json_unique_keys(R"({"a": )", "doc.json"), nlohmann::ordered_json::parse_error);
  CHECK_THROWS_AS(parse_json_unique_keys("", "doc.json"), nlohmann::ordered_json::parse_error);
}

TEST_CASE("a long array of objects (a train result's curve) reads whole, and a repeat in its last is found") {
  std::string text = R"({"curve": [)";
  const int n = 100000;
  for (int i = 0; i < n; ++i) text += (i ? "," : "") + std::string(R"({"step": )") + std::to_string(i) + R"(, "loss": 1.5})";
  text += "]}";
  const nlohmann::ordered_json read = parse_json_unique_keys(text, "doc.json");
  CHECK(read == nlohmann::ordered_json::parse(text));
  CHECK(read.at("curve").size() == static_cast<size_t>(n));
  // Every value knows its place (the documents' readers name a bad field by it, through JSON_DIAGNOSTICS).
  const auto place = [](const nlohmann::ordered_json& node) {
    return std::string(nlohmann::ordered_json::other_error::create(501, "here", &node).what());
  };
  CHECK(place(read.at("curve").at(0).at("loss")).find("(/curve/0/loss) here") != std::string::npos);
  CHECK(place(read.at("curve").at(n - 1).at("step")).find("(/curve/99999/step) here") != std::string::npos);
  text.insert(text.size() - 3, R"(, "step": 1)");
  CHECK(refusal(text) == "doc.json: curve[99999]: duplicate key 'step' (a key may appear once in an object)");
}

}  // namespace
}  // namespace isoflop

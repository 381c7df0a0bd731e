// Machine-readable output: the one result document (JSON) rendered as JSON, YAML or CSV.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "core/enum_names.hpp"

namespace isoflop::report {

using Json = nlohmann::ordered_json;

// junit: the check command's JUnit XML report (lib/check/ci_output.hpp); the other commands take
// kDocumentFormatNames, which lacks it.
enum class OutputFormat { kTable, kJson, kYaml, kCsv, kJunit };
inline constexpr EnumNames<OutputFormat, 4> kDocumentFormatNames{{{{OutputFormat::kTable, "table"},
                                                                   {OutputFormat::kJson, "json"},
                                                                   {OutputFormat::kYaml, "yaml"},
                                                                   {OutputFormat::kCsv, "csv"}}}};
inline constexpr EnumNames<OutputFormat, 5> kOutputFormatNames{{{{OutputFormat::kTable, "table"},
                                                                 {OutputFormat::kJson, "json"},
                                                                 {OutputFormat::kYaml, "yaml"},
                                                                 {OutputFormat::kCsv, "csv"},
                                                                 {OutputFormat::kJunit, "junit"}}}};

// Pretty JSON with numbers at full precision (round-trippable doubles), ending in a newline.
std::string to_json_text(const Json& document);

// The same document as YAML (block style), ending in a newline.
std::string to_yaml_text(const Json& document);

// CSV of a whole document, walked the same way for every command: one row per element of the array at the
// dotted path `rows_key` ("layouts", "approach2.budgets"; none: one row), each row carrying the document's other
// values (nested objects flattened to "parent.child" columns, lists of scalars to indexed ones, the schema and
// other tables left out) and the element's values as "<rows_key>.x" columns; arrays inside an element become
// indexed columns ("x.0.y"). No JSON inside cells; numbers in the shortest form that reads back to the same
// double.
std::string to_document_csv(const Json& document, std::string_view rows_key);

// A result document as `format` writes it: the human page `table` renders, the document as JSON or YAML, or
// its CSV with one row per element of `csv_rows` (to_document_csv). JUnit XML is a report of checks, which
// only the check command renders (lib/check/ci_output.hpp): FieldError("format") here.
std::string document_text(OutputFormat format, const Json& document, const std::function<std::string()>& table,
                          std::string_view csv_rows = "");

// Where the first number that is not finite sits ("cost.energy_kwh", "layouts.0.step_time_s"), or "" when
// every number is: JSON has no infinity (it would be written null, which no reader takes for a number).
std::string first_non_finite(const Json& document);

// The shortest text that reads back to the same double ("0.1", "5.76e+23").
std::string number_text(double value);

}  // namespace isoflop::report

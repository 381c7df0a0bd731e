// Tests for lib/parallel/layout_request: a request in words becomes SearchOptions and JobSettings; each bad value
// is a FieldError naming the field in the library's words.
#include "parallel/layout_request.hpp"

#include <doctest/doctest.h>

#include "core/error.hpp"

using namespace isoflop;
using namespace isoflop::parallel;

namespace {
std::string field_of(const LayoutRequest& r) {
  try {
    search_options(r);
  } catch (const FieldError& e) {
    return e.field() + " | " + e.message();
  }
  return "";
}
std::string spell_upper(std::string_view field) { return "<" + std::string(field) + ">"; }
}  // namespace

TEST_CASE("pins, trainer, overlaps, limits, objective and top reach the search options") {
  LayoutRequest r;
  r.pins = {{"tp", "8"}, {"recompute", "full"}, {"sequence_parallel", "on"}, {"zero_stage", "1"}};
  r.trainer = "deepspeed";
  r.overlap_grad_reduce = "on";
  r.tp_comm_overlap = "off";
  r.grad_reduce = "bf16";
  r.max_tp = 4;
  r.max_cp = 2;
  r.objective = "cost";
  r.top_k = 3;
  const SearchOptions o = search_options(r);
  CHECK(o.pins.tp == 8);
  CHECK(o.pins.recompute == Recompute::kFull);
  CHECK(o.pins.sequence_parallel == true);
  CHECK(o.pins.zero_stage == 1);
  CHECK(o.trainer.name == "deepspeed");
  CHECK_FALSE(o.trainer.loaded());
  CHECK(o.time.overlap_grad_reduce == true);
  CHECK(o.time.tp_comm_overlap == false);
  CHECK_FALSE(o.time.overlap_param_gather.has_value());
  CHECK(o.time.grad_reduce == GradReduce::kBf16);
  CHECK(o.max_tp == 4);
  CHECK(o.max_cp == 2);
  CHECK(o.objective == Objective::kTime);  // cost ranks as time
  CHECK(o.top_k == 3);
  LayoutRequest memory;
  memory.objective = "memory";
  CHECK(search_options(memory).objective == Objective::kMemory);
  CHECK(search_options({}) == SearchOptions{});
}

TEST_CASE("a request changes only what it gives over an earlier document's options") {
  SearchOptions o;
  o.pins.pp = 4;
  o.top_k = 7;
  LayoutRequest r;
  r.pins = {{"tp", "2"}};
  apply_layout_request(r, o);
  CHECK(o.pins.pp == 4);
  CHECK(o.pins.tp == 2);
  CHECK(o.top_k == 7);
}

TEST_CASE("bad values are FieldErrors naming the field and what is accepted") {
  const struct {
    std::optional<std::string> LayoutRequest::*field;
    const char* value;
    const char* error;
  } words[] = {
      {&LayoutRequest::trainer, "foo", "trainer | 'foo' is not one of megatron|deepspeed|nemo|fsdp"},
      {&LayoutRequest::overlap_grad_reduce, "maybe", "overlap_grad_reduce | 'maybe' is not one of on|off"},
      {&LayoutRequest::grad_reduce, "fp16", "grad_reduce | 'fp16' is not one of fp32|bf16 (did you mean 'fp32'?)"},
      {&LayoutRequest::objective, "nope", "objective | 'nope' is not one of time|memory|cost|energy"},
  };
  for (const auto& w : words) {
    LayoutRequest r;
    r.*w.field = w.value;
    CHECK(field_of(r) == w.error);
  }
  LayoutRequest pin;
  pin.pins = {{"zero_stage", "4"}};
  CHECK(field_of(pin).rfind("zero_stage | ", 0) == 0);
  LayoutRequest unknown;
  unknown.pins = {{"zz", "1"}};
  CHECK(field_of(unknown) == "zz | is not a knob of the layout search");
}

TEST_CASE("job settings in words") {
  const JobSettings j = job_settings({"eager", "fp8", "on"});
  CHECK(j.attention == AttentionKernel::kEager);
  CHECK(j.precision == MatmulPrecision::kFp8);
  CHECK(j.dropout);
  CHECK(job_settings({}) == JobSettings{});
  CHECK_THROWS_WITH_AS(job_settings({std::nullopt, std::nullopt, "yes"}), "dropout: 'yes' is not one of on|off",
                       FieldError);
}

TEST_CASE("the infeasibility spelled by the caller: values after the field, a change of kind before it") {
  Infeasibility why;
  why.reason = "no layout fits";
  why.changes = {{"gpus", 4480, std::nullopt, "about"}, {"recompute", std::nullopt, "full", ""},
                 {"gpu", std::nullopt, std::nullopt, "a larger accelerator"}};
  CHECK(describe_spelled(why, spell_upper) ==
        "no layout fits; to fit: <gpus> 4480 (about), or <recompute> full, or a larger accelerator (<gpu>)");
}

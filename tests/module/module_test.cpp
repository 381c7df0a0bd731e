// The CUDA module's C table (lib/train/cuda/module_api.hpp) end to end, through a module that serves the CPU
// backend (tests/module/cpu_module.cpp), loaded with dlopen as `train` loads libisoflop_cuda.so: a backend used
// through the table trains bit for bit as the CPU backend used directly, and an error thrown inside the module
// comes back as the same kind of error with its message.
#include <doctest/doctest.h>

#include <cstdlib>
#include <vector>

#include "core/error.hpp"
#include "train/backend.hpp"
#include "train/layout.hpp"

using namespace isoflop;
using namespace isoflop::train;

namespace {

const ModelConfig kConfig{2, 32, 4, 16, 64};
constexpr int kBatch = 4;

// Every case runs in a process of its own (ctest), so the module is found through the variable on first use.
void use_test_module() { REQUIRE(setenv("ISOFLOP_CUDA_MODULE", ISOFLOP_TEST_MODULE, 1) == 0); }

std::vector<int32_t> tokens(size_t n, int salt) {
  std::vector<int32_t> t(n);
  for (size_t i = 0; i < n; ++i) t[i] = static_cast<int32_t>((i * 7 + static_cast<size_t>(salt) * 13) % kConfig.vocab);
  return t;
}

}  // namespace

TEST_CASE("a backend used through the module's table trains bit for bit as the CPU backend used directly") {
  use_test_module();
  REQUIRE(cuda_built());
  CHECK(cuda_device_count() == 1);
  CHECK(cuda_device_name() == "CPU through the module table");

  const std::unique_ptr<Backend> via = make_cuda_backend(kConfig, kBatch, Precision::kFp32);
  const std::unique_ptr<Backend> direct = make_cpu_backend(kConfig, kBatch, 1);
  CHECK(via->kind() == BackendKind::kCuda);
  CHECK(via->precision() == Precision::kFp32);
  CHECK(via->device() == direct->device());
  CHECK(via->memory_bytes() == direct->memory_bytes());

  const ParameterLayout layout = parameter_layout(kConfig);
  std::vector<float> params(layout.total), moment1(layout.total, 0.01f), moment2(layout.total, 0.02f);
  init_parameters(kConfig, layout, 5, params.data());
  for (Backend* b : {via.get(), direct.get()}) {
    b->set_parameters(params.data());
    b->set_optimizer_state(moment1.data(), moment2.data());
  }
  const size_t n = static_cast<size_t>(kBatch) * static_cast<size_t>(kConfig.seq);
  for (int step = 1; step <= 3; ++step) {
    const std::vector<int32_t> inputs = tokens(n, step), targets = tokens(n, step + 1);
    const double loss = via->forward_backward(inputs.data(), targets.data());
    CHECK(loss == direct->forward_backward(inputs.data(), targets.data()));
    CHECK(loss > 0);
    CHECK(via->grad_norm() == direct->grad_norm());
    std::vector<float> g_via(layout.total), g_direct(layout.total);
    via->get_gradients(g_via.data());
    direct->get_gradients(g_direct.data());
    CHECK(g_via == g_direct);
    AdamWStep adamw;
    adamw.lr = 1e-3;
    adamw.weight_decay = 0.1;
    adamw.t = step;
    via->update(adamw);
    direct->update(adamw);
    CHECK(via->evaluate(targets.data(), inputs.data()) == direct->evaluate(targets.data(), inputs.data()));
  }
  std::vector<float> p_via(layout.total), p_direct(layout.total), m_via(layout.total), v_via(layout.total),
      m_direct(layout.total), v_direct(layout.total);
  via->get_parameters(p_via.data());
  direct->get_parameters(p_direct.data());
  via->get_optimizer_state(m_via.data(), v_via.data());
  direct->get_optimizer_state(m_direct.data(), v_direct.data());
  CHECK(p_via == p_direct);
  CHECK(p_via != params);  // three steps moved them
  CHECK(m_via == m_direct);
  CHECK(v_via == v_direct);
}

TEST_CASE("an error thrown inside the module comes back as the same kind of error with its message") {
  use_test_module();
  CHECK_THROWS_WITH_AS(make_cuda_backend(kConfig, kBatch, Precision::kBf16), "the test module trains in fp32 only",
                       InputError);
  try {
    make_cuda_backend(kConfig, 13, Precision::kFp32);
    FAIL("no error");
  } catch (const InputError& e) {
    FAIL("an InputError: " << e.what());
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == "test module: batch 13 refused");
  }
}

// The module side of module_api.hpp: a table whose functions call a train::Backend made by `Make` and turn
// whatever it throws into a status and a message, so no exception leaves the module. Header-only: the CUDA
// module compiles it with its backend, and tests/train with the CPU one (a module that needs no GPU).
#pragma once

#include <cstdio>
#include <exception>
#include <memory>

#include "core/error.hpp"
#include "train/cuda/module_api.hpp"

namespace isoflop::train::module {

inline void write_message(char* buffer, size_t size, const char* message) {
  if (buffer && size > 0) std::snprintf(buffer, size, "%s", message);
}

// Runs `call`; an InputError becomes kIsoflopInputError, anything else kIsoflopError, with its message.
template <class Call>
int guarded(char* error, size_t error_size, Call&& call) noexcept {
  try {
    call();
    return kIsoflopOk;
  } catch (const InputError& e) {
    write_message(error, error_size, e.what());
    return kIsoflopInputError;
  } catch (const std::exception& e) {
    write_message(error, error_size, e.what());
    return kIsoflopError;
  } catch (...) {
    write_message(error, error_size, "unknown error");
    return kIsoflopError;
  }
}

inline Backend* backend(IsoflopBackend* b) { return reinterpret_cast<Backend*>(b); }
inline const Backend* backend(const IsoflopBackend* b) { return reinterpret_cast<const Backend*>(b); }

// The table for backends made by `Make` (std::unique_ptr<Backend>(const ModelConfig&, int, Precision)).
template <auto Make>
IsoflopCudaModule module_table(int (*device_count)(char*, size_t), void (*device_name)(char*, size_t)) {
  IsoflopCudaModule t{};
  t.abi = kIsoflopCudaAbi;
  t.model_config_size = sizeof(ModelConfig);
  t.adamw_step_size = sizeof(AdamWStep);
  t.device_count = device_count;
  t.device_name = device_name;
  t.create = [](const ModelConfig* config, int batch, Precision precision, IsoflopBackend** made, char* e, size_t n) {
    return guarded(e, n, [&] { *made = reinterpret_cast<IsoflopBackend*>(Make(*config, batch, precision).release()); });
  };
  t.destroy = [](IsoflopBackend* b) { delete backend(b); };
  t.device = [](const IsoflopBackend* b, char* name, size_t name_size, char* e, size_t n) {
    return guarded(e, n, [&] { write_message(name, name_size, backend(b)->device().c_str()); });
  };
  t.set_parameters = [](IsoflopBackend* b, const float* p, char* e, size_t n) {
    return guarded(e, n, [&] { backend(b)->set_parameters(p); });
  };
  t.get_parameters = [](const IsoflopBackend* b, float* p, char* e, size_t n) {
    return guarded(e, n, [&] { backend(b)->get_parameters(p); });
  };
  t.set_optimizer_state = [](IsoflopBackend* b, const float* m, const float* v, char* e, size_t n) {
    return guarded(e, n, [&] { backend(b)->set_optimizer_state(m, v); });
  };
  t.get_optimizer_state = [](const IsoflopBackend* b, float* m, float* v, char* e, size_t n) {
    return guarded(e, n, [&] { backend(b)->get_optimizer_state(m, v); });
  };
  t.forward_backward = [](IsoflopBackend* b, const int32_t* in, const int32_t* out, double* loss, char* e, size_t n) {
    return guarded(e, n, [&] { *loss = backend(b)->forward_backward(in, out); });
  };
  t.evaluate = [](IsoflopBackend* b, const int32_t* in, const int32_t* out, double* loss, char* e, size_t n) {
    return guarded(e, n, [&] { *loss = backend(b)->evaluate(in, out); });
  };
  t.grad_norm = [](IsoflopBackend* b, double* norm, char* e, size_t n) {
    return guarded(e, n, [&] { *norm = backend(b)->grad_norm(); });
  };
  t.get_gradients = [](const IsoflopBackend* b, float* g, char* e, size_t n) {
    return guarded(e, n, [&] { backend(b)->get_gradients(g); });
  };
  t.update = [](IsoflopBackend* b, const AdamWStep* step, char* e, size_t n) {
    return guarded(e, n, [&] { backend(b)->update(*step); });
  };
  t.memory_bytes = [](const IsoflopBackend* b, size_t* bytes, char* e, size_t n) {
    return guarded(e, n, [&] { *bytes = backend(b)->memory_bytes(); });
  };
  return t;
}

}  // namespace isoflop::train::module

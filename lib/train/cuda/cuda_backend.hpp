// The CUDA backend's entry points, callable from plain C++ (no CUDA headers here).
#pragma once

#include <memory>
#include <string>

#include "train/backend.hpp"

namespace isoflop::train::cuda {

// Devices the CUDA driver reports; 0 when there is no driver, no device, or any other error.
int device_count();
// Name of device 0 as the driver reports it ("NVIDIA H200").
std::string device_name();

// A backend on device 0 with every buffer allocated here, once (the steady-state loop allocates nothing).
std::unique_ptr<Backend> make_backend(const ModelConfig& config, int batch, Precision precision);

}  // namespace isoflop::train::cuda

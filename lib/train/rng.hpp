// A small, portable, seedable random generator (xoshiro256**) whose state can be saved in a checkpoint;
// std::normal_distribution is not specified bit-for-bit across standard libraries, so the trainer draws its
// own normals (Box–Muller) to keep initialisation identical everywhere.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>

namespace isoflop::train {

class Rng {
 public:
  explicit Rng(uint64_t seed = 0) {
    // splitmix64 expands the seed into the four state words (Vigna's recommendation for xoshiro).
    uint64_t x = seed;
    for (auto& s : state_) {
      x += 0x9e3779b97f4a7c15ULL;
      uint64_t z = x;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
      s = z ^ (z >> 31);
    }
  }

  uint64_t next() {
    const uint64_t result = rotl(state_[1] * 5, 7) * 9;
    const uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotl(state_[3], 45);
    return result;
  }

  // Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

  // Uniform integer in [0, n).
  uint64_t below(uint64_t n) { return static_cast<uint64_t>(uniform() * static_cast<double>(n)) % n; }

  // Standard normal by Box–Muller (one value per call; no cached second value, so the state is all there is).
  double normal() {
    double u1 = uniform();
    while (u1 <= 0) u1 = uniform();
    const double u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }

  const std::array<uint64_t, 4>& state() const { return state_; }
  void set_state(const std::array<uint64_t, 4>& s) { state_ = s; }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::array<uint64_t, 4> state_{};
};

}  // namespace isoflop::train

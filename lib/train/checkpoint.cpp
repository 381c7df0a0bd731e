// Binary checkpoint encoding with a checksum, and atomic saving.
#include "train/checkpoint.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

#include "core/atomic_file.hpp"
#include "core/error.hpp"

namespace isoflop::train {
namespace {

constexpr char kMagic[8] = {'I', 'S', 'O', 'F', 'L', 'O', 'P', 'C'};
constexpr uint32_t kVersion = 3;  // 2: the device the state was computed on; 3: the job's fields and changes

uint64_t fnv1a(const char* data, size_t n) {
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < n; ++i) {
    h ^= static_cast<uint8_t>(data[i]);
    h *= 1099511628211ULL;
  }
  return h;
}

// The host is little-endian (x86-64, aarch64); values are stored as their bytes.
class Writer {
 public:
  template <typename T>
  void put(const T& v) {
    out_.append(reinterpret_cast<const char*>(&v), sizeof(T));
  }
  void floats(const std::vector<float>& v) {
    put<uint64_t>(v.size());
    out_.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float));
  }
  void text(const std::string& s) {
    put<uint64_t>(s.size());
    out_.append(s);
  }
  std::string& str() { return out_; }
  void reserve(size_t n) { out_.reserve(n); }

 private:
  std::string out_;
};

class Reader {
 public:
  Reader(const std::string& bytes, size_t end, std::string path) : b_(bytes), end_(end), path_(std::move(path)) {}
  template <typename T>
  T get() {
    need(sizeof(T));
    T v;
    std::memcpy(&v, b_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return v;
  }
  std::vector<float> floats() {
    const uint64_t n = get<uint64_t>();
    if (n > (end_ - at_) / sizeof(float)) fail("truncated tensor");
    std::vector<float> v(n);
    std::memcpy(v.data(), b_.data() + at_, n * sizeof(float));
    at_ += n * sizeof(float);
    return v;
  }
  std::string text() {
    const uint64_t n = get<uint64_t>();
    if (n > end_ - at_) fail("truncated text");
    std::string s(b_.data() + at_, n);
    at_ += n;
    return s;
  }
  void need(size_t n) {
    if (end_ - at_ < n) fail("truncated");
  }
  // A count, then that many records, each read by read_one: every record takes at least min_bytes, which
  // bounds the count before anything is allocated.
  template <typename T, typename F>
  void records(std::vector<T>& out, size_t min_bytes, const char* what, F read_one) {
    const uint64_t n = get<uint64_t>();
    if (n > (end_ - at_) / min_bytes) fail(std::string("truncated ") + what);
    out.resize(n);
    for (auto& x : out) read_one(x);
  }
  [[noreturn]] void fail(const std::string& why) const {
    throw InputError("checkpoint '" + path_ + "' is corrupt: " + why);
  }
  size_t at() const { return at_; }

 private:
  const std::string& b_;
  size_t end_;
  size_t at_ = 0;
  std::string path_;
};

}  // namespace

std::string encode_checkpoint(const CheckpointState& s) {
  Writer w;
  // One allocation: a growing string would hold twice the tensors while it moves them.
  w.reserve(4096 + 56 * s.curve.size() + sizeof(float) * (s.params.size() + s.m.size() + s.v.size()));
  w.str().append(kMagic, sizeof(kMagic));
  w.put<uint32_t>(kVersion);
  for (int v : {s.model.layers, s.model.d_model, s.model.heads, s.model.seq, s.model.vocab}) w.put<int32_t>(v);
  w.put<int64_t>(s.steps_total);
  w.put<uint64_t>(s.job.size());
  for (const auto& f : s.job) {
    w.text(f.name);
    w.text(f.value);
  }
  w.put<uint64_t>(s.changes.size());
  for (const auto& c : s.changes) {
    w.put<int64_t>(c.at_step);
    w.text(c.field);
    w.text(c.from);
    w.text(c.to);
  }
  w.put<int64_t>(s.step);
  w.put<uint64_t>(s.train_position);
  for (uint64_t r : s.rng) w.put<uint64_t>(r);
  w.put<double>(s.elapsed_s);
  w.text(s.device);
  w.put<uint64_t>(s.curve.size());
  for (const auto& p : s.curve) {
    w.put<int64_t>(p.step);
    for (double x : {p.tokens, p.lr, p.train_loss, p.eval_loss, p.grad_norm, p.elapsed_s}) w.put<double>(x);
  }
  w.floats(s.params);
  w.floats(s.m);
  w.floats(s.v);
  w.put<uint64_t>(fnv1a(w.str().data(), w.str().size()));
  return std::move(w.str());
}

CheckpointState decode_checkpoint(const std::string& bytes, const std::string& path) {
  if (bytes.size() < sizeof(kMagic) + 4 + 8 || std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0)
    throw InputError("checkpoint '" + path + "' is not an isoflop checkpoint (bad magic)");
  const size_t body = bytes.size() - 8;
  uint64_t stored;
  std::memcpy(&stored, bytes.data() + body, 8);
  if (stored != fnv1a(bytes.data(), body))
    throw InputError("checkpoint '" + path + "' is corrupt: checksum mismatch (truncated or modified)");
  Reader r(bytes, body, path);
  r.need(sizeof(kMagic));
  for (size_t i = 0; i < sizeof(kMagic); ++i) r.get<char>();
  const uint32_t version = r.get<uint32_t>();
  if (version != kVersion)
    throw InputError("checkpoint '" + path + "' has version " + std::to_string(version) + "; this isoflop reads " +
                     std::to_string(kVersion));
  CheckpointState s;
  s.model.layers = r.get<int32_t>();
  s.model.d_model = r.get<int32_t>();
  s.model.heads = r.get<int32_t>();
  s.model.seq = r.get<int32_t>();
  s.model.vocab = r.get<int32_t>();
  s.steps_total = r.get<int64_t>();
  r.records(s.job, 16, "job fields", [&](auto& f) {
    f.name = r.text();
    f.value = r.text();
  });
  r.records(s.changes, 32, "job changes", [&](auto& c) {
    c.at_step = r.get<int64_t>();
    c.field = r.text();
    c.from = r.text();
    c.to = r.text();
  });
  s.step = r.get<int64_t>();
  s.train_position = r.get<uint64_t>();
  for (auto& x : s.rng) x = r.get<uint64_t>();
  s.elapsed_s = r.get<double>();
  s.device = r.text();
  r.records(s.curve, 56, "loss curve", [&](auto& p) {
    p.step = r.get<int64_t>();
    p.tokens = r.get<double>();
    p.lr = r.get<double>();
    p.train_loss = r.get<double>();
    p.eval_loss = r.get<double>();
    p.grad_norm = r.get<double>();
    p.elapsed_s = r.get<double>();
  });
  s.params = r.floats();
  s.m = r.floats();
  s.v = r.floats();
  if (r.at() != body) r.fail("trailing bytes");
  if (s.m.size() != s.params.size() || s.v.size() != s.params.size()) r.fail("optimizer state size mismatch");
  return s;
}

void save_checkpoint(const std::string& path, const CheckpointState& state) {
  write_file_atomically(path, encode_checkpoint(state), "checkpoint.path");
}

CheckpointState load_checkpoint(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw FieldError("resume", "cannot read checkpoint '" + path + "': " + std::strerror(errno));
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return decode_checkpoint(bytes, path);
}

}  // namespace isoflop::train

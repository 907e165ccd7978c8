// libFuzzer target: `carve run` of small generated modules. The input picks
// a random program (testing/random_program.h: seed and options) and the
// reference interpreter runs it on inputs of the program's run-time shapes
// (docs/fuzzing.md). Generated programs are valid, so an error is a bug too.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "absl/strings/match.h"
#include "grammar/parser.h"
#include "interpreter/evaluator.h"
#include "ir/dtype.h"
#include "passes/infer/infer_type.h"
#include "support/source.h"
#include "testing/random_program.h"

namespace {

uint64_t Take(const uint8_t*& data, size_t& size, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n && size > 0; ++i, ++data, --size) v = (v << 8) | *data;
  return v;
}

[[noreturn]] void Fail(const char* what, const absl::Status& s, const std::string& text) {
  std::fprintf(stderr, "run_fuzz: %s: %s\n%s\n", what, std::string(s.message()).c_str(),
               text.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Drops this input's texts when the input is done (declared first, so it
  // ends after everything parsed from them): an input frees what it
  // allocates, which libFuzzer's per-input leak check requires.
  carve::SourceManager::Scope sources;
  carve::testing::RandomProgramOptions o;
  uint64_t seed = Take(data, size, 8);
  o.max_ops = 1 + int(Take(data, size, 1) % 10);
  o.min_ops = 1;
  o.dynamic_rate = double(Take(data, size, 1) % 5) / 10;
  o.zero_rate = double(Take(data, size, 1) % 5) / 10;
  o.let_rate = o.if_rate = o.tuple_rate = double(Take(data, size, 1) % 3) / 10;
  carve::testing::RandomProgram p = carve::testing::GenerateRandomProgram(seed, o);
  absl::StatusOr<carve::Module> mod = carve::ParseModule("fuzz.relay", p.text);
  if (!mod.ok()) Fail("generated program does not parse", mod.status(), p.text);
  if (absl::Status s = carve::InferType(*mod); !s.ok()) Fail("does not type-check", s, p.text);
  // A program ending in an op without an interpreter kernel is for the
  // parse/type/partition checks only (testing/random_program.h).
  if (!p.runnable) return 0;
  std::vector<carve::NDArray> args;
  uint64_t state = seed;
  for (const carve::testing::RandomInput& in : p.inputs) {
    carve::NDArray a = carve::NDArray::Empty(*carve::DataType::Parse(in.dtype), in.shape);
    for (int64_t i = 0; i < a.num_elements(); ++i) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      a.SetFromDouble(i, in.dtype == "bool" ? double(state >> 63)
                                            : double(int64_t(state >> 40) % 2000) / 1000.0 - 1);
    }
    args.push_back(std::move(a));
  }
  carve::InterpreterOptions io;
  io.external = nullptr;
  carve::Interpreter interp(*mod, io);
  absl::StatusOr<std::vector<carve::NDArray>> out = interp.RunFlat("main", args);
  // The one error a valid program may end in on purpose: nn.batch_matmul of
  // batches 0 and 1, which TVM's type relation types as batch 1 with no value
  // to compute (tests/random/known_failures.txt, class 22.5).
  if (!out.ok() && absl::StrContains(out.status().message(), "an empty batch")) return 0;
  if (!out.ok()) Fail("run failed", out.status(), p.text);
  return 0;
}

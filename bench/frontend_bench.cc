// Front-end throughput: parse, InferType, print and the `carve fmt` /
// `carve check` combinations on generated ResNet-like and transformer-like
// programs. Reports MB/s of Relay text and ops/s (operator calls).
//
//   build/bench/frontend_bench --benchmark_counters_tabular=true
//
// BM_PrintFile / BM_PrintFileCold time PrintModule alone on a module read
// from a file (the BYOC benchmark's output by default; see PrintFile);
// BM_PrintFileStreamCold times PrintModuleTo, as `carve opt -o` uses it.
#include <benchmark/benchmark.h>

#include <malloc.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string_view>

#include "bench/relay_gen.h"
#include "grammar/parser.h"
#include "grammar/printer.h"
#include "passes/infer/infer_type.h"
#include "support/page_faults.h"

namespace carve::bench {
namespace {

struct Input {
  std::string text;
  int64_t ops = 0;
};

const Input& GetInput(GraphKind kind, int64_t ops) {
  static auto* cache = new std::map<std::pair<int, int64_t>, Input>();
  auto key = std::make_pair(static_cast<int>(kind), ops);
  auto it = cache->find(key);
  if (it != cache->end()) return it->second;
  Input in;
  in.text = GenerateRelay(kind, ops);
  // Count operator calls: every `(` that follows an identifier char.
  for (size_t i = 1; i < in.text.size(); ++i) {
    char p = in.text[i - 1];
    if (in.text[i] == '(' && (std::isalnum(static_cast<unsigned char>(p)) || p == '_')) {
      ++in.ops;
    }
  }
  in.ops -= 1;  // `def @main(`
  return cache->emplace(key, std::move(in)).first->second;
}

void SetCounters(benchmark::State& state, const Input& in) {
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(in.text.size()));
  state.counters["ops"] = double(in.ops);
  state.counters["ops/s"] = benchmark::Counter(double(in.ops) * double(state.iterations()),
                                               benchmark::Counter::kIsRate);
}

GraphKind KindOf(benchmark::State& state) { return static_cast<GraphKind>(state.range(0)); }

void BM_Parse(benchmark::State& state) {
  const Input& in = GetInput(KindOf(state), state.range(1));
  for (auto _ : state) {
    auto mod = ParseModule("bench.relay", in.text);
    if (!mod.ok()) state.SkipWithError(std::string(mod.status().message()).c_str());
    benchmark::DoNotOptimize(mod);
  }
  SetCounters(state, in);
}

void BM_InferType(benchmark::State& state) {
  const Input& in = GetInput(KindOf(state), state.range(1));
  auto mod = ParseModule("bench.relay", in.text);
  if (!mod.ok()) {
    state.SkipWithError(std::string(mod.status().message()).c_str());
    return;
  }
  for (auto _ : state) {
    absl::Status s = InferType(*mod);
    if (!s.ok()) state.SkipWithError(std::string(s.message()).c_str());
  }
  SetCounters(state, in);
}

void BM_Print(benchmark::State& state) {
  const Input& in = GetInput(KindOf(state), state.range(1));
  auto mod = ParseModule("bench.relay", in.text);
  if (!mod.ok()) {
    state.SkipWithError(std::string(mod.status().message()).c_str());
    return;
  }
  for (auto _ : state) {
    std::string out = PrintModule(*mod);
    benchmark::DoNotOptimize(out);
  }
  SetCounters(state, in);
}

// PrintModule alone on a module read from a file: by default the output of
// the BYOC benchmark pipeline (partitioned functions with composite bodies),
// `$CARVE_PRINT_FILE` to choose another. Skipped when the file is missing.
// `streamed`: PrintModuleTo in 1 MB pieces into a sink that only counts them
// (as `carve opt` writes them to a file), instead of one string.
void PrintFile(benchmark::State& state, bool streamed = false) {
  const char* env = std::getenv("CARVE_PRINT_FILE");
  std::string path = env != nullptr ? env : "/tmp/out100k.relay";
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    state.SkipWithError(("cannot read " + path).c_str());
    return;
  }
  std::stringstream text;
  text << file.rdbuf();
  auto mod = ParseModule(path, text.str());
  if (!mod.ok()) {
    state.SkipWithError(std::string(mod.status().message()).c_str());
    return;
  }
  size_t bytes = 0;
  long faults = MinorPageFaults();
  for (auto _ : state) {
    if (streamed) {
      bytes = 0;
      PrintModuleTo(*mod, PrintOptions{}, [&bytes](std::string_view piece) {
        benchmark::DoNotOptimize(piece.data());
        bytes += piece.size();
      });
    } else {
      std::string out = PrintModule(*mod);
      bytes = out.size();
      benchmark::DoNotOptimize(out);
    }
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(bytes));
  state.counters["faults"] = benchmark::Counter(
      double(MinorPageFaults() - faults), benchmark::Counter::kAvgIterations);
}

// Warm: memory freed by one iteration is reused by the next (glibc raises
// its mmap threshold to the largest freed block).
void BM_PrintFile(benchmark::State& state) { PrintFile(state); }

// Cold, as in a `carve opt` process, which prints once: blocks from 128 KiB
// on are mapped afresh and unmapped when freed, so every iteration pays the
// page faults of the memory it touches. (Fixes the thresholds for the rest of
// the process, so it runs last.)
void BM_PrintFileCold(benchmark::State& state) {
  mallopt(M_MMAP_THRESHOLD, 128 * 1024);
  mallopt(M_TRIM_THRESHOLD, 128 * 1024);
  PrintFile(state);
}

// As BM_PrintFileCold, streamed: memory stays bounded by the pieces.
void BM_PrintFileStreamCold(benchmark::State& state) {
  mallopt(M_MMAP_THRESHOLD, 128 * 1024);
  mallopt(M_TRIM_THRESHOLD, 128 * 1024);
  PrintFile(state, /*streamed=*/true);
}

// `carve fmt`: parse + build IR + print.
void BM_Fmt(benchmark::State& state) {
  const Input& in = GetInput(KindOf(state), state.range(1));
  for (auto _ : state) {
    auto mod = ParseModule("bench.relay", in.text);
    if (!mod.ok()) {
      state.SkipWithError(std::string(mod.status().message()).c_str());
      break;
    }
    std::string out = PrintModule(*mod);
    benchmark::DoNotOptimize(out);
  }
  SetCounters(state, in);
}

// `carve check`: parse + InferType.
void BM_Check(benchmark::State& state) {
  const Input& in = GetInput(KindOf(state), state.range(1));
  for (auto _ : state) {
    auto mod = ParseModule("bench.relay", in.text);
    if (!mod.ok() || !InferType(*mod).ok()) {
      state.SkipWithError("check failed");
      break;
    }
  }
  SetCounters(state, in);
}

constexpr int64_t kResNet = static_cast<int64_t>(GraphKind::kResNet);
constexpr int64_t kTransformer = static_cast<int64_t>(GraphKind::kTransformer);

#define CARVE_FRONTEND_BENCH(fn)                                                         \
  BENCHMARK(fn)->ArgNames({"kind", "ops"})->Args({kResNet, 100000})                      \
      ->Args({kTransformer, 100000})->Unit(benchmark::kMillisecond)->UseRealTime()

CARVE_FRONTEND_BENCH(BM_Parse);
CARVE_FRONTEND_BENCH(BM_InferType);
CARVE_FRONTEND_BENCH(BM_Print);
CARVE_FRONTEND_BENCH(BM_Fmt);
CARVE_FRONTEND_BENCH(BM_Check);
// Fixed counts, so that totals (`perf stat`) compare between builds.
BENCHMARK(BM_PrintFile)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(20);
BENCHMARK(BM_PrintFileCold)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(20);
BENCHMARK(BM_PrintFileStreamCold)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(20);

}  // namespace
}  // namespace carve::bench

BENCHMARK_MAIN();

// `carve import` speed: ImportOnnx (protobuf parse, initializers to
// NDArrays, graph walk) from a model's bytes in memory, and the same plus
// printing the Relay text. Bytes/s counts initializer data. Models:
// ../shared/models/squeezenet1_1.onnx, and $CARVE_BIG_ONNX (a >= 100 MB model
// written by bench/gen_big_onnx.py; bench/onnx_import.sh does both).
#include <fstream>
#include <sstream>

#include "benchmark/benchmark.h"
#include "frontend/onnx/import.h"
#include "grammar/printer.h"

namespace carve {
namespace {

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void ImportFile(benchmark::State& state, const std::string& path, bool print) {
  std::string bytes = ReadAll(path);
  if (bytes.empty()) {
    state.SkipWithError(("cannot read " + path).c_str());
    return;
  }
  int64_t init_bytes = 0;
  for (auto _ : state) {
    auto r = onnx_import::ImportOnnx(bytes, {});
    if (!r.ok()) {
      state.SkipWithError(std::string(r.status().message()).c_str());
      return;
    }
    init_bytes = r->initializer_bytes;
    if (print) benchmark::DoNotOptimize(PrintModule(r->module).size());
  }
  state.SetBytesProcessed(state.iterations() * init_bytes);
  state.counters["model_MB"] = double(bytes.size()) / 1e6;
}

// $CARVE_SHARED_DIR, or ../shared from the working directory.
std::string SqueezeNetPath() {
  const char* shared = std::getenv("CARVE_SHARED_DIR");
  return std::string(shared ? shared : "../shared") + "/models/squeezenet1_1.onnx";
}

void BM_ImportSqueezeNet(benchmark::State& state) { ImportFile(state, SqueezeNetPath(), false); }
void BM_ImportSqueezeNetAndPrint(benchmark::State& state) {
  ImportFile(state, SqueezeNetPath(), true);
}
void BM_ImportBig(benchmark::State& state) {
  const char* path = std::getenv("CARVE_BIG_ONNX");
  if (path == nullptr) {
    state.SkipWithError("set CARVE_BIG_ONNX (bench/onnx_import.sh)");
    return;
  }
  ImportFile(state, path, false);
}

BENCHMARK(BM_ImportSqueezeNet)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ImportSqueezeNetAndPrint)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ImportBig)->Unit(benchmark::kMillisecond)->Iterations(5);

}  // namespace
}  // namespace carve

BENCHMARK_MAIN();

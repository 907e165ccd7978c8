// libFuzzer target: the BYOC flow of a built-in backend (TVM's
// partition_for_<backend>: prep passes, MergeComposite, AnnotateTarget,
// MergeCompilerRegions, PartitionGraph) on each module that parses and
// type-checks, then the printer on the result (docs/fuzzing.md).
//
// One backend per input, picked by a hash of the input's bytes: running all
// five on every input made an execution five pipelines (~30 ms at -O1), too
// slow for a long run; a hash keeps an input's backend fixed (a crash file
// replays the same pipeline) while mutations spread over every backend.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "backends/partition.h"
#include "backends/specs.h"
#include "grammar/parser.h"
#include "grammar/printer.h"
#include "passes/infer/infer_type.h"
#include "support/source.h"

// FNV-1a: stable across runs and platforms, unlike std::hash.
static uint64_t InputHash(const uint8_t* data, size_t size) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < size; ++i) h = (h ^ data[i]) * 0x100000001b3ull;
  return h;
}

// Runs every backend's pipeline once before the first input, outside any
// SourceManager::Scope: the backends' specs and pattern caches are parsed
// lazily and kept for the process, so their texts must not be registered
// inside an input's scope (which would drop them). No scope here: the
// warm-up module's text stays too.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  for (std::string_view backend : carve::BuiltinBackendNames()) {
    absl::StatusOr<carve::Module> mod = carve::ParseModule(
        "warm-up.relay",
        "#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(1, 8), float32]) { nn.relu(%x) }\n");
    if (!mod.ok()) {
      std::fprintf(stderr, "byoc_fuzz: the warm-up module: %s\n", mod.status().ToString().c_str());
      std::abort();
    }
    if (absl::Status s = carve::InferType(*mod); !s.ok()) {
      std::fprintf(stderr, "byoc_fuzz: the warm-up module: %s\n", s.ToString().c_str());
      std::abort();
    }
    (void)carve::PartitionForBackend(*std::move(mod), backend);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Drops this input's texts when the input is done (declared first, so it
  // ends after everything parsed from them): an input frees what it
  // allocates, which libFuzzer's per-input leak check requires.
  carve::SourceManager::Scope sources;
  std::string text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<carve::Module> mod = carve::ParseModule("fuzz.relay", text);
  if (!mod.ok() || !carve::InferType(*mod).ok()) return 0;
  static const std::vector<std::string_view> backends = carve::BuiltinBackendNames();
  std::string_view backend = backends[InputHash(data, size) % backends.size()];
  absl::StatusOr<carve::Module> out = carve::PartitionForBackend(*std::move(mod), backend);
  if (out.ok()) (void)carve::PrintModule(*out);
  return 0;
}

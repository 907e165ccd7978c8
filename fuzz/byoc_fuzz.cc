// libFuzzer target: the BYOC flow of every built-in backend (TVM's
// partition_for_<backend>: prep passes, MergeComposite, AnnotateTarget,
// MergeCompilerRegions, PartitionGraph) on each module that parses and
// type-checks, then the printer on the result (docs/fuzzing.md).
#include <cstddef>
#include <cstdint>
#include <string>

#include "backends/partition.h"
#include "backends/specs.h"
#include "grammar/parser.h"
#include "grammar/printer.h"
#include "passes/infer/infer_type.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  for (std::string_view backend : carve::BuiltinBackendNames()) {
    absl::StatusOr<carve::Module> mod = carve::ParseModule("fuzz.relay", text);
    if (!mod.ok() || !carve::InferType(*mod).ok()) return 0;
    absl::StatusOr<carve::Module> out = carve::PartitionForBackend(*std::move(mod), backend);
    if (out.ok()) (void)carve::PrintModule(*out);
  }
  return 0;
}

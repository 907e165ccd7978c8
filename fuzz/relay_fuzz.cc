// libFuzzer target: the .relay parser, then InferType and the printer on
// whatever parses (docs/fuzzing.md). Any input must end in a module or an
// error status: a crash, a sanitizer report, a leak or a hang is a bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include "grammar/parser.h"
#include "grammar/printer.h"
#include "passes/infer/infer_type.h"
#include "support/source.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Drops this input's texts when the input is done (declared first, so it
  // ends after everything parsed from them): an input frees what it
  // allocates, which libFuzzer's per-input leak check requires.
  carve::SourceManager::Scope sources;
  std::string text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<carve::Module> mod = carve::ParseModule("fuzz.relay", std::move(text));
  if (!mod.ok()) return 0;
  if (!carve::InferType(*mod).ok()) return 0;
  (void)carve::PrintModule(*mod);
  return 0;
}

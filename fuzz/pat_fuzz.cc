// libFuzzer target: the .pat pattern-DSL parser and printer (docs/fuzzing.md).
#include <cstddef>
#include <cstdint>
#include <string>

#include "grammar/pattern_parser.h"
#include "support/source.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Drops this input's texts when the input is done (declared first, so it
  // ends after everything parsed from them): an input frees what it
  // allocates, which libFuzzer's per-input leak check requires.
  carve::SourceManager::Scope sources;
  std::string text(reinterpret_cast<const char*>(data), size);
  (void)carve::ParsePatternFile("fuzz.pat", std::move(text));
  return 0;
}

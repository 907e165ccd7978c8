// libFuzzer target: the .pat pattern-DSL parser and printer (docs/fuzzing.md).
#include <cstddef>
#include <cstdint>
#include <string>

#include "grammar/pattern_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  (void)carve::ParsePatternFile("fuzz.pat", std::move(text));
  return 0;
}

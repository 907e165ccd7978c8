// libFuzzer target: the .npy reader (docs/fuzzing.md); what it accepts must
// serialize again.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "interpreter/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<carve::NDArray> a = carve::ParseNpy(bytes);
  if (a.ok()) (void)carve::SerializeNpy(*a);
  return 0;
}

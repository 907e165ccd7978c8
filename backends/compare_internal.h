// Pieces of `run --compare` (backends/compare.h) shared by its files:
// compare.cc (the differential run), compare_tensors.cc (the rules),
// compare_recording.cc (what the backend runtimes received and returned)
// and compare_render.cc (the report's text). Not for other callers.
#pragma once

#include <string>

#include "backends/compare.h"
#include "ir/ndarray.h"

namespace carve::compare_internal {

// "Tensor[(1, 10), float32]": the type of a run-time tensor.
std::string TypeText(const NDArray& t);

// A float failure whose inputs (`inputs`: the largest value received, by the
// composite or by any composite for an output) dwarf the values compared.
bool LikelyCancellation(const ErrorStats& s, double inputs);

}  // namespace carve::compare_internal

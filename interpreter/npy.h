// NumPy .npy files: the tensor format of `carve run` inputs, parameters and
// outputs.
//
// Reading accepts format versions 1.0, 2.0 and 3.0, C order, and the dtypes
// carve computes with: '<f2' '<f4' '<f8' '|i1' '<i2' '<i4' '<i8' '|u1' '<u2'
// '<u4' '<u8' '|b1' (also '=' and, byte-swapped on load, '>' byte orders).
// Fortran order, other dtypes and malformed or truncated files are
// InvalidArgument errors with a message saying what is wrong; reading never
// crashes. Writing produces what numpy.save writes (version 1.0, or 2.0 for
// a header over 64 KiB), byte for byte.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ir/ndarray.h"

namespace carve {

// Decodes the contents of a .npy file.
absl::StatusOr<NDArray> ParseNpy(std::string_view bytes);
// Encodes `array` as a .npy file.
absl::StatusOr<std::string> SerializeNpy(const NDArray& array);

// Reads `path` (errors name the file).
absl::StatusOr<NDArray> ReadNpyFile(const std::string& path);
// Writes `array` to `path`.
absl::Status WriteNpyFile(const std::string& path, const NDArray& array);

// The numpy descr of a dtype ("<f4", "|b1"), or an error for dtypes .npy
// cannot hold in carve's set.
absl::StatusOr<std::string> NpyDescr(DataType dtype);

}  // namespace carve

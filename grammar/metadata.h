// The `#[metadata]` section of Relay text: TVM's JSON node-graph
// serialisation with base64 NDArrays (byte layout: tvm-reference.md 9).
//
// Reading: `meta[relay.Constant][i]` entries (with their tensor data) and
// attrs objects such as `meta[relay.attrs.CompilerAttrs][i]`.
// Writing: the constants a printed module references, in the same format, so
// that carve (and TVM) read it back.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/attrs.h"
#include "ir/ndarray.h"

namespace carve {

// One attrs object from the section: its type key and fields. Field values
// are kept as TVM stores them (strings for scalars) and converted by the
// parser against the op's schema.
struct MetaAttrs {
  std::string type_key;
  std::vector<std::pair<std::string, AttrValue>> fields;
};

struct Metadata {
  std::vector<NDArray> constants;                      // meta[relay.Constant][i]
  std::map<std::string, std::vector<MetaAttrs>> attrs;  // meta[<attrs type key>][i]
};

// Parses the JSON text that follows `#[metadata]`. Errors are plain messages
// (the caller attaches the span of the section).
absl::StatusOr<Metadata> ParseMetadata(std::string_view json_text);

// The JSON text (without the `#[metadata]` line) holding `constants` as
// relay.Constant nodes, deterministic byte for byte.
std::string WriteMetadata(const std::vector<NDArray>& constants);

// TVM's NDArray binary format, little endian (tvm-reference.md 9).
std::string EncodeNDArray(const NDArray& array);
absl::StatusOr<NDArray> DecodeNDArray(std::string_view bytes);

std::string Base64Encode(std::string_view bytes);
absl::StatusOr<std::string> Base64Decode(std::string_view text);

}  // namespace carve

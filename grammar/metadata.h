// The `#[metadata]` section of Relay text: TVM's JSON node-graph
// serialisation with base64 NDArrays (byte layout: tvm-reference.md 9).
//
// Reading: `meta[relay.Constant][i]` entries (with their tensor data) and
// attrs objects such as `meta[relay.attrs.CompilerAttrs][i]`.
// Writing: the constants a printed module references, in the same format, so
// that carve (and TVM) read it back.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/attrs.h"
#include "ir/ndarray.h"
#include "ir/virtual_device.h"

namespace carve {

// One attrs object from the section: its type key and fields, in the
// section's (alphabetical) order. When the type key names a registered schema
// (FindAttrsSchema), each field is decoded by its declared AttrType: numbers
// and bools from their string form, node references resolved into arrays of
// IntImm / FloatImm / strings, null references to null. Fields of unknown
// attrs types, and fields a schema does not declare, keep TVM's raw string;
// the parser reports them when they are used.
struct MetaAttrs {
  std::string type_key;
  std::vector<std::pair<std::string, AttrValue>> fields;
};

struct Metadata {
  std::vector<NDArray> constants;                       // meta[relay.Constant][i]
  // meta[VirtualDevice][i]: one object per node of the graph (an entry
  // listed twice is one object, as in TVM's loader); a target is read as
  // its kind's name (ir/virtual_device.h).
  std::vector<const VirtualDevice*> virtual_devices;
  std::map<std::string, std::vector<MetaAttrs>> attrs;  // meta[<attrs type key>][i]
};

// Parses the JSON text that follows `#[metadata]`: the node graph's root Map
// from type key to an Array of nodes. Entries under `relay.Constant` become
// `constants` (their tensors decoded from `b64ndarrays`), entries under
// `VirtualDevice` become `virtual_devices`; entries under any other key
// become `attrs[key]`. Never crashes on malformed input; errors are
// plain messages (the caller attaches the span of the section).
//
// Reading costs the node graph and the tensors: each base64 tensor is
// decoded straight into its NDArray as the reader reaches it (no copy of
// the document as strings). When `json_text` lies in a mapped source file
// (SourceText::FromFile), the pages read are dropped from the resident set as
// the reader passes them (support/source_pages.h): the text of the weights
// and the weights are not both in memory at the peak.
absl::StatusOr<Metadata> ParseMetadata(std::string_view json_text);

// The JSON text (without the `#[metadata]` line) holding `constants` as
// relay.Constant nodes, laid out and formatted as TVM v0.16 writes it (root
// Map -> Array -> relay.Constant nodes with their TensorType, VirtualDevice
// and IntImm shape nodes; `b64ndarrays`; `tvm_version`), so that TVM and
// ParseMetadata read it back. Deterministic byte for byte; no trailing newline.
std::string WriteMetadata(const std::vector<NDArray>& constants);

// One field of an attrs object to write: its declared type, whether TVM
// holds it as an object (a node reference: arrays, Integer, and the Bool /
// String members of ir/attrs_objects.h) and its value.
struct MetaAttrsField {
  std::string name;
  AttrType type;
  bool object;
  AttrValue value;
};

// What a printed module puts in its `#[metadata]` section: constants
// (`meta[relay.Constant][i]`) and attrs objects (`meta[<type key>][i]`, e.g.
// relay.attrs.CompilerAttrs), with the order in which each type key was first
// referenced (TVM's meta table is a std::unordered_map<String, Array>, so the
// keys' order in the Map follows its iteration order; see WriteMetadata).
struct MetadataTables {
  std::vector<NDArray> constants;
  // Per constant, one token per dim of its shape: dims with equal tokens are
  // one IntImm object in TVM (written once, then referred to by index; see
  // grammar/printer_dim_identity.h). A constant without tokens (or with the
  // wrong count) gets a new IntImm node for each dim.
  std::vector<std::vector<int64_t>> constant_dims;
  // Per attrs type key, its objects in index order; each object's fields in
  // the schema's declaration order (the order in which TVM's node indexer
  // numbers the nodes the fields refer to).
  std::map<std::string, std::vector<std::vector<MetaAttrsField>>> attrs;
  // meta[VirtualDevice][i], each written as TVM's VirtualDevice node with
  // its own memory-scope String (and, for a target, a Target node naming
  // only its kind).
  std::vector<const VirtualDevice*> virtual_devices;
  // Every type key above ("relay.Constant" included), in first-use order.
  std::vector<std::string> first_use;
};

// The section for `tables`. The root Map lists the keys in the order TVM v0.16
// (libstdc++) iterates its std::unordered_map: for at most two keys, the
// reverse of first use (every insertion into a small table goes to the front
// of its list). Node indices follow TVM's depth-first indexing: the Map, then
// for each key its Array and the Array's elements (with their own nodes).
std::string WriteMetadata(const MetadataTables& tables);

// TVM's NDArray binary format, little endian (tvm-reference.md 9).
std::string EncodeNDArray(const NDArray& array);
absl::StatusOr<NDArray> DecodeNDArray(std::string_view bytes);
// DecodeNDArray(Base64Decode(text)) without the intermediate string: the
// bytes are decoded into the NDArray's buffer. Errors are the two steps'.
absl::StatusOr<NDArray> DecodeNDArrayBase64(std::string_view text);
// The same, nullopt on any error (it does not say which).
std::optional<NDArray> TryDecodeNDArrayBase64(std::string_view text);

std::string Base64Encode(std::string_view bytes);
absl::StatusOr<std::string> Base64Decode(std::string_view text);

}  // namespace carve

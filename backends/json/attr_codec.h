// Attribute values in the JSON graph: TVM's OpAttrExtractor encoding
// (codegen_json.h) and its inverse, driven by the op's attribute schema.
//
// Encoding of one value as a list of strings:
//   int / IntImm      "3"            bool   "1" / "0" (C++ to_string)
//   double            "0.10000000000000001" (max_digits10 significant digits)
//   string, DataType  as is ("" for an unset dtype)
//   null (None)       [""]
//   array             one string per element; nested arrays (nn.pad's
//                     pad_width) are flattened row by row, where TVM aborts
//                     ("Not supported type: Array")
//
// Decoding reads every field of the op's schema (missing keys take the
// schema default, so hand-written graphs may omit defaults) and rebuilds an
// interned Attrs, so reference kernels run on decoded nodes unchanged. Known
// ambiguity, shared with TVM's format: split's indices_or_sections [3] and 3
// encode alike; one value decodes as the section count unless the caller
// asks for the list reading (DecodeOptions), which it does when the node's
// output types rule the count out (backends/kernels/body_kernel.cc).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/json/json_graph.h"
#include "ir/attrs.h"
#include "ir/op.h"

namespace carve {

// The strings of one value.
std::vector<std::string> EncodeAttrValue(const AttrValue& value);

// Writes every entry of `attrs` (a schema instance: all fields; or a
// dictionary) into `out` as `<prefix><key>`. Existing keys are kept (the
// first writer wins). Null `attrs` writes nothing.
void EncodeAttrs(const Attrs* attrs, std::string_view prefix,
                 std::map<std::string, std::vector<std::string>>& out);

// Rebuilds the attributes of a call of `op` from the node attributes
// `<prefix><field>`. Returns nullptr for ops without a schema. Errors
// (InvalidArgument) name the attribute that does not parse as its field type.
struct DecodeOptions {
  // Read a one-value IntOrInts field (split's indices_or_sections) as a
  // one-element list instead of a scalar.
  bool one_value_as_list = false;
};
absl::StatusOr<const Attrs*> DecodeOpAttrs(const OpInfo* op, const JsonNode& node,
                                           std::string_view prefix = "",
                                           DecodeOptions options = {});

// True when an attribute `<prefix><field>` of `node` has the one-value
// IntOrInts encoding that reads both as a scalar and as a one-element list.
bool HasAmbiguousAttr(const OpInfo* op, const JsonNode& node, std::string_view prefix = "");

// Typed reads of single node attributes, for backend kernels. Each fails
// with InvalidArgument naming the node and key when the attribute is absent
// or malformed.
absl::StatusOr<std::string> NodeString(const JsonNode& node, std::string_view key);
absl::StatusOr<int64_t> NodeInt(const JsonNode& node, std::string_view key);
absl::StatusOr<double> NodeFloat(const JsonNode& node, std::string_view key);
absl::StatusOr<std::vector<int64_t>> NodeInts(const JsonNode& node, std::string_view key);

}  // namespace carve

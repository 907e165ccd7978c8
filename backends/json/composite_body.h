// The `body` attribute of a composite node (serializer.h), parsed: one entry
// per node of the composite body in post-order, each naming an op (or
// "Tuple", "TupleGetItem<i>") and its arguments as node inputs or earlier
// entries.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "backends/json/json_graph.h"

namespace carve {

struct BodyRef {
  bool is_input = true;  // input `index` of the node, else entry `index`
  size_t index = 0;
  friend bool operator==(const BodyRef& a, const BodyRef& b) {
    return a.is_input == b.is_input && a.index == b.index;
  }
};

struct BodyEntry {
  std::string head;  // op name, "Tuple" or "TupleGetItem<i>"
  std::vector<BodyRef> args;
};

// Parses and checks the node's `body` attribute: references point at
// existing inputs and earlier entries. InvalidArgument otherwise or when the
// attribute is missing.
absl::StatusOr<std::vector<BodyEntry>> ParseCompositeBody(const JsonNode& node);

}  // namespace carve

// Partition: replace each group of a pattern's matches (group.h) by a call of
// a function literal holding the matched computation, TVM's `partition`
// (tvm-reference.md 2.5) and the core of MergeComposite:
//
//   %1 = fn (%FunctionVar_0_0, %FunctionVar_0_1, PartitionedFromPattern="nn.conv2d_nn.relu_",
//            Composite="dnnl.conv2d_relu") { ... };
//   %1(%x, %w)
//
// The function's attributes are PartitionedFromPattern first, then the
// caller's (dictionary insertion order = print order, as in TVM). Parameters
// are untyped (InferType fills them from the call site) unless
// PartitionOptions::typed. A group is rewritten
// only when `check` accepts its root (the original, typed node); a rejected
// group still claims its nodes. Rebuilt consumers keep their checked types,
// and the new call gets its root's type, so a following pattern's checks see
// typed roots without re-inference.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/expr.h"
#include "patterns/compile.h"
#include "patterns/pattern.h"

namespace carve {

struct PartitionOptions {
  // Attributes added after PartitionedFromPattern, in order (e.g. Composite).
  std::vector<AttrEntry> attrs;
  // Receives each group's root (before rewriting); false keeps it as is.
  std::function<bool(const Expr* root)> check;
  // Types each function as the module InferType TVM runs after
  // MergeComposite would: a parameter takes its argument's type (as checked
  // type and, as TVM's Resolver does, as annotation), the function returns
  // its root's type. Left untyped when an argument or the root has no type.
  bool typed = false;
};

struct PartitionStats {
  int groups = 0;       // groups found
  int partitioned = 0;  // groups rewritten (check passed)
  int untyped = 0;      // of those, with options.typed, functions left untyped
};

// Partitions every match of `pattern` in `expr` (a function, or any
// expression). Allocates new nodes in `arena`. Returns `expr` itself when
// nothing is partitioned, and when the pattern's root is a function pattern
// (TVM: a function that is not called cannot be partitioned).
absl::StatusOr<const Expr*> Partition(const Pattern& pattern, const Expr* expr, Arena* arena,
                                      const PartitionOptions& options = {},
                                      PartitionStats* stats = nullptr);
const Expr* Partition(const std::shared_ptr<const CompiledPattern>& pattern, const Expr* expr,
                      Arena* arena, const PartitionOptions& options = {},
                      PartitionStats* stats = nullptr);

// One row of a composite table (MergeComposite's pattern table).
struct CompositeEntry {
  std::string name;  // the Composite attribute, e.g. "dnnl.conv2d_relu"
  Pattern pattern;
  std::function<bool(const Expr* root)> check;  // empty: accept all
};

// Applies the entries in order, each a Partition with Composite=<name>:
// earlier entries win, later ones cannot match inside earlier composites but
// can take composite calls as inputs (TVM's MergeComposite semantics).
// `typed`: PartitionOptions::typed for every entry. `stats` (optional)
// receives the sums over the entries.
absl::StatusOr<const Expr*> PartitionComposites(const std::vector<CompositeEntry>& table,
                                                const Expr* expr, Arena* arena,
                                                bool typed = false,
                                                PartitionStats* stats = nullptr);

}  // namespace carve

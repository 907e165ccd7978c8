// MakeBodyKernel (fused_kernels.h): a composite evaluated node by node from
// its `body` attribute on the reference kernels.
#include <algorithm>
#include <cstdlib>
#include <string>
#include <variant>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "backends/json/attr_codec.h"
#include "backends/json/composite_body.h"
#include "backends/json/serializer.h"
#include "backends/kernels/fused_kernels.h"
#include "backends/kernels/ref_op.h"
#include "fmt/format.h"
#include "support/status_macros.h"

namespace carve {
namespace {

// One body entry, prepared: an op on the reference kernels, a tuple of its
// arguments, or a projection.
struct Step {
  std::optional<RefOp> op;
  std::vector<BodyRef> args;
  int project = -1;  // TupleGetItem index
  bool tuple = false;
};

// A value during evaluation: the tensors of an entry (one, or the fields of
// a tuple, flattened).
using Tensors = std::vector<NDArray>;

class BodyKernel : public NodeKernel {
 public:
  explicit BodyKernel(std::vector<Step> steps) : steps_(std::move(steps)) {}

  absl::StatusOr<std::vector<NDArray>> Run(std::span<const NDArray> inputs) override {
    std::vector<Tensors> values(steps_.size());
    for (size_t i = 0; i < steps_.size(); ++i) {
      const Step& s = steps_[i];
      Tensors args;
      for (const BodyRef& r : s.args) {
        if (r.is_input) {
          args.push_back(inputs[r.index]);
        } else {
          args.insert(args.end(), values[r.index].begin(), values[r.index].end());
        }
      }
      if (s.project >= 0) {
        values[i] = {args.at(s.project)};
      } else if (s.tuple) {
        values[i] = std::move(args);
      } else {
        CARVE_ASSIGN_OR_RETURN(values[i], s.op->Run(args));
      }
    }
    return values.back();
  }

 private:
  std::vector<Step> steps_;
};

// The entry index of the anchor: the first op that is neither elementwise,
// broadcast nor injective, else the last op (serializer.h's rule).
size_t AnchorEntry(const std::vector<BodyEntry>& body) {
  size_t last = 0;
  for (size_t i = 0; i < body.size(); ++i) {
    const OpInfo* op = FindOp(body[i].head);
    if (op == nullptr) continue;
    if (op->pattern > OpPattern::kInjective) return i;
    last = i;
  }
  return last;
}

class BodyBuilder {
 public:
  explicit BodyBuilder(const NodeBuildContext& ctx) : ctx_(ctx), node_(ctx.node()) {}

  // Split's one-value indices_or_sections encodes a section count and a
  // one-element index list alike (attr_codec.h): each such op is read both
  // ways, and the first combination whose result has the node's output
  // types wins (the section count first, TVM's reading).
  absl::StatusOr<std::unique_ptr<NodeKernel>> Build() {
    CARVE_ASSIGN_OR_RETURN(std::vector<BodyEntry> body, ParseCompositeBody(node_));
    size_t anchor = AnchorEntry(body);
    std::vector<std::string> prefixes = Prefixes(body, anchor);
    int ambiguous = 0;
    for (size_t i = 0; i < body.size(); ++i) {
      const OpInfo* op = FindOp(body[i].head);
      if (op != nullptr && HasAmbiguousAttr(op, node_, prefixes[i])) ++ambiguous;
    }
    // Each ambiguous op doubles the readings; a body has a handful at most.
    const uint32_t readings = 1u << std::min(ambiguous, 6);
    absl::StatusOr<std::unique_ptr<NodeKernel>> first;
    for (uint32_t as_list = 0; as_list < readings; ++as_list) {
      absl::StatusOr<std::unique_ptr<NodeKernel>> k = BuildReading(body, prefixes, as_list);
      if (k.ok() && MatchesNode()) return k;
      if (as_list == 0) first = std::move(k);
    }
    if (!first.ok()) return first;
    return Error(fmt::format("the body makes {}, the node has {}", TypeToString(types_.back()),
                             TypeToString(ctx_.OutputType())));
  }

 private:
  // The attribute prefix of every body entry.
  static std::vector<std::string> Prefixes(const std::vector<BodyEntry>& body, size_t anchor) {
    absl::flat_hash_map<std::string, int> occurrences;
    std::vector<std::string> out(body.size());
    for (size_t i = 0; i < body.size(); ++i) {
      const BodyEntry& e = body[i];
      if (e.head == "Tuple" || e.head.starts_with("TupleGetItem") || FindOp(e.head) == nullptr) {
        continue;
      }
      out[i] = i == anchor ? "" : CompositeAttrPrefix(e.head, occurrences[e.head]++);
    }
    return out;
  }

  // The body with the k-th ambiguous op read as a list when bit k of
  // `as_list` is set.
  absl::StatusOr<std::unique_ptr<NodeKernel>> BuildReading(const std::vector<BodyEntry>& body,
                                                           const std::vector<std::string>& prefixes,
                                                           uint32_t as_list) {
    types_.clear();
    std::vector<Step> steps;
    int ambiguous = 0;
    for (size_t i = 0; i < body.size(); ++i) {
      const BodyEntry& e = body[i];
      Step step;
      step.args = e.args;
      std::vector<const Type*> arg_types;
      for (const BodyRef& r : e.args) arg_types.push_back(TypeOf(r));
      if (e.head == "Tuple") {
        step.tuple = true;
        types_.push_back(TupleTy(arg_types));
      } else if (e.head.starts_with("TupleGetItem")) {
        CARVE_RETURN_IF_ERROR(AddProjection(e, arg_types, step));
      } else {
        const OpInfo* op = FindOp(e.head);
        if (op == nullptr) return Error(fmt::format("'{}' is not an operator", e.head));
        DecodeOptions options;
        if (HasAmbiguousAttr(op, node_, prefixes[i])) {
          options.one_value_as_list = ambiguous < 32 && ((as_list >> ambiguous) & 1u);
          ++ambiguous;
        }
        CARVE_ASSIGN_OR_RETURN(const Attrs* attrs, DecodeOpAttrs(op, node_, prefixes[i], options));
        CARVE_ASSIGN_OR_RETURN(RefOp ref, RefOp::Make(e.head, attrs, arg_types, ctx_.device));
        types_.push_back(ref.out_type());
        step.op = ref;
      }
      steps.push_back(std::move(step));
    }
    size_t outputs = 1;
    if (const TupleType* t = DynCast<TupleType>(types_.back())) outputs = t->fields().size();
    if (outputs != node_.num_outputs) {
      return Error(fmt::format("the body makes {} outputs, the node has {}", outputs,
                               node_.num_outputs));
    }
    return std::unique_ptr<NodeKernel>(std::make_unique<BodyKernel>(std::move(steps)));
  }

  // Whether the body's result type has the node's output dtypes and shapes
  // (a `?` dim of either side matches any extent).
  bool MatchesNode() const {
    std::vector<const Type*> fields = {types_.back()};
    if (const TupleType* t = DynCast<TupleType>(types_.back())) {
      fields.assign(t->fields().begin(), t->fields().end());
    }
    if (fields.size() != node_.num_outputs) return false;
    for (size_t i = 0; i < fields.size(); ++i) {
      const TensorType* t = DynCast<TensorType>(fields[i]);
      if (t == nullptr) return false;
      std::vector<int64_t> shape = ShapeOf(t);
      const std::vector<int64_t>& want = node_.shapes[i];
      if (t->dtype() != node_.dtypes[i] || shape.size() != want.size()) return false;
      for (size_t d = 0; d < shape.size(); ++d) {
        if (shape[d] >= 0 && want[d] >= 0 && shape[d] != want[d]) return false;
      }
    }
    return true;
  }

  absl::Status AddProjection(const BodyEntry& e, const std::vector<const Type*>& arg_types,
                             Step& step) {
    step.project = std::atoi(e.head.c_str() + 12);
    const TupleType* t = arg_types.size() == 1 ? DynCast<TupleType>(arg_types[0]) : nullptr;
    if (t == nullptr || step.project >= int(t->fields().size())) {
      return Error(fmt::format("'{}' projects a value without that field", e.head));
    }
    types_.push_back(t->fields()[step.project]);
    return absl::OkStatus();
  }

  const Type* TypeOf(const BodyRef& r) const {
    if (!r.is_input) return types_[r.index];
    return TensorTypeOf(ctx_.InputDType(r.index), ctx_.InputShape(r.index));
  }

  absl::Status Error(std::string why) const {
    return absl::InvalidArgumentError(fmt::format("composite '{}': {}", node_.name, why));
  }

  const NodeBuildContext& ctx_;
  const JsonNode& node_;
  std::vector<const Type*> types_;  // per entry
};

}  // namespace

absl::StatusOr<std::unique_ptr<NodeKernel>> MakeBodyKernel(const NodeBuildContext& ctx) {
  return BodyBuilder(ctx).Build();
}

}  // namespace carve

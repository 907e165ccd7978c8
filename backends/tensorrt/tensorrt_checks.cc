#include "backends/tensorrt/tensorrt_checks.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "fmt/format.h"
#include "ir/expr.h"
#include "ir/type.h"

namespace carve {
namespace {

// Each check returns why it rejects the root ("" when it accepts): the
// condition that failed, with the values it saw, in words a user can act on.
// The clause is the implicit-batch-mode limit TVM's tensorrt.py checker
// enforces.

const Call* AsCall(const Expr* root) { return DynCast<Call>(root); }

std::optional<std::vector<int64_t>> Ints(const Call* call, std::string_view key) {
  if (call == nullptr || call->attrs() == nullptr) return std::nullopt;
  return call->attrs()->GetInts(key);
}

std::string List(const std::vector<int64_t>& v) { return fmt::format("[{}]", fmt::join(v, ", ")); }

std::string ReshapeRefusal(const Expr* root) {
  std::optional<std::vector<int64_t>> shape = Ints(AsCall(root), "newshape");
  if (!shape) return "newshape is not a list of integers";
  for (int64_t v : *shape) {
    if (v < -1) {
      return fmt::format("newshape {} uses the special value {} (only -1 is supported)",
                         List(*shape), v);
    }
  }
  return "";
}

std::string TransposeRefusal(const Expr* root) {
  std::optional<std::vector<int64_t>> axes = Ints(AsCall(root), "axes");
  if (!axes || axes->empty()) {
    return "axes are not given, so the transpose reverses them and moves the batch axis "
           "(implicit batch mode)";
  }
  if ((*axes)[0] != 0) {
    return fmt::format("axes {} move the batch axis (axes[0] is {}, not 0; implicit batch mode)",
                       List(*axes), (*axes)[0]);
  }
  return "";
}

std::string ReduceRefusal(const Expr* root) {
  const Call* call = AsCall(root);
  std::optional<std::vector<int64_t>> axis = Ints(call, "axis");
  if (!axis || axis->empty()) return "axis is not given (a reduction over all axes)";
  if (std::find(axis->begin(), axis->end(), 0) != axis->end()) {
    return fmt::format("axis {} reduces the batch axis 0 (implicit batch mode)", List(*axis));
  }
  const AttrValue* exclude = call->attrs()->Find("exclude");
  if (exclude != nullptr && !exclude->is_null() && exclude->as_bool()) return "exclude is set";
  return "";
}

std::string AvgPoolRefusal(const Expr* root) {
  const Call* call = AsCall(root);
  std::optional<std::vector<int64_t>> pad = Ints(call, "padding");
  const AttrValue* include = call != nullptr ? call->attrs()->Find("count_include_pad") : nullptr;
  bool counts_pad = include != nullptr && !include->is_null() && include->as_bool();
  if (!counts_pad || !pad || pad->size() != 4) return "";
  if ((*pad)[0] == (*pad)[2] && (*pad)[1] == (*pad)[3]) return "";
  return fmt::format("count_include_pad with asymmetric padding {}", List(*pad));
}

std::string ConcatenateRefusal(const Expr* root) {
  const Call* call = AsCall(root);
  if (call == nullptr || call->args().empty()) return "no input tuple";
  const Tuple* tuple = DynCast<Tuple>(call->args()[0]);
  if (tuple == nullptr) return "its input is not a literal tuple";
  for (size_t i = 0; i < tuple->fields().size(); ++i) {
    if (Isa<Constant>(tuple->fields()[i])) {
      return fmt::format("field {} of its input tuple is a constant", i);
    }
  }
  return "";
}

// strided_slice in implicit batch mode: the batch axis untouched (begin 0,
// end -1 or the batch size), positive strides, every output dim >= 1.
std::string StridedSliceRefusal(const Expr* root) {
  const Call* call = AsCall(root);
  if (call == nullptr || call->args().empty()) return "no input";
  const TensorType* in = DynCast<TensorType>(call->args()[0]->checked_type());
  const TensorType* out = DynCast<TensorType>(call->checked_type());
  if (in == nullptr || out == nullptr || in->rank() == 0) return "its input is not a tensor of rank >= 1";
  std::optional<std::vector<int64_t>> begin = Ints(call, "begin"), end = Ints(call, "end");
  std::optional<std::vector<int64_t>> strides = Ints(call, "strides");
  if (begin && !begin->empty() && (*begin)[0] != 0) {
    return fmt::format("begin[0] is {}: it slices the batch axis (implicit batch mode)",
                       (*begin)[0]);
  }
  if (end && !end->empty() && (*end)[0] != -1 &&
      (in->shape()[0].is_any() || (*end)[0] != in->shape()[0].value)) {
    return fmt::format("end[0] is {}: it slices the batch axis (implicit batch mode)", (*end)[0]);
  }
  if (strides && std::any_of(strides->begin(), strides->end(), [](int64_t v) { return v <= 0; })) {
    return fmt::format("strides {} are not all positive", List(*strides));
  }
  for (size_t i = 0; i < out->shape().size(); ++i) {
    const Dim& d = out->shape()[i];
    if (!d.is_any() && d.value < 1) return fmt::format("output dim {} is empty", i);
  }
  return "";
}

// Static dims but the first (implicit batch mode lets the batch be `?`),
// tuples field by field: the shape half of TVM's is_supported_trt_type (the
// dtype half is in the file's predicates). Names the first dynamic dim.
std::string DynamicBeyondBatch(const Type* type) {
  if (const TupleType* tuple = DynCast<TupleType>(type)) {
    for (const Type* field : tuple->fields()) {
      if (std::string why = DynamicBeyondBatch(field); !why.empty()) return why;
    }
    return "";
  }
  const TensorType* tensor = DynCast<TensorType>(type);
  if (tensor == nullptr) return fmt::format("its type {} is not a tensor", TypeToString(type));
  for (size_t i = 1; i < tensor->shape().size(); ++i) {
    if (tensor->shape()[i].is_any()) {
      return fmt::format("dim {} of {} is dynamic (implicit batch mode: only dim 0 may be)", i,
                         TypeToString(type));
    }
  }
  return "";
}

// TVM's get_args: a call's arguments; through a projection, the projected
// call's (batch_norm reads all five).
std::string StandardRefusal(const Expr* root) {
  const Expr* e = root;
  while (const TupleGetItem* item = DynCast<TupleGetItem>(e)) e = item->tuple();
  const Call* call = AsCall(e);
  if (call == nullptr) return "";
  for (size_t i = 0; i < call->args().size(); ++i) {
    const Type* type = call->args()[i]->checked_type();
    if (type == nullptr) return fmt::format("arg {} is not typed", i);
    if (std::string why = DynamicBeyondBatch(type); !why.empty()) {
      return fmt::format("arg {}: {}", i, why);
    }
  }
  return "";
}

RootRefusal SpecificRefusal(std::string_view name) {
  if (name == "reshape") return ReshapeRefusal;
  if (name == "transpose") return TransposeRefusal;
  if (name == "sum" || name == "prod" || name == "max" || name == "min" || name == "mean") {
    return ReduceRefusal;
  }
  if (name == "nn.avg_pool2d") return AvgPoolRefusal;
  if (name == "concatenate") return ConcatenateRefusal;
  if (name == "strided_slice") return StridedSliceRefusal;
  return nullptr;
}

}  // namespace

RootRefusal TensorRtCompositeCheck(std::string_view name) {
  if (name.starts_with("tensorrt.")) name.remove_prefix(9);
  RootRefusal specific = SpecificRefusal(name);
  if (!specific) return StandardRefusal;
  return [specific](const Expr* root) {
    std::string why = StandardRefusal(root);
    return why.empty() ? specific(root) : why;
  };
}

}  // namespace carve

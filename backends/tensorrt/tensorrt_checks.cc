#include "backends/tensorrt/tensorrt_checks.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "ir/expr.h"
#include "ir/type.h"

namespace carve {
namespace {

const Call* AsCall(const Expr* root) { return DynCast<Call>(root); }

std::optional<std::vector<int64_t>> Ints(const Call* call, std::string_view key) {
  if (call == nullptr || call->attrs() == nullptr) return std::nullopt;
  return call->attrs()->GetInts(key);
}

bool ReshapeCheck(const Expr* root) {
  std::optional<std::vector<int64_t>> shape = Ints(AsCall(root), "newshape");
  if (!shape) return false;
  return std::none_of(shape->begin(), shape->end(), [](int64_t v) { return v < -1; });
}

bool TransposeCheck(const Expr* root) {
  std::optional<std::vector<int64_t>> axes = Ints(AsCall(root), "axes");
  return axes && !axes->empty() && (*axes)[0] == 0;
}

bool ReduceCheck(const Expr* root) {
  const Call* call = AsCall(root);
  std::optional<std::vector<int64_t>> axis = Ints(call, "axis");
  if (!axis || axis->empty()) return false;
  if (std::find(axis->begin(), axis->end(), 0) != axis->end()) return false;
  const AttrValue* exclude = call->attrs()->Find("exclude");
  return exclude == nullptr || exclude->is_null() || !exclude->as_bool();
}

bool AvgPoolCheck(const Expr* root) {
  const Call* call = AsCall(root);
  std::optional<std::vector<int64_t>> pad = Ints(call, "padding");
  const AttrValue* include = call != nullptr ? call->attrs()->Find("count_include_pad") : nullptr;
  bool counts_pad = include != nullptr && !include->is_null() && include->as_bool();
  if (!counts_pad || !pad || pad->size() != 4) return true;
  return (*pad)[0] == (*pad)[2] && (*pad)[1] == (*pad)[3];
}

bool ConcatenateCheck(const Expr* root) {
  const Call* call = AsCall(root);
  if (call == nullptr || call->args().empty()) return false;
  const Tuple* tuple = DynCast<Tuple>(call->args()[0]);
  if (tuple == nullptr) return false;
  return std::none_of(tuple->fields().begin(), tuple->fields().end(),
                      [](const Expr* f) { return DynCast<Constant>(f) != nullptr; });
}

// strided_slice in implicit batch mode: the batch axis untouched (begin 0,
// end -1 or the batch size), positive strides, every output dim >= 1.
bool StridedSliceCheck(const Expr* root) {
  const Call* call = AsCall(root);
  if (call == nullptr || call->args().empty()) return false;
  const TensorType* in = DynCast<TensorType>(call->args()[0]->checked_type());
  const TensorType* out = DynCast<TensorType>(call->checked_type());
  if (in == nullptr || out == nullptr || in->rank() == 0) return false;
  std::optional<std::vector<int64_t>> begin = Ints(call, "begin"), end = Ints(call, "end");
  std::optional<std::vector<int64_t>> strides = Ints(call, "strides");
  if (begin && !begin->empty() && (*begin)[0] != 0) return false;
  if (end && !end->empty() && (*end)[0] != -1 &&
      (in->shape()[0].is_any() || (*end)[0] != in->shape()[0].value)) {
    return false;
  }
  if (strides && std::any_of(strides->begin(), strides->end(), [](int64_t v) { return v <= 0; })) {
    return false;
  }
  return std::all_of(out->shape().begin(), out->shape().end(),
                     [](const Dim& d) { return d.is_any() || d.value >= 1; });
}

// Static dims but the first (implicit batch mode lets the batch be `?`),
// tuples field by field: the shape half of TVM's is_supported_trt_type (the
// dtype half is in the file's predicates).
bool StaticBeyondBatch(const Type* type) {
  if (const TupleType* tuple = DynCast<TupleType>(type)) {
    return std::all_of(tuple->fields().begin(), tuple->fields().end(), StaticBeyondBatch);
  }
  const TensorType* tensor = DynCast<TensorType>(type);
  if (tensor == nullptr) return false;
  for (size_t i = 1; i < tensor->shape().size(); ++i) {
    if (tensor->shape()[i].is_any()) return false;
  }
  return true;
}

// TVM's get_args: a call's arguments; through a projection, the projected
// call's (batch_norm reads all five).
bool StandardCheck(const Expr* root) {
  const Expr* e = root;
  while (const TupleGetItem* item = DynCast<TupleGetItem>(e)) e = item->tuple();
  const Call* call = AsCall(e);
  if (call == nullptr) return true;
  return std::all_of(call->args().begin(), call->args().end(), [](const Expr* arg) {
    return arg->checked_type() != nullptr && StaticBeyondBatch(arg->checked_type());
  });
}

RootCheck SpecificCheck(std::string_view name) {
  if (name == "reshape") return ReshapeCheck;
  if (name == "transpose") return TransposeCheck;
  if (name == "sum" || name == "prod" || name == "max" || name == "min" || name == "mean") {
    return ReduceCheck;
  }
  if (name == "nn.avg_pool2d") return AvgPoolCheck;
  if (name == "concatenate") return ConcatenateCheck;
  if (name == "strided_slice") return StridedSliceCheck;
  return nullptr;
}

}  // namespace

RootCheck TensorRtCompositeCheck(std::string_view name) {
  if (name.starts_with("tensorrt.")) name.remove_prefix(9);
  RootCheck specific = SpecificCheck(name);
  if (!specific) return StandardCheck;
  return [specific](const Expr* root) { return StandardCheck(root) && specific(root); };
}

}  // namespace carve

#include "backends/compare_recording.h"

#include <optional>
#include <span>
#include <utility>

#include "backends/json/serializer.h"
#include "ir/type.h"

namespace carve::compare_internal {
namespace {

// The composite's arguments from the node's inputs (the body's leaves, see
// serializer.h): parameter k is the leaf that is the k-th parameter. A
// parameter the body does not read has no input (MergeComposite makes one
// when a pattern's wildcard matched a node the pattern also matched inside:
// `add(bias_add(%c, %b), %c)` with `%c = conv2d(...)`, as TVM does); it gets
// zeros of its type, which cannot change the result. nullopt when such a
// parameter has no static tensor type.
std::optional<std::vector<Value>> CompositeArgs(const Function* composite,
                                                std::span<const NDArray> inputs) {
  std::vector<const Expr*> leaves = CompositeLeaves(composite);
  std::vector<Value> args(composite->params().size());
  std::vector<bool> bound(args.size(), false);
  for (size_t i = 0; i < leaves.size() && i < inputs.size(); ++i) {
    for (size_t k = 0; k < composite->params().size(); ++k) {
      if (leaves[i] == composite->params()[k]) args[k] = Value(inputs[i]), bound[k] = true;
    }
  }
  for (size_t k = 0; k < args.size(); ++k) {
    if (bound[k]) continue;
    const Var* p = composite->params()[k];
    const auto* t = DynCast<TensorType>(p->checked_type() ? p->checked_type() : p->annotation());
    if (t == nullptr) return std::nullopt;
    std::vector<int64_t> shape;
    for (const Dim& d : t->shape()) {
      if (d.is_any()) return std::nullopt;
      shape.push_back(d.value);
    }
    args[k] = Value(NDArray::Empty(t->dtype(), shape));
  }
  return args;
}

Value DeepCopy(const Value& v) {
  if (v.is_tensor()) return Value(v.tensor().Copy());
  if (!v.is_tuple()) return v;
  std::vector<Value> fields;
  for (const Value& f : v.fields()) fields.push_back(DeepCopy(f));
  return Value::Tuple(std::move(fields));
}

}  // namespace

// Records every composite node the backend runtimes execute while
// `recording` is set (the first call of @main; repeated ones are timed only).
OffloadedNodeObserver RecordComposites(std::vector<CompositeRun>& runs, const bool& recording) {
  return [&runs, &recording](const OffloadedNodeEvent& e) {
    if (!recording) return;
    const Call* call = DynCast<Call>(e.serialized->sources[e.nid]);
    const Function* composite = call != nullptr ? DynCast<Function>(call->callee()) : nullptr;
    if (composite == nullptr || !composite->HasAttr("Composite") || e.outputs.size() != 1) return;
    std::optional<std::vector<Value>> args = CompositeArgs(composite, e.inputs);
    if (!args) return;
    runs.push_back({std::string(composite->GetStringAttr("Composite")), composite, *std::move(args),
                    e.outputs[0]});
  };
}

// The tensors of a (nested) tuple value, in order.
void FlattenTensors(const Value& v, std::vector<NDArray>& out) {
  if (v.is_tensor()) out.push_back(v.tensor());
  if (!v.is_tuple()) return;
  for (const Value& f : v.fields()) FlattenTensors(f, out);
}

// `runtime`, recording each call it serves while `recording` is set.
ExternalFn RecordFunctions(ExternalFn runtime, std::vector<FunctionRun>& runs,
                           const bool& recording) {
  return [runtime = std::move(runtime), &runs, &recording](
             const ExternalCall& call) -> absl::StatusOr<Value> {
    absl::StatusOr<Value> result = runtime(call);
    if (result.ok() && recording) {
      FunctionRun run{call.function, {}, DeepCopy(*result)};
      for (const Value& a : call.args) run.args.push_back(DeepCopy(a));
      runs.push_back(std::move(run));
    }
    return result;
  };
}

}  // namespace carve::compare_internal

// Relations of TVM's random ops (op/random/kernel.cc), the annotation and
// device ops, and the compiler internals carve can type: memory.kill,
// vm.shape_of, vm.reshape_tensor, vm.invoke_tvm_op, call_lowered, debug.
// memory.alloc_storage / alloc_tensor produce TVM's Storage type, which
// carve's type system lacks; their relations say so (docs/ops.md).
#include "ir/rel_common.h"
#include "ir/type_relations.h"

namespace carve::rel {
namespace {

// TVM's Threefry key: Tensor[(10), uint64].
const TensorType* KeyType() { return TensorTy(DataType::UInt(64), Shape{D(10)}); }

absl::Status ExpectKey(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* key, TensorArg(call, 0));
  return ExpectType(key, DataType::UInt(64), std::vector<Dim>{D(10)}, "key");
}

absl::StatusOr<Shape> OutShape(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> shape, AttrReader(call).Ints("out_shape"));
  Shape out;
  for (int64_t d : shape) {
    if (d < 0) return Error("out_shape {} has a negative dim", IntsToString(shape));
    out.push_back(D(d));
  }
  return out;
}

}  // namespace

// random.threefry_generate(key): (next key, uint64 bits of out_shape).
absl::StatusOr<const Type*> ThreefryGenerate(const TypeRelCall& call) {
  CARVE_RETURN_IF_ERROR(ExpectKey(call));
  CARVE_ASSIGN_OR_RETURN(Shape shape, OutShape(call));
  return TupleTy(std::vector<const Type*>{KeyType(), TensorTy(DataType::UInt(64), shape)});
}

// random.threefry_split(key): two keys.
absl::StatusOr<const Type*> ThreefrySplit(const TypeRelCall& call) {
  CARVE_RETURN_IF_ERROR(ExpectKey(call));
  return TupleTy(std::vector<const Type*>{KeyType(), KeyType()});
}

// random.uniform(key, low, high), random.normal(key, mean, scale): (next
// key, out_dtype values of out_shape); the two bounds are scalars of
// out_dtype.
absl::StatusOr<const Type*> RandomDistribution(const TypeRelCall& call) {
  CARVE_RETURN_IF_ERROR(ExpectKey(call));
  CARVE_ASSIGN_OR_RETURN(Shape shape, OutShape(call));
  CARVE_ASSIGN_OR_RETURN(DataType dtype, AttrReader(call).DType("out_dtype"));
  if (dtype.is_void()) return Error("attribute 'out_dtype' must be set");
  for (size_t i = 1; i < 3; ++i) {
    CARVE_ASSIGN_OR_RETURN(const TensorType* t, TensorArg(call, i));
    CARVE_RETURN_IF_ERROR(ExpectScalar(t, dtype, ArgName(call, i)));
  }
  return TupleTy(std::vector<const Type*>{KeyType(), TensorTy(dtype, shape)});
}

// random.multinomial(key, probs (..., C)): (next key, int32 (..., n)).
absl::StatusOr<const Type*> Multinomial(const TypeRelCall& call) {
  CARVE_RETURN_IF_ERROR(ExpectKey(call));
  CARVE_ASSIGN_OR_RETURN(const TensorType* probs, TensorArg(call, 1));
  if (probs->rank() < 1) return Error("probs must have rank >= 1, got {}", TypeToString(probs));
  CARVE_ASSIGN_OR_RETURN(std::optional<int64_t> n, AttrReader(call).OptInt("num_samples"));
  Shape out(probs->shape().begin(), probs->shape().end() - 1);
  out.push_back(D(n.value_or(1)));
  return TupleTy(std::vector<const Type*>{KeyType(), TensorTy(DataType::Int(32), out)});
}

// annotation.with_funcid(func), on_device(body), debug(program): the
// argument's type, whatever it is.
absl::StatusOr<const Type*> AnyIdentity(const TypeRelCall& call) {
  if (call.args.empty()) return Error("expected an argument");
  return call.args[0];
}

// memory.kill(to_free), vm.invoke_tvm_op(op, ins, outs): the empty tuple.
absl::StatusOr<const Type*> EmptyTuple(const TypeRelCall& call) {
  (void)call;
  return TupleTy(std::vector<const Type*>{});
}

// vm.shape_of(tensor): (rank,) in `dtype` (int64 by default).
absl::StatusOr<const Type*> VMShapeOf(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* t, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(DataType dtype, AttrReader(call).DType("dtype"));
  return TensorTy(dtype.is_void() ? DataType::Int(64) : dtype, Shape{D(int64_t(t->rank()))});
}

// vm.reshape_tensor(data, shape): newshape in the data's dtype.
absl::StatusOr<const Type*> ReshapeTensor(const TypeRelCall& call) {
  CARVE_ASSIGN_OR_RETURN(const TensorType* data, TensorArg(call, 0));
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> shape, AttrReader(call).Ints("newshape"));
  Shape out;
  for (int64_t d : shape) out.push_back(d < 0 ? Dim::Any() : D(d));
  return TensorTy(data->dtype(), out);
}

// call_lowered(func, (args...)): the function's return type; the arguments
// match its parameters.
absl::StatusOr<const Type*> CallLowered(const TypeRelCall& call) {
  if (call.args.size() != 2) return Error("expected a function and a tuple of arguments");
  const FuncType* fn = DynCast<FuncType>(call.args[0]);
  const TupleType* args = DynCast<TupleType>(call.args[1]);
  if (fn == nullptr || args == nullptr) {
    return Error("expected a function and a tuple of arguments, got {} and {}",
                 TypeToString(call.args[0]), TypeToString(call.args[1]));
  }
  if (fn->params().size() != args->fields().size()) {
    return Error("the function takes {} arguments, got {}", fn->params().size(),
                 args->fields().size());
  }
  return fn->ret();
}

// memory.alloc_storage / memory.alloc_tensor: TVM types these with its
// Storage type, which carve does not model.
absl::StatusOr<const Type*> NoStorageType(const TypeRelCall& call) {
  (void)call;
  return absl::UnimplementedError(
      "carve has no Storage type (memory planning internals are not modelled)");
}

// parser.MetaRef: a placeholder TVM's parser replaces before type checking.
absl::StatusOr<const Type*> MetaRef(const TypeRelCall& call) {
  (void)call;
  return Error("a parser.MetaRef placeholder cannot be typed (TVM resolves it while parsing)");
}

}  // namespace carve::rel

namespace carve::rel {

// torch_op(args...): TVM loads the serialized TorchScript module and runs
// it on zeros to learn the output type; carve cannot run TorchScript.
absl::StatusOr<const Type*> TorchOp(const TypeRelCall& call) {
  (void)call;
  return absl::UnimplementedError(
      "the output type comes from running the TorchScript module, which needs libtorch");
}

}  // namespace carve::rel

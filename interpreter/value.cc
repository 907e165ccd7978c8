#include "interpreter/value.h"

#include "fmt/format.h"

namespace carve {

Value Value::Tuple(std::vector<Value> fields) {
  Value v;
  if (!fields.empty()) {
    v.data_ = std::make_shared<const std::vector<Value>>(std::move(fields));
  }
  return v;
}

Value Value::MakeClosure(Closure closure) {
  Value v;
  v.data_ = std::make_shared<const Closure>(std::move(closure));
  return v;
}

std::span<const Value> Value::fields() const {
  const auto& p = std::get<std::shared_ptr<const std::vector<Value>>>(data_);
  if (p == nullptr) return {};
  return *p;
}

std::vector<NDArray> FlattenTensors(const Value& v) {
  std::vector<NDArray> out;
  // Explicit stack, fields pushed in reverse so they pop in order.
  std::vector<const Value*> stack = {&v};
  while (!stack.empty()) {
    const Value* cur = stack.back();
    stack.pop_back();
    if (cur->is_tensor()) {
      out.push_back(cur->tensor());
    } else if (cur->is_tuple()) {
      auto fields = cur->fields();
      for (size_t i = fields.size(); i-- > 0;) stack.push_back(&fields[i]);
    }
  }
  return out;
}

namespace {

const Type* TensorTypeOf(const NDArray& a) {
  std::vector<Dim> dims;
  dims.reserve(a.rank());
  for (int64_t d : a.shape()) dims.push_back(Dim{d, false});
  return TensorTy(a.dtype(), dims);
}

}  // namespace

const Type* RuntimeType(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::kTensor:
      return TensorTypeOf(v.tensor());
    case Value::Kind::kTuple: {
      std::vector<const Type*> fields;
      for (const Value& f : v.fields()) fields.push_back(RuntimeType(f));
      return TupleTy(fields);
    }
    case Value::Kind::kClosure:
      return v.closure().function->checked_type();
    case Value::Kind::kGlobal:
      return v.global()->checked_type();
  }
  return nullptr;
}

std::string DescribeValue(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::kTensor:
      return TypeToString(TensorTypeOf(v.tensor()));
    case Value::Kind::kTuple: {
      std::string out = "(";
      auto fields = v.fields();
      for (size_t i = 0; i < fields.size(); ++i) {
        if (i) out += ", ";
        out += DescribeValue(fields[i]);
      }
      if (fields.size() == 1) out += ",";
      return out + ")";
    }
    case Value::Kind::kClosure:
      return "closure";
    case Value::Kind::kGlobal:
      return fmt::format("@{}", v.global()->name());
  }
  return "?";
}

}  // namespace carve

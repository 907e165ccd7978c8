#include "interpreter/value.h"

#include "fmt/format.h"

namespace carve {

Value Value::Tuple(std::vector<Value> fields) {
  Value v;
  if (!fields.empty()) {
    auto node = std::make_shared<TupleNode>();
    for (const Value& f : fields) node->tensor_bytes += f.TensorBytes();
    node->fields = std::move(fields);
    v.data_ = std::move(node);
  }
  return v;
}

Value Value::MakeClosure(Closure closure) {
  Value v;
  v.data_ = std::make_shared<Closure>(std::move(closure));
  return v;
}

Value Value::NewRef(Value contents) {
  Value v;
  v.data_ = std::make_shared<RefCell>(RefCell{std::move(contents)});
  return v;
}

Value Value::Adt(const Constructor* ctor, std::vector<Value> fields) {
  Value v;
  v.data_ = std::make_shared<AdtNode>(AdtNode{ctor, std::move(fields)});
  return v;
}

const Constructor* Value::constructor() const {
  if (is_constructor()) return std::get<const Constructor*>(data_);
  return std::get<std::shared_ptr<AdtNode>>(data_)->ctor;
}

std::span<const Value> Value::adt_fields() const {
  return std::get<std::shared_ptr<AdtNode>>(data_)->fields;
}

const Value& Value::ref_contents() const {
  return std::get<std::shared_ptr<RefCell>>(data_)->contents;
}

void Value::RefWrite(Value contents) const {
  std::get<std::shared_ptr<RefCell>>(data_)->contents = std::move(contents);
}

std::span<const Value> Value::fields() const {
  const auto& p = std::get<std::shared_ptr<TupleNode>>(data_);
  if (p == nullptr) return {};
  return p->fields;
}

int64_t Value::TensorBytes() const {
  if (const NDArray* t = std::get_if<NDArray>(&data_)) return static_cast<int64_t>(t->nbytes());
  if (const auto* p = std::get_if<std::shared_ptr<TupleNode>>(&data_)) {
    return *p ? (*p)->tensor_bytes : 0;
  }
  return 0;
}

void Value::DestroyNested() {
  // Unlink nested nodes level by level: each popped value owns a node whose
  // own nested nodes were moved out first, so its destruction is shallow.
  std::vector<Value> pending;
  UnlinkChildren(pending);
  while (!pending.empty()) {
    Value v = std::move(pending.back());
    pending.pop_back();
    v.UnlinkChildren(pending);
  }
}

void Value::UnlinkChildren(std::vector<Value>& out) {
  auto take = [&out](Value& child) {
    if (child.is_tuple() || child.is_closure() || child.is_ref() || child.is_adt()) {
      out.push_back(std::move(child));
    }
  };
  if (auto* t = std::get_if<std::shared_ptr<TupleNode>>(&data_)) {
    if (*t != nullptr && t->use_count() == 1) {
      for (Value& f : (*t)->fields) take(f);
    }
  } else if (auto* c = std::get_if<std::shared_ptr<Closure>>(&data_)) {
    if (*c != nullptr && c->use_count() == 1) {
      for (auto& captured : (*c)->captured) take(captured.second);
    }
  } else if (auto* r = std::get_if<std::shared_ptr<RefCell>>(&data_)) {
    if (*r != nullptr && r->use_count() == 1) take((*r)->contents);
  } else if (auto* a = std::get_if<std::shared_ptr<AdtNode>>(&data_)) {
    // A list of a million Cons cells is destroyed cell by cell.
    if (*a != nullptr && a->use_count() == 1) {
      for (Value& f : (*a)->fields) take(f);
    }
  }
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
    case Value::Kind::kRef: {
      const Type* contents = RuntimeType(v.ref_contents());
      return contents == nullptr ? nullptr : RefTy(contents);
    }
    case Value::Kind::kConstructor:  // typed by the module, not by the value
    case Value::Kind::kAdt:
      return nullptr;
  }
  return nullptr;
}

namespace {

std::string Describe(const Value& v, int depth) {
  switch (v.kind()) {
    case Value::Kind::kTensor:
      return TypeToString(TensorTypeOf(v.tensor()));
    case Value::Kind::kTuple: {
      if (depth >= 4 && !v.fields().empty()) return "(...)";
      std::string out = "(";
      auto fields = v.fields();
      for (size_t i = 0; i < fields.size(); ++i) {
        if (i) out += ", ";
        out += Describe(fields[i], depth + 1);
      }
      if (fields.size() == 1) out += ",";
      return out + ")";
    }
    case Value::Kind::kClosure:
      return "closure";
    case Value::Kind::kGlobal:
      return fmt::format("@{}", v.global()->name());
    case Value::Kind::kRef:
      if (depth >= 4) return "ref(...)";
      return fmt::format("ref({})", Describe(v.ref_contents(), depth + 1));
    case Value::Kind::kConstructor:
      return fmt::format("constructor {}", v.constructor()->name());
    case Value::Kind::kAdt: {
      std::string out(v.constructor()->name());
      auto fields = v.adt_fields();
      if (fields.empty()) return out;
      if (depth >= 4) return out + "(...)";
      out += "(";
      for (size_t i = 0; i < fields.size(); ++i) {
        if (i) out += ", ";
        out += Describe(fields[i], depth + 1);
      }
      return out + ")";
    }
  }
  return "?";
}

}  // namespace

std::string DescribeValue(const Value& v) { return Describe(v, 0); }

}  // namespace carve

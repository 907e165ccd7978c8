#include "patterns/template.h"

#include "fmt/format.h"
#include "support/status_macros.h"

namespace carve {

std::shared_ptr<const Template> Template::CaptureRef(std::string name) {
  auto t = std::shared_ptr<Template>(new Template(Kind::kCapture));
  t->capture_ = std::move(name);
  return t;
}

std::shared_ptr<const Template> Template::OpCall(const OpInfo* op,
                                                 std::vector<std::shared_ptr<const Template>> args,
                                                 std::vector<AttrEntry> attrs) {
  auto t = std::shared_ptr<Template>(new Template(Kind::kCall));
  t->op_ = op;
  t->operands_ = std::move(args);
  for (AttrEntry& a : attrs) a.key = InternString(a.key);
  t->attrs_ = std::move(attrs);
  return t;
}

std::shared_ptr<const Template> Template::MakeTuple(
    std::vector<std::shared_ptr<const Template>> fields) {
  auto t = std::shared_ptr<Template>(new Template(Kind::kTuple));
  t->operands_ = std::move(fields);
  return t;
}

std::shared_ptr<const Template> Template::GetItem(std::shared_ptr<const Template> tuple,
                                                  int index) {
  auto t = std::shared_ptr<Template>(new Template(Kind::kTupleGetItem));
  t->operands_ = {std::move(tuple)};
  t->index_ = index;
  return t;
}

std::shared_ptr<const Template> Template::ConstantOf(const Constant* value,
                                                     std::shared_ptr<const void> keep_alive) {
  auto t = std::shared_ptr<Template>(new Template(Kind::kConstant));
  t->constant_ = value;
  t->keep_alive_ = std::move(keep_alive);
  return t;
}

std::vector<std::string> Template::Captures() const {
  std::vector<std::string> out;
  std::vector<const Template*> stack = {this};
  while (!stack.empty()) {
    const Template* t = stack.back();
    stack.pop_back();
    if (t->kind_ == Kind::kCapture) out.push_back(t->capture_);
    for (auto it = t->operands_.rbegin(); it != t->operands_.rend(); ++it)
      stack.push_back(it->get());
  }
  return out;
}

absl::StatusOr<AttrValue> CoerceAttrValue(const AttrField& field, const AttrValue& v) {
  using K = AttrValue::Kind;
  auto mismatch = [&] {
    return absl::InvalidArgumentError(
        fmt::format("attribute {} cannot be {}", field.name, AttrValueToString(v)));
  };
  if (v.is_null()) return v;
  switch (field.type) {
    case AttrType::kBool:
      if (v.kind() == K::kBool) return v;
      if (v.kind() == K::kInt && (v.as_int() == 0 || v.as_int() == 1)) {
        return AttrValue::Bool(v.as_int() != 0);
      }
      return mismatch();
    case AttrType::kDouble:
      if (v.kind() == K::kFloat || v.kind() == K::kInt) return AttrValue::Float(v.as_float());
      return mismatch();
    case AttrType::kInt:
    case AttrType::kInteger:
      if (v.kind() == K::kInt) return v;
      return mismatch();
    case AttrType::kString:
    case AttrType::kDType:
      if (v.kind() == K::kString) return v;
      return mismatch();
    case AttrType::kInts:
    case AttrType::kIntsArray:
    case AttrType::kDoubles:
      if (v.kind() == K::kArray) return v;
      return mismatch();
    default:
      return v;
  }
}

namespace {

absl::StatusOr<const Attrs*> CallAttrs(const Template& t) {
  if (t.op()->attrs == nullptr) {
    if (t.attrs().empty()) return nullptr;
    return absl::InvalidArgumentError(fmt::format("{} takes no attributes", t.op()->name));
  }
  const Attrs* attrs = DefaultAttrs(t.op()->attrs);
  for (const AttrEntry& a : t.attrs()) {
    int index = t.op()->attrs->FieldIndex(a.key);
    if (index < 0) {
      return absl::InvalidArgumentError(
          fmt::format("{} has no attribute '{}'", t.op()->name, a.key));
    }
    CARVE_ASSIGN_OR_RETURN(AttrValue v, CoerceAttrValue(t.op()->attrs->fields[index], a.value));
    attrs = WithField(attrs, a.key, v);
  }
  return attrs;
}

}  // namespace

absl::StatusOr<const Expr*> InstantiateTemplate(const Template& t, const RewriteContext& ctx) {
  std::vector<const Expr*> operands;
  for (const auto& o : t.operands()) {
    CARVE_ASSIGN_OR_RETURN(const Expr* e, InstantiateTemplate(*o, ctx));
    operands.push_back(e);
  }
  IRBuilder& b = ctx.builder();
  switch (t.kind()) {
    case Template::Kind::kCapture: {
      const Expr* e = ctx.Capture(t.capture());
      if (e == nullptr) {
        return absl::InvalidArgumentError(fmt::format("capture ?{} is not bound", t.capture()));
      }
      return e;
    }
    case Template::Kind::kCall: {
      CARVE_ASSIGN_OR_RETURN(const Attrs* attrs, CallAttrs(t));
      return b.MakeCall(GetOp(t.op()), operands, attrs);
    }
    case Template::Kind::kTuple:
      return b.MakeTuple(operands);
    case Template::Kind::kTupleGetItem:
      return b.MakeTupleGetItem(operands[0], t.index());
    case Template::Kind::kConstant:
      return t.constant();
  }
  return absl::InternalError("bad template");
}

RewriteCallback TemplateRewrite(std::shared_ptr<const Template> t) {
  return [t](const RewriteContext& ctx) { return InstantiateTemplate(*t, ctx); };
}

}  // namespace carve

#include "ir/expr.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <new>
#include <type_traits>

#include "absl/container/flat_hash_map.h"

namespace carve {

std::string_view Function::GetStringAttr(std::string_view key) const {
  const AttrValue* v = attrs_->Find(key);
  if (v == nullptr || v->kind() != AttrValue::Kind::kString) return {};
  return v->as_string();
}

const OpExpr* GetOp(const OpInfo* info) {
  static std::mutex* mu = new std::mutex();
  static auto* nodes = new absl::flat_hash_map<const OpInfo*, const OpExpr*>();
  std::lock_guard<std::mutex> lock(*mu);
  auto [it, inserted] = nodes->try_emplace(info, nullptr);
  if (inserted) it->second = new OpExpr(info);
  return it->second;
}

const OpExpr* GetOp(std::string_view name) {
  const OpInfo* info = FindOp(name);
  return info ? GetOp(info) : nullptr;
}

bool IsOpCall(const Expr* e, std::string_view name) {
  const Call* call = DynCast<Call>(e);
  return call != nullptr && call->op() != nullptr && call->op()->name == name;
}

static_assert(std::is_trivially_destructible_v<Call> && std::is_trivially_destructible_v<Tuple>);
template <typename... Nodes>
constexpr bool AllAtLeast(size_t bytes) {
  return ((sizeof(Nodes) >= bytes) && ...);
}
// Tuple alone is padded at allocation (see NewWithOperands).
static_assert(AllAtLeast<Var, GlobalVar, Constant, OpExpr, Call, TupleGetItem, Let, If, Function,
                        RefCreate, RefRead, RefWrite>(
    kMinNodeAllocation));
static_assert(sizeof(Call) % alignof(const Expr*) == 0 && sizeof(Tuple) % alignof(const Expr*) == 0,
              "operands follow the node");

template <typename Node, typename... Args>
const Node* IRBuilder::NewWithOperands(std::span<const Expr* const> operands, Args&&... args) {
  const bool large = operands.size() >= Expr::kLargeCount;
  const size_t words = operands.size() + (large ? 1 : 0);
  void* mem = arena_->Allocate(
      std::max(kMinNodeAllocation, sizeof(Node) + sizeof(const Expr*) * words), alignof(Node));
  auto* node = new (mem) Node(std::forward<Args>(args)...);
  auto* slots = reinterpret_cast<uintptr_t*>(node + 1);
  if (large) {
    node->operand_count_ = Expr::kLargeCount;
    *slots++ = operands.size();
  } else {
    node->operand_count_ = static_cast<uint16_t>(operands.size());
  }
  if (!operands.empty()) std::memcpy(slots, operands.data(), sizeof(const Expr*) * operands.size());
  return node;
}

const Var* IRBuilder::MakeVar(std::string_view name, const Type* annotation, Span span) {
  return arena_->New<Var>(arena_->CopyString(name), annotation, span);
}

const Var* IRBuilder::MakeVarWithStableName(std::string_view name, const Type* annotation,
                                             Span span, const VirtualDevice* virtual_device) {
  return arena_->New<Var>(name, annotation, span, virtual_device);
}

const Var* IRBuilder::MakeVarLike(const Var* v, const Type* annotation) {
  return arena_->New<Var>(arena_->CopyString(v->name()), annotation, v->span(),
                          v->virtual_device());
}

const GlobalVar* IRBuilder::MakeGlobalVar(std::string_view name, Span span) {
  return arena_->New<GlobalVar>(arena_->CopyString(name), span);
}

const Constant* IRBuilder::MakeConstant(NDArray data, Span span) {
  return arena_->New<Constant>(std::move(data), span);
}

const Constant* IRBuilder::MakeScalar(DataType dtype, double value, Span span) {
  return MakeConstant(NDArray::Scalar(dtype, value), span);
}

const Call* IRBuilder::MakeCall(const Expr* callee, std::span<const Expr* const> args,
                                const Attrs* attrs, Span span) {
  if (attrs == nullptr) {
    if (const OpExpr* op = DynCast<OpExpr>(callee); op && op->info()->attrs) {
      attrs = DefaultAttrs(op->info()->attrs);
    }
  }
  return NewWithOperands<Call>(args, callee, attrs, span);
}

const Tuple* IRBuilder::MakeTuple(std::span<const Expr* const> fields, Span span) {
  return NewWithOperands<Tuple>(fields, span);
}

const TupleGetItem* IRBuilder::MakeTupleGetItem(const Expr* tuple, int index, Span span) {
  return arena_->New<TupleGetItem>(tuple, index, span);
}

const Let* IRBuilder::MakeLet(const Var* var, const Expr* value, const Expr* body, Span span) {
  return arena_->New<Let>(var, value, body, span);
}

const If* IRBuilder::MakeIf(const Expr* cond, const Expr* then_branch, const Expr* else_branch,
                            Span span) {
  return arena_->New<If>(cond, then_branch, else_branch, span);
}

const RefCreate* IRBuilder::MakeRefCreate(const Expr* value, Span span) {
  return arena_->New<RefCreate>(value, span);
}

const RefRead* IRBuilder::MakeRefRead(const Expr* ref, Span span) {
  return arena_->New<RefRead>(ref, span);
}

const RefWrite* IRBuilder::MakeRefWrite(const Expr* ref, const Expr* value, Span span) {
  return arena_->New<RefWrite>(ref, value, span);
}

const Function* IRBuilder::MakeFunction(std::span<const Var* const> params, const Expr* body,
                                        const Type* ret_type, const Attrs* attrs,
                                        std::span<const TypeVar* const> type_params,
                                        Span span, const VirtualDevice* virtual_device) {
  if (attrs == nullptr) attrs = EmptyAttrs();
  return arena_->New<Function>(arena_->CopyArray(params), body, ret_type, attrs,
                               arena_->CopyArray(type_params), span, virtual_device);
}

const Function* IRBuilder::MakeFunctionWithParamsOf(const Function* params_of, const Expr* body,
                                                    const Type* ret_type, const Attrs* attrs,
                                                    Span span) {
  if (attrs == nullptr) attrs = EmptyAttrs();
  return arena_->New<Function>(params_of->params(), body, ret_type, attrs,
                               params_of->type_params(), span, params_of->virtual_device());
}

}  // namespace carve

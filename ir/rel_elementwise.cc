// Shared relations: Identity, Broadcast, BroadcastComp.
#include "fmt/format.h"
#include "ir/type_relations.h"

namespace carve::rel {
namespace {

absl::StatusOr<const TensorType*> TensorArg(const TypeRelCall& call, size_t i) {
  if (i >= call.args.size()) {
    return absl::InvalidArgumentError(fmt::format("missing argument {}", i));
  }
  const TensorType* t = DynCast<TensorType>(call.args[i]);
  if (t == nullptr) {
    return absl::InvalidArgumentError(fmt::format(
        "argument {} must be a tensor, got {}", i, TypeToString(call.args[i])));
  }
  return t;
}

absl::StatusOr<std::vector<Dim>> BroadcastShapes(const TensorType* a, const TensorType* b) {
  auto sa = a->shape();
  auto sb = b->shape();
  size_t n = std::max(sa.size(), sb.size());
  std::vector<Dim> out(n);
  for (size_t k = 0; k < n; ++k) {
    bool ha = k < sa.size();
    bool hb = k < sb.size();
    Dim da = ha ? sa[sa.size() - 1 - k] : Dim{};
    Dim db = hb ? sb[sb.size() - 1 - k] : Dim{};
    Dim r;
    if (!hb) {
      r = da;
    } else if (!ha) {
      r = db;
    } else if (!da.is_any() && da.value == 1) {
      r = db;
    } else if (!db.is_any() && db.value == 1) {
      r = da;
    } else if (da.is_any()) {
      r = db;
    } else if (db.is_any()) {
      r = da;
    } else if (da.value == db.value) {
      r = da;
    } else {
      return absl::InvalidArgumentError(fmt::format(
          "cannot broadcast {} and {}", ShapeToString(sa), ShapeToString(sb)));
    }
    out[n - 1 - k] = r;
  }
  return out;
}

}  // namespace

absl::StatusOr<const Type*> Identity(const TypeRelCall& call) {
  if (call.args.empty()) return absl::InvalidArgumentError("missing argument 0");
  return call.args[0];
}

absl::StatusOr<const Type*> Broadcast(const TypeRelCall& call) {
  auto a = TensorArg(call, 0);
  if (!a.ok()) return a.status();
  auto b = TensorArg(call, 1);
  if (!b.ok()) return b.status();
  if ((*a)->dtype() != (*b)->dtype()) {
    return absl::InvalidArgumentError(fmt::format("dtype mismatch: {} and {}",
                                                  (*a)->dtype().ToString(),
                                                  (*b)->dtype().ToString()));
  }
  auto shape = BroadcastShapes(*a, *b);
  if (!shape.ok()) return shape.status();
  return TensorTy((*a)->dtype(), *shape);
}

absl::StatusOr<const Type*> BroadcastComp(const TypeRelCall& call) {
  auto t = Broadcast(call);
  if (!t.ok()) return t.status();
  return TensorTy(DataType::Bool(), static_cast<const TensorType*>(*t)->shape());
}

}  // namespace carve::rel

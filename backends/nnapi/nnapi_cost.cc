#include "backends/nnapi/nnapi_cost.h"

#include <charconv>
#include <cstdlib>
#include <string_view>

#include "fmt/format.h"
#include "ir/type.h"
#include "ir/visit.h"

namespace carve {
namespace {

// Number of elements of a static tensor type, or -1.
int64_t Elements(const Type* type) {
  const TensorType* t = type != nullptr ? DynCast<TensorType>(type) : nullptr;
  if (t == nullptr) return -1;
  int64_t n = 1;
  for (const Dim& d : t->shape()) {
    if (d.is_any()) return -1;
    n *= d.value;
  }
  return n;
}

// Ops that only move or relabel data.
bool IsDataMovement(std::string_view op) {
  return op == "reshape" || op == "squeeze" || op == "expand_dims" || op == "nn.batch_flatten" ||
         op == "transpose" || op == "layout_transform";
}

int64_t ConvFlops(const Call* call, int64_t out) {
  if (call->args().size() < 2) return 0;
  const TensorType* w = DynCast<TensorType>(call->args()[1]->checked_type());
  int64_t weight = Elements(w);
  if (weight <= 0) return 0;
  std::string_view layout = call->attrs()->GetString("kernel_layout", "OIHW");
  size_t o = layout.find('O');
  if (o == std::string_view::npos || o >= w->rank() || w->shape()[o].value <= 0) return 0;
  return 2 * out * (weight / w->shape()[o].value);
}

int64_t DenseFlops(const Call* call, int64_t out) {
  const TensorType* x =
      call->args().empty() ? nullptr : DynCast<TensorType>(call->args()[0]->checked_type());
  if (x == nullptr || x->rank() == 0 || x->shape().back().is_any()) return 0;
  return 2 * out * x->shape().back().value;
}

int64_t PoolFlops(const Call* call, int64_t out) {
  std::optional<std::vector<int64_t>> pool = call->attrs()->GetInts("pool_size");
  int64_t window = 1;
  if (pool) {
    for (int64_t k : *pool) window *= k;
    if (pool->size() == 1) window *= (*pool)[0];
  }
  return out * window;
}

}  // namespace

int64_t NnapiOpFlops(const Call* call) {
  if (call == nullptr || call->op() == nullptr) return 0;
  int64_t out = Elements(call->checked_type());
  if (out < 0) return 0;
  std::string_view op = call->op()->name;
  if (op == "nn.conv2d") return ConvFlops(call, out);
  if (op == "nn.dense") return DenseFlops(call, out);
  if (op == "nn.max_pool2d" || op == "nn.avg_pool2d") return PoolFlops(call, out);
  if (op == "nn.softmax") return 3 * out;
  if (IsDataMovement(op)) return 0;
  return out;
}

int64_t NnapiStaticCost(const Function* fn) {
  int64_t total = 0;
  PostOrderVisit(fn->body(), [&](const Expr* e) {
    if (const Call* c = DynCast<Call>(e)) total += NnapiOpFlops(c);
  });
  return total;
}

absl::StatusOr<int64_t> NnapiMinOffloadFlops() {
  const char* text = std::getenv(kNnapiMinFlopsEnv);
  if (text == nullptr || *text == '\0') return kNnapiDefaultMinFlops;
  std::string_view s(text);
  int64_t value = -1;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size() || value < 0) {
    return absl::InvalidArgumentError(
        fmt::format("{}='{}': expected a non-negative integer (FLOPs)", kNnapiMinFlopsEnv, s));
  }
  return value;
}

}  // namespace carve

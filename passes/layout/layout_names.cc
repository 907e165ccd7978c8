#include "passes/layout/layout_names.h"

#include <map>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/layout.h"
#include "ir/op.h"

namespace carve::layout {

bool IsPlainLayout(std::string_view layout, size_t rank) {
  if (layout.size() != rank) return false;
  for (size_t i = 0; i < layout.size(); ++i) {
    if (layout[i] < 'A' || layout[i] > 'Z' || layout.find(layout[i]) != i) return false;
  }
  return true;
}

bool IsBlocked(std::string_view layout) {
  for (char c : layout) {
    if (c >= 'a' && c <= 'z') return true;
  }
  return false;
}

size_t PrimalCount(std::string_view layout) {
  size_t n = 0;
  for (char c : layout) n += c >= 'A' && c <= 'Z' ? 1 : 0;
  return n;
}

std::optional<int64_t> NchwcBlock(std::string_view layout) {
  if (!layout.starts_with("NCHW") || !layout.ends_with("c") || layout.size() < 6) {
    return std::nullopt;
  }
  int64_t block = 0;
  for (char c : layout.substr(4, layout.size() - 5)) {
    if (c < '0' || c > '9' || block > (int64_t{1} << 40)) return std::nullopt;
    block = block * 10 + (c - '0');
  }
  return block;
}

std::string AdjustSubordinateFactors(const std::string& layout, const std::string& old_layout,
                                     std::span<const Dim> old_shape) {
  absl::StatusOr<Layout> parsed = Layout::Parse(layout);
  absl::StatusOr<Layout> old = Layout::Parse(old_layout);
  if (!parsed.ok() || !old.ok()) return layout;
  std::string out;
  for (const LayoutAxis& axis : parsed->axes()) {
    if (!axis.is_primal()) {
      // A split axis keeps its factor only where the operand has the
      // whole axis (an extent of 1 broadcasts, unless it was split).
      int at = old->IndexOf(axis.primal());
      bool one = at < 0;
      if (!one && static_cast<size_t>(at) < old_shape.size() && old_shape[at].value == 1 &&
          !old->Contains(axis.name)) {
        one = true;
      }
      out += one ? "1" : std::to_string(axis.factor);
    }
    out += axis.name;
  }
  return out;
}

std::string Suffix(const std::string& layout, size_t rank) {
  return layout.substr(layout.size() - rank);
}

std::string ExpandPrimal(const std::string& src, const std::string& dst) {
  std::string out;
  for (char a : dst) {
    if (a >= 'A' && a <= 'Z' && src.find(a) == std::string::npos) out += a;
  }
  return out + src;
}

// Axes of `ref_old` are matched to `old`'s from the right; an axis of
// `ref_old` without a partner takes its own letter when `old` does not use
// it, else the first unused letter. The result has `ref_new`'s rank: "C"
// with NHWC -> NHWC gives "NHWC", "NC" with NCHW -> NCHW gives "BANC".
std::string TryTransformLike(const std::string& old, const std::string& ref_old,
                             const std::string& ref_new) {
  if (old.empty()) return old;  // a rank-0 operand broadcasts as it is
  std::map<char, char> mapping;
  std::string used;
  for (size_t k = 0; k < old.size(); ++k) {
    mapping[ref_old[ref_old.size() - 1 - k]] = old[old.size() - 1 - k];
    used += old[old.size() - 1 - k];
  }
  for (size_t k = ref_old.size(); k-- > 0;) {
    char axis = ref_old[k];
    if (mapping.contains(axis)) continue;
    char pick = axis;
    if (used.find(pick) != std::string::npos) {
      for (pick = 'A'; used.find(pick) != std::string::npos; ++pick) {
      }
    }
    mapping[axis] = pick;
    used += pick;
  }
  std::string out;
  for (char axis : ref_new) {
    if (axis >= 'A' && axis <= 'Z') {
      out += mapping[axis];
    } else if (axis >= 'a' && axis <= 'z') {
      out += static_cast<char>(mapping[static_cast<char>(axis - 'a' + 'A')] - 'A' + 'a');
    } else {
      out += axis;  // a sub-axis factor
    }
  }
  return out;
}

std::optional<int64_t> NewAxisIndex(const std::string& old_layout, const std::string& new_layout,
                                    int64_t axis) {
  int64_t rank = static_cast<int64_t>(old_layout.size());
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return std::nullopt;
  size_t found = new_layout.find(old_layout[static_cast<size_t>(axis)]);
  if (found == std::string::npos) return std::nullopt;
  return static_cast<int64_t>(found);
}

size_t RankOf(const Expr* e) {
  const auto* type = DynCast<TensorType>(e->checked_type());
  return type == nullptr ? 0 : type->rank();
}

bool AllOnes(const TensorType* t) {
  for (const Dim& d : t->shape()) {
    if (d.value != 1) return false;
  }
  return true;
}

const Expr* Transform(IRBuilder& b, const Expr* e, std::string_view src, std::string_view dst) {
  const Attrs* attrs = DefaultAttrs(FindOp("layout_transform")->attrs);
  attrs = WithField(attrs, "src_layout", AttrValue::Str(src));
  attrs = WithField(attrs, "dst_layout", AttrValue::Str(dst));
  const Call* call = b.MakeCall(GetOp("layout_transform"), {e}, attrs);
  const auto* type = DynCast<TensorType>(e->checked_type());
  absl::StatusOr<BijectiveLayout> map = BijectiveLayout::Make(src, dst);
  if (type != nullptr && map.ok()) {
    absl::StatusOr<std::vector<Dim>> shape = map->ForwardShape(type->shape());
    if (shape.ok()) call->set_checked_type(TensorTy(type->dtype(), *shape));
  }
  return call;
}

std::string AttrOrDefault(const Call* call, std::string_view key) {
  std::string_view fallback = DefaultAttrs(call->op()->attrs)->GetString(key, "");
  if (call->attrs() == nullptr) return std::string(fallback);
  return std::string(call->attrs()->GetString(key, fallback));
}

}  // namespace carve::layout

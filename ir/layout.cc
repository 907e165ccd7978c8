#include "ir/layout.h"

#include <algorithm>

#include "fmt/format.h"

namespace carve {
namespace {

bool IsUpper(char c) { return c >= 'A' && c <= 'Z'; }
bool IsLower(char c) { return c >= 'a' && c <= 'z'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

absl::Status LayoutError(std::string_view text, std::string_view why) {
  return absl::InvalidArgumentError(fmt::format("invalid layout '{}': {}", text, why));
}

// A split factor, or 1 for an unsplit primal axis.
int64_t SplitOf(const Layout& layout, char primal) {
  int64_t f = layout.FactorOf(primal);
  return f == 0 ? 1 : f;
}

int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

int64_t FloorMod(int64_t a, int64_t b) { return a - FloorDiv(a, b) * b; }

// Rewrites `shape`, written in `from`, in `to` (layouts with equal primal
// axes). The primal extent of axis P is (from extent * from factor)
// floordiv to factor; sub-axes get their factor.
absl::StatusOr<std::vector<Dim>> ConvertShape(const Layout& from, const Layout& to,
                                              std::span<const Dim> shape) {
  if (shape.size() != from.ndim()) {
    return absl::InvalidArgumentError(fmt::format("expected {}-d shape for layout {}, got {}",
                                                  from.ndim(), from.name(), ShapeToString(shape)));
  }
  for (size_t i = 0; i < shape.size(); ++i) {
    const LayoutAxis& axis = from.axes()[i];
    if (!axis.is_primal() && !shape[i].is_any() && shape[i].value != axis.factor) {
      return absl::InvalidArgumentError(
          fmt::format("dim {} of {} is {}, but layout {} splits it with factor {}", i,
                      ShapeToString(shape), shape[i].value, from.name(), axis.factor));
    }
  }
  std::vector<Dim> out;
  out.reserve(to.ndim());
  for (const LayoutAxis& axis : to.axes()) {
    if (!axis.is_primal()) {
      out.push_back(Dim{axis.factor, false});
      continue;
    }
    Dim src = shape[from.IndexOf(axis.name)];
    int64_t from_split = SplitOf(from, axis.name);
    int64_t to_split = SplitOf(to, axis.name);
    if (src.is_any() || (from_split == 1 && to_split == 1)) {
      out.push_back(src);  // copied as is, keeping its width
      continue;
    }
    out.push_back(Dim{FloorDiv(src.value * from_split, to_split), src.wide});
  }
  return out;
}

// Maps coordinates in `from` to coordinates in `to`.
void ConvertIndex(const Layout& from, const Layout& to, std::span<const int64_t> in,
                  std::span<int64_t> out) {
  for (size_t i = 0; i < to.ndim(); ++i) {
    const LayoutAxis& axis = to.axes()[i];
    char primal = axis.primal();
    int64_t full = in[from.IndexOf(primal)];
    int64_t from_factor = from.FactorOf(primal);
    if (from_factor > 0) {
      full = full * from_factor + in[from.IndexOf(static_cast<char>(primal - 'A' + 'a'))];
    }
    int64_t to_split = SplitOf(to, primal);
    out[i] = axis.is_primal() ? FloorDiv(full, to_split) : FloorMod(full, to_split);
  }
}

}  // namespace

absl::StatusOr<Layout> Layout::Parse(std::string_view text) {
  Layout layout;
  if (text == "__undef__") return layout;
  layout.defined_ = true;
  layout.name_ = std::string(text);
  int64_t factor = 0;
  bool seen[128] = {};
  for (char c : text) {
    if (IsDigit(c)) {
      factor = factor * 10 + (c - '0');
      if (factor > (int64_t{1} << 31)) return LayoutError(text, "split factor is too large");
      continue;
    }
    if (!IsUpper(c) && !IsLower(c)) {
      return LayoutError(text, fmt::format("unexpected character '{}'", c));
    }
    if (IsUpper(c) && factor != 0) {
      return LayoutError(text, fmt::format("factor {} before primal axis {}", factor, c));
    }
    if (IsLower(c) && factor == 0) {
      return LayoutError(text, fmt::format("sub-axis {} needs a positive factor", c));
    }
    if (seen[static_cast<unsigned char>(c)]) {
      return LayoutError(text, fmt::format("duplicate axis {}", c));
    }
    seen[static_cast<unsigned char>(c)] = true;
    layout.axes_.push_back(LayoutAxis{c, IsLower(c) ? factor : 0});
    factor = 0;
  }
  if (factor != 0) return LayoutError(text, "factor without a sub-axis at the end");
  for (const LayoutAxis& axis : layout.axes_) {
    if (!axis.is_primal() && !seen[static_cast<unsigned char>(axis.primal())]) {
      return LayoutError(
          text, fmt::format("sub-axis {} without primal axis {}", axis.name, axis.primal()));
    }
  }
  return layout;
}

int Layout::IndexOf(char axis) const {
  for (size_t i = 0; i < axes_.size(); ++i) {
    if (axes_[i].name == axis) return static_cast<int>(i);
  }
  return -1;
}

int64_t Layout::FactorOf(char primal) const {
  int index = IndexOf(static_cast<char>(primal - 'A' + 'a'));
  return index < 0 ? 0 : axes_[index].factor;
}

bool Layout::SamePrimalAxes(const Layout& other) const {
  auto primals = [](const Layout& l) {
    std::string s;
    for (const LayoutAxis& a : l.axes()) {
      if (a.is_primal()) s.push_back(a.name);
    }
    std::sort(s.begin(), s.end());
    return s;
  };
  return primals(*this) == primals(other);
}

absl::StatusOr<BijectiveLayout> BijectiveLayout::Make(const Layout& src, const Layout& dst) {
  if (!src.defined() || !dst.defined()) {
    return absl::InvalidArgumentError("cannot convert from or to an undefined layout");
  }
  if (!src.SamePrimalAxes(dst)) {
    return absl::InvalidArgumentError(
        fmt::format("layout {} is not convertible to {}", src.name(), dst.name()));
  }
  return BijectiveLayout(src, dst);
}

absl::StatusOr<BijectiveLayout> BijectiveLayout::Make(std::string_view src, std::string_view dst) {
  absl::StatusOr<Layout> s = Layout::Parse(src);
  if (!s.ok()) return s.status();
  absl::StatusOr<Layout> d = Layout::Parse(dst);
  if (!d.ok()) return d.status();
  return Make(*s, *d);
}

absl::StatusOr<std::vector<Dim>> BijectiveLayout::ForwardShape(std::span<const Dim> shape) const {
  return ConvertShape(src_, dst_, shape);
}

absl::StatusOr<std::vector<Dim>> BijectiveLayout::BackwardShape(std::span<const Dim> shape) const {
  return ConvertShape(dst_, src_, shape);
}

void BijectiveLayout::ForwardIndex(std::span<const int64_t> src_index,
                                   std::span<int64_t> dst_index) const {
  ConvertIndex(src_, dst_, src_index, dst_index);
}

void BijectiveLayout::BackwardIndex(std::span<const int64_t> dst_index,
                                    std::span<int64_t> src_index) const {
  ConvertIndex(dst_, src_, dst_index, src_index);
}

std::optional<std::vector<int>> BijectiveLayout::Permutation() const {
  std::vector<int> perm;
  for (const LayoutAxis& axis : dst_.axes()) {
    if (!axis.is_primal()) return std::nullopt;
    perm.push_back(src_.IndexOf(axis.name));
  }
  if (src_.ndim() != dst_.ndim()) return std::nullopt;  // src has a sub-axis
  return perm;
}

}  // namespace carve

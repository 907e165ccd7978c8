// Data layouts as TVM writes them ("NCHW", "NHWC", "NCHW16c", "OIHW16i16o",
// "HWIO", "GOIHW", ...) and the bijection between two layouts that have the
// same primal axes (TVM's tir::Layout and tir::BijectiveLayout).
//
// An uppercase letter is a primal axis; a number followed by a lowercase
// letter is a sub-axis of that extent split off the matching primal axis:
// NCHW16c holds (N, C // 16, H, W, 16). Type relations use the bijection to
// read a shape in its canonical layout (NCHW, OIHW, ...) and to write the
// result back; ConvertLayout and the interpreter use it to move data.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/type.h"

namespace carve {

// One axis of a layout.
struct LayoutAxis {
  char name = 0;       // 'A'..'Z' for a primal axis, 'a'..'z' for a sub-axis
  int64_t factor = 0;  // extent of a sub-axis; 0 for a primal axis

  bool is_primal() const { return name >= 'A' && name <= 'Z'; }
  // The primal axis this axis belongs to ('C' for both 'C' and 'c').
  char primal() const { return is_primal() ? name : static_cast<char>(name - 'a' + 'A'); }
};

class Layout {
 public:
  // The undefined layout (TVM's "__undef__").
  Layout() = default;
  // Parses a layout string. "" is the defined rank-0 layout; "__undef__" is
  // the undefined one. Fails on a bad character, a factor not followed by a
  // sub-axis, a duplicate axis or a sub-axis without its primal axis.
  static absl::StatusOr<Layout> Parse(std::string_view text);

  bool defined() const { return defined_; }
  const std::string& name() const { return name_; }
  size_t ndim() const { return axes_.size(); }
  std::span<const LayoutAxis> axes() const { return axes_; }
  // Position of axis `axis` ('C' or 'c'), or -1 when absent.
  int IndexOf(char axis) const;
  bool Contains(char axis) const { return IndexOf(axis) >= 0; }
  // The extent of the sub-axis split off primal axis `primal` (16 for 'C'
  // in NCHW16c), or 0 when that axis is not split.
  int64_t FactorOf(char primal) const;
  // True when both layouts have the same set of primal axes, in any order
  // (the condition for a bijection between them).
  bool SamePrimalAxes(const Layout& other) const;

  friend bool operator==(const Layout& a, const Layout& b) {
    return a.defined_ == b.defined_ && a.name_ == b.name_;
  }

 private:
  bool defined_ = false;
  std::string name_;
  std::vector<LayoutAxis> axes_;
};

// A bijection between two layouts with the same primal axes.
class BijectiveLayout {
 public:
  // Fails (with a message naming both layouts) when either layout is
  // undefined or their primal axes differ.
  static absl::StatusOr<BijectiveLayout> Make(const Layout& src, const Layout& dst);
  // Parses both layouts, then Make().
  static absl::StatusOr<BijectiveLayout> Make(std::string_view src, std::string_view dst);

  const Layout& src() const { return src_; }
  const Layout& dst() const { return dst_; }

  // The shape `shape`, written in src, rewritten in dst; e.g. NCHW -> NCHW16c
  // maps (1, 32, 7, 7) to (1, 2, 7, 7, 16). A primal extent is
  // (src extent * src factor) floordiv dst factor, as in TVM; a sub-axis gets
  // its factor. Dims copied unchanged keep their width; a dim computed from
  // a `?` is `?`. Fails when the rank differs from src's or a sub-axis dim
  // differs from its factor.
  absl::StatusOr<std::vector<Dim>> ForwardShape(std::span<const Dim> shape) const;
  // The inverse direction: a shape written in dst, rewritten in src.
  absl::StatusOr<std::vector<Dim>> BackwardShape(std::span<const Dim> shape) const;

  // Maps an element's coordinates in src to its coordinates in dst. Both
  // spans have the rank of their layout.
  void ForwardIndex(std::span<const int64_t> src_index, std::span<int64_t> dst_index) const;
  // Maps coordinates in dst back to src.
  void BackwardIndex(std::span<const int64_t> dst_index, std::span<int64_t> src_index) const;

  // When neither layout splits an axis: perm such that dst axis i is src
  // axis perm[i] (NCHW -> NHWC gives {0, 2, 3, 1}). nullopt otherwise.
  std::optional<std::vector<int>> Permutation() const;

 private:
  BijectiveLayout(Layout src, Layout dst) : src_(std::move(src)), dst_(std::move(dst)) {}

  Layout src_;
  Layout dst_;
};

}  // namespace carve

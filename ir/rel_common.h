// Helpers shared by the type relations in ir/rel_*.cc: typed access to call
// arguments and attributes, dim arithmetic that propagates `?`, axis
// normalisation, layout conversion with relation-style messages.
//
// Messages follow carve's convention: lowercase, no trailing period, no op
// name (the caller prefixes it).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "fmt/format.h"
#include "ir/layout.h"
#include "ir/op.h"
#include "support/status_macros.h"

namespace carve::rel {

using Shape = std::vector<Dim>;

// An InvalidArgument error with a formatted message.
template <typename... Args>
absl::Status Error(fmt::format_string<Args...> format, Args&&... args) {
  return absl::InvalidArgumentError(fmt::format(format, std::forward<Args>(args)...));
}

// ---- Arguments ----------------------------------------------------------

// The name of argument `i` for messages: the registry's arg name when there
// is one, else "argument i".
std::string ArgName(const TypeRelCall& call, size_t i);
// Argument `i` as a tensor type, or an error naming what it is instead.
absl::StatusOr<const TensorType*> TensorArg(const TypeRelCall& call, size_t i);
// Argument `i` as a tuple of tensors (concatenate, stack).
absl::StatusOr<std::vector<const TensorType*>> TensorTupleArg(const TypeRelCall& call, size_t i);
// Fails unless `actual` has dtype `dtype` and shape `shape` (a `?` on either
// side matches any extent): "expected bias of type Tensor[(3), float32],
// got Tensor[(4), float32]". This is how carve checks TVM's type
// "assignments" to inputs such as bias, gamma or weight.
absl::Status ExpectType(const TensorType* actual, DataType dtype, std::span<const Dim> shape,
                        std::string_view what);
// Same for a scalar-or-vector quantization parameter: `actual` must have
// dtype `dtype` and be rank 0 or exactly (extent,).
absl::Status ExpectScalarOrVector(const TensorType* actual, DataType dtype, Dim extent,
                                  std::string_view what);
// Fails unless `actual` is a rank-0 tensor of dtype `dtype`.
absl::Status ExpectScalar(const TensorType* actual, DataType dtype, std::string_view what);

// ---- Attributes ---------------------------------------------------------

// An integer-list attribute that may be null. It reads like
// std::optional<std::vector<int64_t>> but always holds a vector, which keeps
// GCC 12's -Wmaybe-uninitialized false positives away.
struct MaybeInts {
  bool present = false;
  std::vector<int64_t> values;

  explicit operator bool() const { return present; }
  const std::vector<int64_t>& operator*() const { return values; }
  const std::vector<int64_t>* operator->() const { return &values; }
  std::vector<int64_t> value_or(std::vector<int64_t> fallback) const {
    return present ? values : std::move(fallback);
  }
};

// Typed, checked reads of a call's attributes. A field absent from the
// call's attrs (or attrs == nullptr) reads as the schema default, so a
// relation never crashes on incomplete attrs.
class AttrReader {
 public:
  explicit AttrReader(const TypeRelCall& call) : call_(call) {}

  // The raw value (null when absent everywhere).
  AttrValue Raw(std::string_view name) const;

  // Scalar fields. Each fails on a value of another kind, and all but Bool
  // on a null value ("attribute 'axis' must be set").
  absl::StatusOr<int64_t> Int(std::string_view name) const;
  absl::StatusOr<bool> Bool(std::string_view name) const;
  absl::StatusOr<double> Double(std::string_view name) const;
  absl::StatusOr<std::string_view> String(std::string_view name) const;
  // A DataType field; "" (unset) reads as DataType::Void().
  absl::StatusOr<DataType> DType(std::string_view name) const;
  // An integer list that must be present ("pool_size must be set").
  absl::StatusOr<std::vector<int64_t>> Ints(std::string_view name) const;
  // An integer list that may be null (kernel_size, axis).
  absl::StatusOr<MaybeInts> OptInts(std::string_view name) const;
  // A single integer that may be null (channels, units, take's axis).
  absl::StatusOr<std::optional<int64_t>> OptInt(std::string_view name) const;
  // A list of integer lists (pad_width).
  absl::StatusOr<std::vector<std::vector<int64_t>>> IntsArray(std::string_view name) const;
  // A list of numbers (roi); nullopt when null.
  absl::StatusOr<std::optional<std::vector<double>>> OptDoubles(std::string_view name) const;

 private:
  const TypeRelCall& call_;
};

// ---- Dims and shapes ----------------------------------------------------

// A static int32 dim.
inline Dim D(int64_t v) { return Dim{v, false}; }
// A static dim computed from `from`: it is wide (int64) when any of them is,
// as TVM promotes int32 op int64 to int64.
Dim Computed(int64_t v, std::initializer_list<Dim> from);
// True when `a` and `b` may be equal (one is `?` or both have one value).
inline bool DimMatches(Dim a, Dim b) { return a.is_any() || b.is_any() || a.value == b.value; }
inline bool DimIs(Dim d, int64_t v) { return !d.is_any() && d.value == v; }
// Division rounding toward -inf (TVM's indexdiv); `b` must be nonzero.
int64_t FloorDiv(int64_t a, int64_t b);
// Checked arithmetic on dims and on the attrs that scale them: the result, or
// an error when it leaves int64 (no tensor is that large, and the overflow
// itself would be undefined behaviour).
absl::StatusOr<int64_t> CheckedMul(int64_t a, int64_t b);
absl::StatusOr<int64_t> CheckedAdd(int64_t a, int64_t b);
absl::StatusOr<int64_t> CheckedSub(int64_t a, int64_t b);
// The message of `status` as a std::string (Debian's absl::string_view is
// not formattable).
std::string StatusText(const absl::Status& status);
// "void" for the unset dtype, else its name.
std::string DTypeName(DataType dtype);
// "[1, 2]".
std::string IntsToString(std::span<const int64_t> v);

// Normalises a possibly negative axis into [0, ndim); `what` names it in
// the message ("axis 4 is out of range for rank 3").
absl::StatusOr<int64_t> NormalizeAxis(int64_t axis, int64_t ndim, std::string_view what = "axis");

// Numpy-style broadcasting of two shapes (TVM's BroadcastRel rule).
absl::StatusOr<Shape> BroadcastShapes(std::span<const Dim> a, std::span<const Dim> b);

// Total padding per spatial axis from a conv/pool padding list: 1 value
// (all sides), `spatial` values (both sides of each axis) or 2*`spatial`
// values (all befores, then all afters).
absl::StatusOr<std::vector<int64_t>> PaddingTotals(std::span<const int64_t> padding, int spatial);
// Checks that `values` (strides, dilation, ...) has `n` entries, all
// positive when `positive`.
absl::Status ExpectCount(std::span<const int64_t> values, size_t n, std::string_view what,
                         bool positive);

// ---- Layouts ------------------------------------------------------------

// Parses `layout` (the attribute `what`) and builds its bijection to the
// canonical layout `canonical`: "data_layout NC is not convertible to NCHW".
absl::StatusOr<BijectiveLayout> LayoutTo(std::string_view layout, std::string_view canonical,
                                         std::string_view what);
// `t`'s shape in the canonical layout: "expected 4-d input in layout NCHW,
// got (1, 3)".
absl::StatusOr<Shape> ToCanonical(const TensorType* t, const BijectiveLayout& bij,
                                  std::string_view what);

}  // namespace carve::rel

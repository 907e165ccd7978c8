// The rules of `run --compare` on one pair of tensors (CompareTensors) and
// the merge of several comparisons (ErrorStats::Merge); backends/compare.h
// states the rules. Floats compare as doubles; integers and booleans compare
// exactly in their own type, since an int64 or uint64 above 2^53 has no
// exact double and two different values could round to the same one.
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "backends/compare.h"
#include "backends/compare_internal.h"
#include "fmt/format.h"
#include "ir/type.h"

namespace carve {
namespace {

std::vector<int64_t> Unravel(int64_t flat, const std::vector<int64_t>& shape) {
  std::vector<int64_t> index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    index[d] = shape[d] == 0 ? 0 : flat % shape[d];
    flat = shape[d] == 0 ? 0 : flat / shape[d];
  }
  return index;
}

// Orders candidate worst elements: a one-sided NaN first, then by |a - b|.
std::pair<int, double> Badness(double a, double b) {
  if (std::isnan(a) != std::isnan(b)) return {1, 0};
  if (std::isnan(a) || a == b) return {0, 0};
  return {0, std::abs(a - b)};
}

std::pair<int, double> WorstBadness(const ErrorStats& s) {
  return s.has_worst ? Badness(s.worst_got, s.worst_ref) : std::pair<int, double>{-1, 0};
}

void SetWorst(ErrorStats& s, int64_t worst, const NDArray& got, const NDArray& ref) {
  if (worst < 0) return;
  s.has_worst = true;
  s.worst_index = Unravel(worst, ref.shape());
  s.worst_got = got.GetAsDouble(worst);
  s.worst_ref = ref.GetAsDouble(worst);
}

// |v| of an integer as uint64 (exact for INT64_MIN too).
template <typename T>
uint64_t Magnitude(T v) {
  if constexpr (std::is_signed_v<T>) return v < 0 ? uint64_t(0) - uint64_t(v) : uint64_t(v);
  return uint64_t(v);
}

// The elementwise rule on integers of type T, exactly: |a - b| as a uint64
// (every int64 or uint64 difference fits), 0 when equal.
template <typename T>
void CompareIntegers(const NDArray& got, const NDArray& ref, ErrorStats& s) {
  const T* a = got.data<T>();
  const T* b = ref.data<T>();
  int64_t worst = -1;
  uint64_t worst_diff = 0;
  for (int64_t i = 0; i < ref.num_elements(); ++i) {
    s.max_magnitude =
        std::max({s.max_magnitude, double(Magnitude(a[i])), double(Magnitude(b[i]))});
    if (a[i] == b[i]) continue;
    const uint64_t diff = a[i] > b[i] ? uint64_t(a[i]) - uint64_t(b[i])
                                      : uint64_t(b[i]) - uint64_t(a[i]);
    const double b_abs = double(Magnitude(b[i]));
    s.max_abs_integer = std::max(s.max_abs_integer, diff);
    s.max_rel = std::max(s.max_rel, double(diff) / std::max(b_abs, 1e-30));
    if (diff > worst_diff) worst = i, worst_diff = diff;
    if (double(diff) <= s.atol + s.rtol * b_abs) continue;
    s.within = false;
    ++s.out_of_tolerance;
  }
  s.max_abs = double(s.max_abs_integer);
  SetWorst(s, worst, got, ref);
  if (worst >= 0) {
    s.worst_got_text = fmt::format("{}", a[worst]);
    s.worst_ref_text = fmt::format("{}", b[worst]);
  }
}

// The integer dtypes (and bool, one byte); false for any other.
bool CompareIfIntegral(const NDArray& got, const NDArray& ref, ErrorStats& s) {
  const DataType dt = ref.dtype();
  if (dt.lanes != 1 || !dt.is_integral()) return false;
  s.integral = true;
  const bool u = dt.code == DataType::kUInt;
  switch (dt.bytes()) {
    case 1:
      u ? CompareIntegers<uint8_t>(got, ref, s) : CompareIntegers<int8_t>(got, ref, s);
      return true;
    case 2:
      u ? CompareIntegers<uint16_t>(got, ref, s) : CompareIntegers<int16_t>(got, ref, s);
      return true;
    case 4:
      u ? CompareIntegers<uint32_t>(got, ref, s) : CompareIntegers<int32_t>(got, ref, s);
      return true;
    case 8:
      u ? CompareIntegers<uint64_t>(got, ref, s) : CompareIntegers<int64_t>(got, ref, s);
      return true;
    default:
      s.integral = false;
      return false;
  }
}

// Both rules on float tensors (any other dtype GetAsDouble reads).
void CompareFloats(const NDArray& got, const NDArray& ref, ErrorStats& s) {
  if (s.norm_rule) {
    for (int64_t i = 0; i < ref.num_elements(); ++i) {
      double b = std::abs(ref.GetAsDouble(i));
      if (std::isfinite(b)) s.scale = std::max(s.scale, b);
    }
  }
  int64_t worst = -1;
  std::pair<int, double> worst_badness{0, 0};
  for (int64_t i = 0; i < got.num_elements(); ++i) {
    double a = got.GetAsDouble(i), b = ref.GetAsDouble(i);
    for (double v : {a, b}) {
      if (std::isfinite(v)) s.max_magnitude = std::max(s.max_magnitude, std::abs(v));
    }
    if (!std::isfinite(a) && !std::isfinite(b)) ++s.nonfinite_both;
    std::pair<int, double> badness = Badness(a, b);
    if (badness > worst_badness) worst = i, worst_badness = badness;
    if (std::isnan(a) != std::isnan(b)) {
      s.within = false;
      s.max_abs = s.max_rel = INFINITY;
      ++s.out_of_tolerance;
      ++s.nan_one_side;
      continue;
    }
    if (std::isnan(a) || a == b) continue;
    double abs = std::abs(a - b);
    s.max_abs = std::max(s.max_abs, abs);
    s.max_rel = std::max(s.max_rel, abs / std::max(std::abs(b), 1e-30));
    if (abs <= s.atol + s.rtol * std::abs(b)) continue;
    if (s.norm_rule && abs <= s.rtol * s.scale) {
      ++s.by_norm_rule;
      continue;
    }
    s.within = false;
    ++s.out_of_tolerance;
  }
  SetWorst(s, worst, got, ref);
}

}  // namespace

absl::StatusOr<ErrorStats> CompareTensors(const NDArray& got, const NDArray& ref, double rtol,
                                          double atol) {
  if (got.dtype() != ref.dtype() || got.shape() != ref.shape()) {
    return absl::InternalError(
        fmt::format("backend result {} does not match the reference {}",
                    compare_internal::TypeText(got), compare_internal::TypeText(ref)));
  }
  ErrorStats s;
  s.count = 1;
  s.rtol = rtol;
  s.atol = atol;
  s.norm_rule = ref.dtype().is_float();
  s.elements = ref.num_elements();
  if (!CompareIfIntegral(got, ref, s)) CompareFloats(got, ref, s);
  return s;
}

void ErrorStats::Merge(const ErrorStats& other) {
  if (WorstBadness(other) > WorstBadness(*this)) {
    has_worst = true;
    worst_index = other.worst_index;
    worst_call = count + other.worst_call;
    worst_got = other.worst_got;
    worst_ref = other.worst_ref;
    worst_got_text = other.worst_got_text;
    worst_ref_text = other.worst_ref_text;
  }
  max_abs = std::max(max_abs, other.max_abs);
  max_abs_integer = std::max(max_abs_integer, other.max_abs_integer);
  max_rel = std::max(max_rel, other.max_rel);
  within = within && other.within;
  count += other.count;
  rtol = other.rtol;
  atol = other.atol;
  quantized = other.quantized;
  integral = integral || other.integral;
  norm_rule = norm_rule || other.norm_rule;
  scale = std::max(scale, other.scale);
  elements += other.elements;
  out_of_tolerance += other.out_of_tolerance;
  by_norm_rule += other.by_norm_rule;
  nan_one_side += other.nan_one_side;
  nonfinite_both += other.nonfinite_both;
  max_magnitude = std::max(max_magnitude, other.max_magnitude);
}

namespace compare_internal {

std::string TypeText(const NDArray& t) {
  std::vector<Dim> dims;
  for (int64_t d : t.shape()) dims.push_back(Dim{d, false});
  return TypeToString(TensorTy(t.dtype(), dims));
}

}  // namespace compare_internal
}  // namespace carve

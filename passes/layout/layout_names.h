// Layout-string helpers of ConvertLayout / AlterOpLayout's rewriter
// (passes/layout/layout_rewriter.h): TVM's Layout methods for the layouts
// the rewriter reasons about: strings of distinct primal axes ("NCHW") and,
// as the result of a conversion to a blocked layout, layouts with split
// axes ("NCHW4c"); and the layout_transform call that moves a value
// between two of them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "ir/expr.h"

namespace carve::layout {

// A layout of `rank` distinct primal axes.
bool IsPlainLayout(std::string_view layout, size_t rank);

// A layout with a split axis (a lower-case letter: NCHW4c, OIHW4i4o).
bool IsBlocked(std::string_view layout);

// The number of primal (upper-case) axes of `layout` (TVM's ndim_primal).
size_t PrimalCount(std::string_view layout);

// TVM's `NCHW(\d*)c` match in convert_conv2d: the block of a data layout
// NCHW<n>c with n digits, else nullopt.
std::optional<int64_t> NchwcBlock(std::string_view layout);

// TVM's AdjustSubordinateFactors (infer_layout_utils.cc): `layout` (a
// broadcast operand's target) with the factor of each sub-axis set to 1
// where the operand, in `old_layout` with `old_shape`, has no such axis or
// an extent of 1 there (NCHW4c for a (1, 1, 1, 1) NCHW operand is
// NCHW1c), so that it still broadcasts.
std::string AdjustSubordinateFactors(const std::string& layout, const std::string& old_layout,
                                     std::span<const Dim> old_shape);

// The last `rank` axes of `layout` (TVM's Layout::SubLayout for the shape
// of a broadcast operand of lower rank): "C" for NHWC and rank 1.
std::string Suffix(const std::string& layout, size_t rank);

// TVM's Layout::ExpandPrimal: the primal axes of `dst` missing from `src`,
// in dst's order, then src ("C" expanded for NCHW is "NHWC", "CHW" for
// NCHW4c is "NCHW").
std::string ExpandPrimal(const std::string& src, const std::string& dst);

// TVM's TryTransformLike: `old` (the layout of a broadcast operand of lower
// rank) renamed so that it moves as `ref_old` moves to `ref_new` (a
// sub-axis of ref_new renamed with its primal axis, its factor kept).
std::string TryTransformLike(const std::string& old, const std::string& ref_old,
                             const std::string& ref_new);

// The position in `new_layout` of the axis at `axis` (negative: from the
// end) of `old_layout`; nullopt when out of range or missing.
std::optional<int64_t> NewAxisIndex(const std::string& old_layout, const std::string& new_layout,
                                    int64_t axis);

// The rank of e's tensor type (0 when it has none).
size_t RankOf(const Expr* e);

// Every extent is 1 (TVM's IsScalar in the layout rewriter: such an operand
// broadcasts in any layout and is never transformed).
bool AllOnes(const TensorType* t);

// layout_transform(e, src -> dst), typed when e's shape maps.
const Expr* Transform(IRBuilder& b, const Expr* e, std::string_view src, std::string_view dst);

// The string attribute `key` of `call`, else the op's schema default.
std::string AttrOrDefault(const Call* call, std::string_view key);

}  // namespace carve::layout

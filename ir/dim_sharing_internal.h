// The rules of ir/dim_sharing_*.cc, collected by ir/dim_sharing.cc, and the
// helpers they share.
#pragma once

#include <string_view>

#include "ir/dim_sharing.h"

namespace carve::dim_sharing {

// Position of `axis` (an upper-case layout letter) in a plain layout of
// `rank` letters; -1 when the layout has split axes or lacks the letter.
int Pos(std::string_view layout, char axis, size_t rank);
inline int64_t NormAxis(int64_t axis, size_t rank) {
  return axis < 0 ? axis + int64_t(rank) : axis;
}

// dim_sharing_elementwise.cc
void SameAsData(DimSharingCall& c);
void QnnPerChannel(DimSharingCall& c);
void Dropout(DimSharingCall& c);
void Broadcast(DimSharingCall& c);
// dim_sharing_nn.cc
void PerAxis(DimSharingCall& c);
void Dense(DimSharingCall& c);
void Matmul(DimSharingCall& c);
void BatchFlatten(DimSharingCall& c);
// dim_sharing_conv.cc
void Conv(DimSharingCall& c);
void Pool(DimSharingCall& c);
// dim_sharing_transform.cc
void ConcatenateOrStack(DimSharingCall& c);
void Transpose(DimSharingCall& c);
void Reduce(DimSharingCall& c);
void ExpandDims(DimSharingCall& c);
void Squeeze(DimSharingCall& c);
void Split(DimSharingCall& c);
void Take(DimSharingCall& c);
void Reshape(DimSharingCall& c);

}  // namespace carve::dim_sharing

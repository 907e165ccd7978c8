#include "ir/dim_sharing.h"

#include "absl/container/flat_hash_map.h"
#include "ir/dim_sharing_internal.h"
#include "ir/type_relations.h"

namespace carve {
namespace dim_sharing {

int Pos(std::string_view layout, char axis, size_t rank) {
  if (layout.size() != rank) return -1;
  for (char c : layout) {
    if (c < 'A' || c > 'Z') return -1;
  }
  size_t p = layout.find(axis);
  return p == std::string_view::npos ? -1 : int(p);
}

}  // namespace dim_sharing

namespace {

// Each modelled relation and the rule that mirrors its PrimExpr copies.
const absl::flat_hash_map<TypeRelation, DimSharingRule>& Rules() {
  using namespace dim_sharing;
  static const auto* rules = new absl::flat_hash_map<TypeRelation, DimSharingRule>{
      {&rel::Concatenate, ConcatenateOrStack},
      {&rel::Stack, ConcatenateOrStack},
      {&rel::Identity, SameAsData},
      {&rel::IdentityComp, SameAsData},
      {&rel::Cast, SameAsData},
      {&rel::Softmax, SameAsData},
      {&rel::QnnQuantize, QnnPerChannel},
      {&rel::QnnDequantize, QnnPerChannel},
      {&rel::QnnRequantize, QnnPerChannel},
      {&rel::Dropout, Dropout},
      {&rel::Broadcast, Broadcast},
      {&rel::BroadcastComp, Broadcast},
      {&rel::QnnAdd, Broadcast},
      {&rel::BiasAdd, PerAxis},
      {&rel::PRelu, PerAxis},
      {&rel::BatchNorm, PerAxis},
      {&rel::LayerNorm, PerAxis},
      {&rel::InstanceNorm, PerAxis},
      {&rel::Dense, Dense},
      {&rel::QnnDense, Dense},
      {&rel::Matmul, Matmul},
      {&rel::Conv1D, Conv},
      {&rel::Conv2D, Conv},
      {&rel::Conv3D, Conv},
      {&rel::QnnConv2D, Conv},
      {&rel::Conv1DTranspose, Conv},
      {&rel::Conv2DTranspose, Conv},
      {&rel::Conv3DTranspose, Conv},
      {&rel::Pool1D, Pool},
      {&rel::Pool2D, Pool},
      {&rel::Pool3D, Pool},
      {&rel::GlobalPool2D, Pool},
      {&rel::AdaptivePool2D, Pool},
      {&rel::BatchFlatten, BatchFlatten},
      {&rel::Transpose, Transpose},
      {&rel::Reduce, Reduce},
      {&rel::ArgReduce, Reduce},
      {&rel::Variance, Reduce},
      {&rel::ExpandDims, ExpandDims},
      {&rel::Squeeze, Squeeze},
      {&rel::Split, Split},
      {&rel::Take, Take},
      {&rel::Reshape, Reshape},
  };
  return *rules;
}

}  // namespace

DimSharingRule FindDimSharingRule(TypeRelation rel) {
  auto it = Rules().find(rel);
  return it == Rules().end() ? nullptr : it->second;
}

}  // namespace carve

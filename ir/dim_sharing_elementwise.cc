// Dimension sharing of the elementwise relations (rel_elementwise.cc) and of
// the QNN relations that keep their data's shape (rel_qnn.cc).
#include <algorithm>

#include "ir/dim_sharing_internal.h"

namespace carve::dim_sharing {

// IdentityRel, IdentityCompRel, CastRel, SoftmaxRel: the output type is the
// input's, or a new type over the input's shape Array.
void SameAsData(DimSharingCall& c) {
  if (c.data() == nullptr) return;
  c.SetOut(c.ArgDims(0));
}

// QNN's AssignType (quantize, dequantize, requantize): a per-channel
// (non-scalar) input scale and zero point are given the type (data[axis],).
void QnnPerChannel(DimSharingCall& c) {
  const TensorType* data = c.data();
  if (data == nullptr || c.attrs() == nullptr) return;
  size_t rank = data->rank();
  std::vector<int64_t> d = c.ArgDims(0);
  int64_t axis = NormAxis(c.attrs()->GetInt("axis", -1), rank);
  if (axis >= 0 && axis < int64_t(rank)) {
    for (size_t i = 1; i < 3 && i < c.args().size(); ++i) c.Assign(i, {d[axis]});
  }
  c.SetOut(std::move(d));
}

// DropoutRel: (data, mask), both of the data's type.
void Dropout(DimSharingCall& c) {
  if (c.data() == nullptr) return;
  DimTokens out;
  out.tuple = true;
  out.fields.push_back(DimTokens{false, c.ArgDims(0), {}});
  out.fields.push_back(DimTokens{false, c.ArgDims(0), {}});
  c.SetOutTokens(std::move(out));
}

// ConcreteBroadcast (BroadcastRel, BroadcastCompRel, QnnAddRel): from the
// last dim, an extent 1 takes the other side's object (the rhs's when both
// are 1), a `?` the other side's, equal extents the lhs's; extra leading
// dims come from the longer shape.
void Broadcast(DimSharingCall& c) {
  const TensorType* data = c.data();
  if (data == nullptr || c.args().size() < 2) return;
  const TensorType* rhs = DynCast<TensorType>(c.args()[1]->checked_type());
  if (rhs == nullptr) return;
  std::vector<int64_t> a = c.ArgDims(0), b = c.ArgDims(1);
  size_t n1 = data->rank(), n2 = rhs->rank(), n = std::max(n1, n2);
  std::vector<int64_t> out(n);
  for (size_t i = 1; i <= n; ++i) {
    int64_t pick;
    if (i <= n1 && i <= n2) {
      int64_t s1 = data->shape()[n1 - i].value, s2 = rhs->shape()[n2 - i].value;
      bool any1 = s1 == Dim::kAny;
      pick = s1 == 1 ? b[n2 - i] : s2 == 1 ? a[n1 - i] : any1 ? b[n2 - i] : a[n1 - i];
    } else {
      pick = n1 > n2 ? a[n1 - i] : b[n2 - i];
    }
    out[n - i] = pick;
  }
  c.SetOut(std::move(out));
}

}  // namespace carve::dim_sharing

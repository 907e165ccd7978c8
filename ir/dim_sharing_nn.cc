// Dimension sharing of the nn relations (rel_nn.cc, rel_dense.cc and the
// QNN dense of rel_qnn.cc).
#include "ir/dim_sharing_internal.h"
#include "ir/type_relations.h"

namespace carve::dim_sharing {

// BiasAddRel, PReluRel, BatchNormRel, LayerNormRel, InstanceNormRel: the
// other inputs are given a type built from the data's axis extent;
// batch_norm's outputs are (data, (C,), (C,)).
void PerAxis(DimSharingCall& c) {
  const TensorType* data = c.data();
  if (data == nullptr || c.attrs() == nullptr || data->rank() == 0) return;
  size_t rank = data->rank();
  int64_t axis = NormAxis(c.attrs()->GetInt("axis"), rank);
  if (axis < 0 || axis >= int64_t(rank)) return;
  std::vector<int64_t> d = c.ArgDims(0);
  for (size_t i = 1; i < c.args().size(); ++i) c.Assign(i, {d[axis]});
  if (c.call()->op()->type_rel == &rel::BatchNorm) {
    DimTokens out;
    out.tuple = true;
    out.fields.push_back(DimTokens{false, d, {}});
    out.fields.push_back(DimTokens{false, {d[axis]}, {}});
    out.fields.push_back(DimTokens{false, {d[axis]}, {}});
    c.SetOutTokens(std::move(out));
  } else {
    c.SetOut(d);
  }
}

// DenseRel, QnnDenseRel: with `units`, the weight is (units, data[-1]) and
// the output's last extent is the units object; without, the weight's first
// extent.
void Dense(DimSharingCall& c) {
  const TensorType* data = c.data();
  if (data == nullptr || c.attrs() == nullptr || c.args().size() < 2 || data->rank() == 0) return;
  size_t rank = data->rank();
  std::vector<int64_t> d = c.ArgDims(0);
  const AttrValue* units = c.attrs()->Find("units");
  int64_t last;
  if (units != nullptr && !units->is_null()) {
    last = c.Fresh();
    c.Assign(1, {last, d[rank - 1]});
    // QnnDenseRel: a per-channel kernel scale is (units,).
    if (c.call()->op()->type_rel == &rel::QnnDense && c.args().size() == 6) c.Assign(5, {last});
  } else {
    std::vector<int64_t> w = c.ArgDims(1);
    if (w.empty()) return;
    last = w[0];
  }
  d[rank - 1] = last;
  c.SetOut(std::move(d));
}

// MatmulRel: the reduced extent is a[-1] (a[-2] transposed); with `units`
// tensor_b is (reduce, units) or, transposed, (units, reduce).
void Matmul(DimSharingCall& c) {
  const TensorType* data = c.data();
  if (data == nullptr || c.attrs() == nullptr || c.args().size() < 2 || data->rank() < 2) return;
  size_t rank = data->rank();
  const Attrs* attrs = c.attrs();
  std::vector<int64_t> d = c.ArgDims(0);
  bool ta = attrs->GetInt("transpose_a") != 0, tb = attrs->GetInt("transpose_b") != 0;
  int64_t reduce = ta ? d[rank - 2] : d[rank - 1];
  if (ta) d[rank - 2] = d[rank - 1];
  const AttrValue* units = attrs->Find("units");
  if (units != nullptr && !units->is_null()) {
    int64_t u = c.Fresh();
    c.Assign(1, tb ? std::vector<int64_t>{u, reduce} : std::vector<int64_t>{reduce, u});
    d[rank - 1] = u;
  } else {
    std::vector<int64_t> w = c.ArgDims(1);
    if (w.size() != 2) return;
    d[rank - 1] = tb ? w[0] : w[1];
  }
  c.SetOut(std::move(d));
}

// BatchFlattenRel: N is the data's, the flattened extent new.
void BatchFlatten(DimSharingCall& c) {
  const TensorType* data = c.data();
  if (data == nullptr || data->rank() == 0) return;
  int64_t n = c.ArgDims(0)[0];
  c.SetOut({n, c.Fresh()});
}

}  // namespace carve::dim_sharing

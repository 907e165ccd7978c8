// Dimension sharing of the convolution and pooling relations (rel_conv.cc,
// rel_conv_transpose.cc, rel_pool.cc and the QNN conv2d of rel_qnn.cc).
#include <string_view>

#include "ir/dim_sharing_internal.h"
#include "ir/type_relations.h"

namespace carve::dim_sharing {

// Conv2DRel and its 1-d / 3-d forms: with channels and kernel_size the
// weight is (channels, C / groups, kernel...) in the kernel layout (a
// depthwise weight starts with the data's C); the output's channel extent
// is the channels object (else the weight's O), N is the data's. The
// transposed forms (Conv2DTransposeRel, ...) build the weight as (C,
// channels / groups, kernel...) in IOHW terms, and without channels the
// output's channel extent is the weight's O.
void Conv(DimSharingCall& c) {
  const TensorType* data = c.data();
  const Attrs* attrs = c.attrs();
  if (data == nullptr || attrs == nullptr || c.args().size() < 2) return;
  TypeRelation rel = c.call()->op()->type_rel;
  bool transposed = rel == &rel::Conv1DTranspose || rel == &rel::Conv2DTranspose ||
                    rel == &rel::Conv3DTranspose;
  size_t rank = data->rank();
  std::string_view spatial = rank == 3 ? "W" : rank == 4 ? "HW" : "DHW";
  std::string_view dl = attrs->GetString("data_layout");
  std::string_view kl = attrs->GetString("kernel_layout");
  std::string_view ol = attrs->GetString("out_layout");
  if (ol.empty()) ol = dl;
  int n = Pos(dl, 'N', rank), ch = Pos(dl, 'C', rank);
  int on = Pos(ol, 'N', rank), oc = Pos(ol, 'C', rank);
  int ko = Pos(kl, 'O', rank), ki = Pos(kl, 'I', rank);
  if (n < 0 || ch < 0 || on < 0 || oc < 0 || ko < 0 || ki < 0) return;
  std::vector<int64_t> d = c.ArgDims(0);
  const AttrValue* channels = attrs->Find("channels");
  const AttrValue* kernel = attrs->Find("kernel_size");
  int64_t out_c;
  if (channels != nullptr && !channels->is_null() && kernel != nullptr && !kernel->is_null() &&
      kernel->as_array().size() == spatial.size()) {
    out_c = c.Fresh();
    int64_t groups = attrs->GetInt("groups", 1);
    bool depthwise = !transposed && groups > 1 && data->shape()[ch].value == groups &&
                     channels->as_int() == groups;
    std::vector<int64_t> w(rank);
    if (transposed) {
      w[ki] = d[ch];
      w[ko] = c.Fresh();
    } else {
      w[ko] = depthwise ? d[ch] : out_c;
      w[ki] = c.Fresh();
    }
    for (size_t s = 0; s < spatial.size(); ++s) {
      int k = Pos(kl, spatial[s], rank);
      if (k < 0) return;
      w[k] = c.Fresh();  // the kernel_size attribute's own IntImm
    }
    c.Assign(1, std::move(w));
  } else {
    std::vector<int64_t> w = c.ArgDims(1);
    if (w.size() != rank) return;
    out_c = w[ko];
  }
  std::vector<int64_t> out = c.FreshDims(rank);
  out[on] = d[n];
  out[oc] = out_c;
  c.SetOut(std::move(out));
}

// Pool2DRel and friends (1-d, 3-d, global, adaptive): N and C are the
// data's objects, the rest new.
void Pool(DimSharingCall& c) {
  const TensorType* data = c.data();
  const Attrs* attrs = c.attrs();
  if (data == nullptr || attrs == nullptr) return;
  size_t rank = data->rank();
  std::string_view layout = attrs->GetString("layout");
  std::string_view out_layout = attrs->GetString("out_layout");
  if (out_layout.empty()) out_layout = layout;
  int n = Pos(layout, 'N', rank), ch = Pos(layout, 'C', rank);
  int on = Pos(out_layout, 'N', rank), oc = Pos(out_layout, 'C', rank);
  if (n < 0 || ch < 0 || on < 0 || oc < 0) return;
  std::vector<int64_t> d = c.ArgDims(0);
  std::vector<int64_t> out = c.FreshDims(rank);
  out[on] = d[n];
  out[oc] = d[ch];
  c.SetOut(std::move(out));
}

}  // namespace carve::dim_sharing

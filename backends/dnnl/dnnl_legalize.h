// DnnlLegalize: TVM's Legalize pass as partition_for_dnnl runs it, with
// dnnl.legalize_group_conv installed (TempOpAttr) as the FTVMLegalize of
// nn.conv2d and nn.conv2d_transpose. Nothing else in partition_for_dnnl's
// pass context has a legalization that changes a graph (the generic conv2d
// and dense legalizations only act for a target, and there is none), so
// this is the whole effect of that Legalize:
//   a grouped (groups > 1) convolution with a static 4-d weight (A, B, H, W)
//   gets the weight reshape(w, newshape=[groups, A/groups, B, H, W]) and
//   kernel_layout "GOIHW" (conv2d) or "GIOHW" (conv2d_transpose); every other
//   field stays. Like dnnl.py, the weight's axes are read as written,
//   whatever the kernel layout was. groups == 1 rebuilds the same call
//   (nothing to do).
// A weight that is not a static rank-4 tensor is left alone (dnnl.py would
// raise while unpacking its shape).
#pragma once

#include "absl/status/statusor.h"
#include "ir/expr.h"
#include "passes/pass.h"

namespace carve {

absl::StatusOr<const Function*> DnnlLegalizeFunction(const Function* fn, Arena* arena);
PassPtr DnnlLegalize();

}  // namespace carve

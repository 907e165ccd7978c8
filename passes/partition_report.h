// The partition report of `carve partition --report`: for each backend, what
// was offloaded and what stayed on the host, and why. Stable text (sorted,
// no timings) for golden files:
//
//   backend dnnl: 120 of 140 ops offloaded (85.7%) in 3 regions
//     offloaded ops:
//       nn.conv2d              40
//     composites:
//       dnnl.conv2d_bias_relu  40
//     not offloaded:
//       nn.max_pool2d           3  failed check: ?.layout == "NCHW"
//       nn.softmax              2  unsupported op
//     regions:
//       tvmgen_default_dnnl_main_0  80 ops  2 inputs  1 output
//     boundary tensors: 5 inputs, 3 outputs (1.2 MiB)
//     region breaks: 2 host ops between offloaded regions (nn.softmax 2)
//
// Ops are operator calls, counted inside composites; annotations are not
// ops. A host op is "not offloaded" because its op has no rule in the
// backend ("unsupported op"), a rule's condition failed ("failed check:
// <condition>"), an earlier backend took it ("claimed by <backend>"), or it
// sits in a composite that stayed on the host. Ops another backend offloaded
// are listed the same way: "unsupported op", "failed check", "claimed by
// <earlier backend>", or "offloaded to <later backend>" (a backend later in
// the list took an op this one also accepts, e.g. inside its composite). A region break is a host op
// that reads from an offloaded region and feeds one.
#pragma once

#include <string>
#include <vector>

#include "ir/module.h"
#include "passes/target.h"

namespace carve {

// The report for a module PartitionGraph produced (typed), for `backends` in
// priority order.
std::string RenderPartitionReport(const Module& mod, const std::vector<TargetSpecPtr>& backends);

}  // namespace carve

// The programs of the shared corpus (../shared/corpus) that the parser and
// printer tests run one by one, named so that each is its own test case.
#pragma once

#include <cctype>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace carve::testing_util {

// Listed rather than globbed, so a file added to the corpus is a reviewed
// new case and a missing one fails instead of silently shrinking the suite.
inline std::vector<std::string> CorpusFiles() {
  return {"acl_max_pool2d_input.relay", "acl_max_pool2d_partitioned.relay",
          "conv_bound_constants.relay", "dcgan.relay", "demo_0_input.relay",
          "demo_1_merge_composite.relay", "demo_2_annotate_target.relay",
          "demo_3_merge_compiler_regions.relay", "demo_4_partition_graph.relay",
          "demo_seed_name_1_merge_composite.relay",
          "demo_seed_name_2_annotate_target.relay",
          "demo_seed_name_3_merge_compiler_regions.relay",
          "demo_seed_name_4_partition_graph.txt", "dqn.relay",
          "globals_recursion.relay", "infix_ops.relay", "lstm.relay", "mlp.relay",
          "mlp_bound_params.relay", "resnet18_cifar.relay", "scalars_let_if_fn.relay",
          "squeezenet1_0.relay", "squeezenet1_1.relay"};
}

// "demo_0_input.relay" -> "demo_0_input": a test name gtest accepts.
inline std::string CorpusCaseName(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param.substr(0, info.param.find('.'));
  for (char& c : name) c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return name;
}

}  // namespace carve::testing_util

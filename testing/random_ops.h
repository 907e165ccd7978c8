// The random-program generator's op tables (random_ops.cc, random_ops_more.cc).
#pragma once

#include <vector>

#include "testing/random_model.h"

namespace carve::testing {

// One op family: how often it is drawn, and its generator (false when it
// did not apply to the values at hand).
struct OpGen {
  int weight;
  bool (*gen)(ProgramBuilder&);
};

// The families of random_ops_more.cc.
const std::vector<OpGen>& MoreOps();

}  // namespace carve::testing

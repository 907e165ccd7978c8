// The random-program generator's op tables (random_ops.cc, random_ops_shape.cc,
// random_ops_more.cc).
#pragma once

#include <cstdint>
#include <string>
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
// The specialised families of random_ops_contrib.cc (image, deformable and
// NCHWc convolutions, winograd, correlation, sparse, dft/stft, random.*,
// bitserial) and random_ops_quant.cc (qnn.*, simulated_quantize).
const std::vector<OpGen>& ContribOps();
const std::vector<OpGen>& QuantOps();

// Shared by the generator files.
namespace opgen {

std::string Ints(const std::vector<int64_t>& v);  // "[1, 2]"
std::string Float(double v);                      // "0.5f"
std::string Bool(bool v);                         // "True"
bool AnyStaticDim(const TensorT& t);
// A static axis of `t`, -1 if none.
int StaticAxis(Rng& rng, const TensorT& t);
int64_t NumElements(const TensorT& t);
// An axis written as given or counted from the end.
int64_t MaybeNegative(Rng& rng, int axis, int rank);
// A float value of rank in [lo, hi]; otherwise a fresh input of such rank
// (`spatial` gives dims 2..3 a size that convolutions and pools can take).
int FloatOfRank(ProgramBuilder& b, int lo, int hi, bool spatial = false);

// The shape families (random_ops_shape.cc), drawn from random_ops.cc's table.
bool Reshape(ProgramBuilder& b);
bool Transpose(ProgramBuilder& b);
bool Concatenate(ProgramBuilder& b);
bool Split(ProgramBuilder& b);
bool Reduce(ProgramBuilder& b);
bool ExpandSqueeze(ProgramBuilder& b);
bool StridedSlice(ProgramBuilder& b);
bool Pad(ProgramBuilder& b);
bool BiasAdd(ProgramBuilder& b);

}  // namespace opgen

}  // namespace carve::testing

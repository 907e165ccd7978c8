// A generator of random, typed, valid Relay programs for differential
// testing (tests/random/, `carve-gen`, docs/fuzzing.md).
//
// The generator keeps its own model of every value's type (shapes with
// static, zero and `?` dimensions; dtypes; tuples) and writes Relay text
// directly, independently of carve's type relations: @main's return type is
// the model's, so InferType disagreeing with the model shows up as a type
// error. A program the generator makes that does not type-check is a bug in
// the generator or in carve; the differential test tells which by looking.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace carve::testing {

struct RandomProgramOptions {
  int min_ops = 3;              // op bindings per program, at least
  int max_ops = 24;             // and at most
  double dynamic_rate = 0.15;   // chance that the batch dimension is `?`
  double zero_rate = 0.08;      // chance that the batch dimension is 0
  double let_rate = 0.05;       // chance that a binding is a `let`
  double if_rate = 0.04;        // chance of an `if` per binding
  double tuple_rate = 0.04;     // chance of an explicit tuple per binding
  double no_kernel_rate = 0.03;  // chance per program of one op without a kernel
  double const_weight_rate = 0.3;  // chance that a weight is constant (after folding)
};

// An input of @main with the shape it gets at run time (a `?` dimension
// gets the concrete size the generator chose for it).
struct RandomInput {
  std::string name;   // without '%'
  std::string dtype;  // "float32", "int32", "bool"
  std::vector<int64_t> shape;
  bool dynamic = false;  // the declared type has a `?` dimension
};

struct RandomProgram {
  std::string text;  // a whole .relay file
  std::vector<RandomInput> inputs;
  bool dynamic = false;  // some input has a `?` dimension
  int num_ops = 0;
  // False when the program uses an op without an interpreter kernel (TVM's
  // compiler-internal forms): it is parsed, typed and partitioned, not run.
  bool runnable = true;
};

// The program for `seed`: the same seed and options give the same text on
// every platform (the generator uses splitmix64, never std distributions).
RandomProgram GenerateRandomProgram(uint64_t seed, const RandomProgramOptions& options = {});

}  // namespace carve::testing

// The random-program generator's internals: its random source, its model of
// types, and the builder that op generators (random_ops.cc) write through.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "testing/random_program.h"

namespace carve::testing {

// splitmix64: the same stream on every platform.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next();
  // Uniform in [lo, hi].
  int64_t Range(int64_t lo, int64_t hi);
  bool Chance(double p);
  template <typename T>
  const T& Pick(const std::vector<T>& v) {
    return v[Range(0, int64_t(v.size()) - 1)];
  }

 private:
  uint64_t state_;
};

// A dimension: static (`sym` < 0) or `?` (`sym` names which `?`: two `?`
// dimensions are known equal only when they have the same sym). `size` is
// the static size, or the size a `?` gets at run time.
struct Dim {
  int64_t size = 1;
  int sym = -1;
  bool is_dynamic() const { return sym >= 0; }
  bool operator==(const Dim& o) const { return sym == o.sym && (sym >= 0 || size == o.size); }
};

struct TensorT {
  std::vector<Dim> shape;
  std::string dtype = "float32";
  int rank() const { return int(shape.size()); }
  bool is_float() const { return dtype == "float32"; }
  bool has_dynamic() const;
  bool operator==(const TensorT& o) const { return shape == o.shape && dtype == o.dtype; }
};

// "Tensor[(2, ?, 3), float32]"
std::string TypeText(const TensorT& t);

// A value the program can use: a parameter, a binding, or a tuple field.
struct Value {
  std::string ref;  // "%x", "%3", "%5.1"
  TensorT type;
  int uses = 0;
  bool is_param = false;
  bool is_output_candidate = true;  // false for parameters and `%cond`
  bool pickable = true;  // false for values only their maker may use (keys, int8)
};

class ProgramBuilder {
 public:
  ProgramBuilder(uint64_t seed, const RandomProgramOptions& options);

  Rng& rng() { return rng_; }
  const RandomProgramOptions& options() const { return options_; }

  // A fresh parameter of type `t` (weights, broadcast operands); returns its ref.
  std::string NewParam(const TensorT& t, const std::string& stem = "p");
  // A weight of static type `t`: a fresh parameter, or (const_weight_rate)
  // an expression of literals that FoldConstant turns into a constant, so
  // that the backends' patterns that want `const` weights match and offload.
  std::string Weight(const TensorT& t, const std::string& stem = "w");
  // Always the constant form of Weight (`t` static).
  std::string ConstWeight(const TensorT& t);
  // A random tensor value to use as an operand, biased towards recent
  // values; `accept` filters; returns -1 when nothing qualifies.
  int PickValue(const std::function<bool(const TensorT&)>& accept);
  const Value& value(int i) const { return values_[i]; }
  // The index of the value made last.
  int last() const { return int(values_.size()) - 1; }
  // Value `i` is never an output of @main (tuple fields that repeat their
  // operands, batch_norm's statistics).
  void Hide(int i) { values_[i].is_output_candidate = false; }
  // Value `i` is hidden and never drawn as an operand (random keys, the
  // integer fields of sparse tuples): only the generator that made it uses it.
  void Internal(int i) {
    Hide(i);
    values_[i].pickable = false;
  }
  // Marks value `i` used and returns its ref.
  std::string Use(int i);
  // Binds `expr` of type `t` to a new variable; returns the value index.
  int Bind(const std::string& expr, const TensorT& t);
  // Binds a tuple-valued `expr` whose fields have `fields` types; returns
  // the value indices of the fields ("%k.0", ...).
  std::vector<int> BindTuple(const std::string& expr, const std::vector<TensorT>& fields);
  // A new `?` symbol whose run-time size is `size`.
  Dim NewDynamic(int64_t size);
  // A float32 operand: a random float value, or a cast of an int one, or a
  // fresh parameter of a random shape.
  int FloatOperand();
  // A random shape for a fresh input (rank in [min_rank, max_rank]).
  TensorT RandomInputType(int min_rank, int max_rank);

  RandomProgram Finish();

  // Statistics for the op table.
  int num_ops() const { return num_ops_; }
  void count_op() { ++num_ops_; }
  // `if (%cond) { a } else { b }` needs one bool parameter, made on demand.
  std::string CondRef();
  // The program uses an op the interpreter cannot run.
  void MarkNotRunnable() { runnable_ = false; }

 private:
  Rng rng_;
  RandomProgramOptions options_;
  std::vector<Value> values_;
  std::vector<std::string> param_decls_;
  std::vector<RandomInput> inputs_;
  std::vector<std::string> lines_;
  int next_binding_ = 0;
  int next_param_ = 0;
  int next_sym_ = 0;
  int num_ops_ = 0;
  std::string cond_ref_;
  bool runnable_ = true;
};

// Appends one random operation to `b` (random_ops.cc); returns false when the
// chosen op did not apply (the caller draws again).
bool AddRandomOp(ProgramBuilder& b);
// Appends one op that has no interpreter kernel (random_ops_contrib.cc).
bool AddNoKernelOp(ProgramBuilder& b);

}  // namespace carve::testing

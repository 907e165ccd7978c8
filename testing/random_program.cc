// The random-program builder: values, parameters, bindings and the final
// text. Which ops are drawn and how is random_ops.cc's business.
#include "testing/random_program.h"

#include "fmt/format.h"
#include "testing/random_model.h"

namespace carve::testing {

uint64_t Rng::Next() {
  uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

int64_t Rng::Range(int64_t lo, int64_t hi) {
  if (hi <= lo) return lo;
  return lo + int64_t(Next() % uint64_t(hi - lo + 1));
}

bool Rng::Chance(double p) { return double(Next() >> 11) * (1.0 / 9007199254740992.0) < p; }

bool TensorT::has_dynamic() const {
  for (const Dim& d : shape) {
    if (d.is_dynamic()) return true;
  }
  return false;
}

std::string TypeText(const TensorT& t) {
  std::string dims;
  for (size_t i = 0; i < t.shape.size(); ++i) {
    if (i > 0) dims += ", ";
    dims += t.shape[i].is_dynamic() ? "?" : fmt::format("{}", t.shape[i].size);
  }
  if (t.shape.empty()) return t.dtype;
  return fmt::format("Tensor[({}), {}]", dims, t.dtype);
}

ProgramBuilder::ProgramBuilder(uint64_t seed, const RandomProgramOptions& options)
    : rng_(seed), options_(options) {}

std::string ProgramBuilder::NewParam(const TensorT& t, const std::string& stem) {
  std::string name = fmt::format("{}{}", stem, next_param_++);
  param_decls_.push_back(fmt::format("%{}: {}", name, TypeText(t)));
  RandomInput input{name, t.dtype, {}, t.has_dynamic()};
  for (const Dim& d : t.shape) input.shape.push_back(d.size);
  inputs_.push_back(input);
  Value v{"%" + name, t};
  v.is_param = true;
  v.is_output_candidate = false;
  values_.push_back(v);
  return v.ref;
}

std::string ProgramBuilder::Weight(const TensorT& t, const std::string& stem) {
  if (t.has_dynamic() || !rng_.Chance(options_.const_weight_rate)) return NewParam(t, stem);
  return ConstWeight(t);
}

std::string ProgramBuilder::ConstWeight(const TensorT& t) {
  int64_t n = 1;
  std::string dims;
  bool zero = false;
  for (size_t i = 0; i < t.shape.size(); ++i) {
    n *= t.shape[i].size;
    zero |= t.shape[i].size == 0;
    dims += fmt::format("{}{}", i ? ", " : "", t.shape[i].size);
  }
  // Small integers in [-3, 3], in a pattern the seed picks; float weights
  // are scaled to [-0.75, 0.75].
  std::string ints = fmt::format(
      "subtract(floor_mod(multiply(arange(0, {}, 1, dtype=\"int32\"), {}), 7), 3)", n,
      rng_.Range(1, 6));
  std::string values = t.dtype == "float32"
                           ? fmt::format("multiply(cast({}, dtype=\"float32\"), 0.25f)", ints)
                           : fmt::format("cast({}, dtype=\"{}\")", ints, t.dtype);
  return fmt::format("reshape({}, newshape=[{}]{})", values, dims, zero ? ", allowzero=True" : "");
}

std::string ProgramBuilder::CondRef() {
  if (cond_ref_.empty()) {
    cond_ref_ = NewParam(TensorT{{}, "bool"}, "cond");
    values_.pop_back();  // never an operand of a tensor op
  }
  return cond_ref_;
}

int ProgramBuilder::PickValue(const std::function<bool(const TensorT&)>& accept) {
  std::vector<int> ok;
  for (int i = 0; i < int(values_.size()); ++i) {
    if (values_[i].pickable && accept(values_[i].type)) ok.push_back(i);
  }
  if (ok.empty()) return -1;
  // Half the time one of the three most recent: deep chains, not only fans.
  if (ok.size() > 3 && rng_.Chance(0.5)) return ok[ok.size() - 1 - rng_.Range(0, 2)];
  return rng_.Pick(ok);
}

std::string ProgramBuilder::Use(int i) {
  values_[i].uses++;
  return values_[i].ref;
}

int ProgramBuilder::Bind(const std::string& expr, const TensorT& t) {
  int n = next_binding_++;
  std::string ref;
  if (rng_.Chance(options_.let_rate)) {
    ref = fmt::format("%v{}", n);
    lines_.push_back(fmt::format("  let {}: {} = {};", ref, TypeText(t), expr));
  } else {
    ref = fmt::format("%{}", n);
    lines_.push_back(fmt::format("  {} = {};", ref, expr));
  }
  values_.push_back(Value{ref, t});
  return int(values_.size()) - 1;
}

std::vector<int> ProgramBuilder::BindTuple(const std::string& expr,
                                           const std::vector<TensorT>& fields) {
  int n = next_binding_++;
  lines_.push_back(fmt::format("  %{} = {};", n, expr));
  std::vector<int> out;
  for (size_t i = 0; i < fields.size(); ++i) {
    values_.push_back(Value{fmt::format("%{}.{}", n, i), fields[i]});
    out.push_back(int(values_.size()) - 1);
  }
  return out;
}

Dim ProgramBuilder::NewDynamic(int64_t size) { return Dim{size, next_sym_++}; }

int ProgramBuilder::FloatOperand() {
  int i = PickValue([](const TensorT& t) { return t.is_float(); });
  if (i >= 0) return i;
  i = PickValue([](const TensorT& t) { return t.dtype != "bool"; });
  if (i < 0) {
    NewParam(RandomInputType(1, 4), "x");
    return int(values_.size()) - 1;
  }
  TensorT t = values_[i].type;
  t.dtype = "float32";
  return Bind(fmt::format("cast({}, dtype=\"float32\")", Use(i)), t);
}

TensorT ProgramBuilder::RandomInputType(int min_rank, int max_rank) {
  TensorT t;
  int rank = int(rng_.Range(min_rank, max_rank));
  for (int d = 0; d < rank; ++d) t.shape.push_back(Dim{rng_.Range(1, 6)});
  if (rank > 0) {
    if (rng_.Chance(options_.dynamic_rate)) {
      t.shape[0] = NewDynamic(rng_.Range(rng_.Chance(0.2) ? 0 : 1, 3));
    } else if (rng_.Chance(options_.zero_rate)) {
      t.shape[0].size = 0;
    } else {
      t.shape[0].size = rng_.Range(1, 3);
    }
  }
  return t;
}

RandomProgram ProgramBuilder::Finish() {
  std::vector<const Value*> outs;
  for (const Value& v : values_) {
    if (v.uses == 0 && v.is_output_candidate) outs.push_back(&v);
  }
  std::string body, ret;
  if (outs.size() == 1) {
    body = outs[0]->ref;
    ret = TypeText(outs[0]->type);
  } else {
    for (size_t i = 0; i < outs.size(); ++i) {
      body += (i ? ", " : "") + outs[i]->ref;
      ret += (i ? ", " : "") + TypeText(outs[i]->type);
    }
    body = "(" + body + ")";
    ret = "(" + ret + ")";
  }
  RandomProgram p;
  p.text = "#[version = \"0.0.5\"]\ndef @main(";
  for (size_t i = 0; i < param_decls_.size(); ++i) p.text += (i ? ", " : "") + param_decls_[i];
  p.text += ") -> " + ret + " {\n";
  for (const std::string& line : lines_) p.text += line + "\n";
  p.text += "  " + body + "\n}\n";
  p.inputs = inputs_;
  for (const RandomInput& in : inputs_) p.dynamic |= in.dynamic;
  p.num_ops = num_ops_;
  p.runnable = runnable_;
  return p;
}

RandomProgram GenerateRandomProgram(uint64_t seed, const RandomProgramOptions& options) {
  ProgramBuilder b(seed, options);
  int inputs = int(b.rng().Range(1, 2));
  for (int i = 0; i < inputs; ++i) b.NewParam(b.RandomInputType(1, 4), "x");
  int target = int(b.rng().Range(options.min_ops, options.max_ops));
  for (int attempts = 0; b.num_ops() < target && attempts < target * 20; ++attempts) {
    AddRandomOp(b);
  }
  if (b.rng().Chance(options.no_kernel_rate) && AddNoKernelOp(b)) b.count_op();
  if (b.num_ops() == 0) {  // every input is a parameter: make one op
    int i = b.FloatOperand();
    b.Bind(fmt::format("nn.relu({})", b.Use(i)), b.value(i).type);
  }
  return b.Finish();
}

}  // namespace carve::testing

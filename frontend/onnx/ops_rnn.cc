// RNN, GRU and LSTM, unrolled over the static sequence length into dense,
// split and elementwise calls, as TVM v0.16 does (onnx.py's RNN / GRU /
// LSTM classes over common.py's rnn_cell, gru_cell and lstm_cell): the
// same gate orders, the same weight permutations (ONNX's i-o-f-c LSTM
// gates become i-f-c-o, GRU's z-r-h become r-z-h) and GRU's sequence_lens
// masks.
//
// Where TVM's converter drops an attribute, carve honours it or refuses it
// by name: a single `reverse` direction runs backwards (TVM runs it
// forwards), `layout` 1 transposes the batch-major operands (TVM's
// two-axis transpose cannot type a 3-D tensor), and `clip`,
// `input_forget` and the sequence_lens of RNN and LSTM (which TVM
// ignores) are refused unless they change nothing.
#include <functional>

#include "fmt/format.h"
#include "frontend/onnx/converter.h"

namespace carve::onnx_import {
namespace {

using Fn = std::function<absl::StatusOr<TValue>(const TValue&)>;

// The activations ONNX allows in `activations`, with whether each takes
// `alpha` / `beta` from activation_alpha / activation_beta (TVM's
// _activation_needs_alpha / _beta).
struct ActivationKind {
  std::string_view name;
  bool alpha, beta;
};
constexpr ActivationKind kActivations[] = {
    {"Relu", false, false},       {"Tanh", false, false},        {"Sigmoid", false, false},
    {"Affine", true, true},       {"LeakyRelu", true, false},    {"ThresholdedRelu", true, false},
    {"ScaledTanh", true, true},   {"HardSigmoid", true, true},   {"Elu", true, false},
    {"Softsign", false, false},   {"Softplus", false, false},
};

// `name(x)` with alpha / beta as that op's attributes, through the op's own
// converter (TVM calls its convert map the same way).
absl::StatusOr<TValue> ApplyActivation(NodeCall& c, std::string_view name,
                                       std::optional<float> alpha, std::optional<float> beta,
                                       const TValue& x) {
  onnx::NodeProto node;
  node.set_op_type(std::string(name));
  auto add = [&node](const char* attr, std::optional<float> v) {
    if (!v) return;
    onnx::AttributeProto* a = node.add_attribute();
    a->set_name(attr);
    a->set_type(onnx::AttributeProto::FLOAT);
    a->set_f(*v);
  };
  add("alpha", alpha);
  add("beta", beta);
  ConverterFn fn = FindConverter(name);
  if (fn == nullptr) return c.Unsupported(fmt::format("activation '{}'", name));
  NodeCall sub{c.ctx, node, c.opset, {x}, NodeAttrs(node), c.base_dir};
  CARVE_ASSIGN_OR_RETURN(Outputs outs, fn(sub));
  return outs.at(0);
}

// The `per_direction * num_directions` activations of the node, or the
// defaults; alphas and betas are consumed in order by the activations that
// take them.
absl::StatusOr<std::vector<Fn>> Activations(NodeCall& c, int per_direction, int num_directions,
                                            std::vector<std::string_view> defaults) {
  std::vector<Fn> out;
  auto names = c.attrs.Find("activations");
  if (names == nullptr) {
    for (int d = 0; d < num_directions; ++d) {
      for (std::string_view n : defaults) {
        out.push_back([&c, n](const TValue& x) -> absl::StatusOr<TValue> {
          return c.Op(n == "Sigmoid" ? "sigmoid" : "tanh", {x});
        });
      }
    }
    return out;
  }
  if (names->strings_size() != per_direction * num_directions) {
    return absl::InvalidArgumentError(
        fmt::format("{} activations given, {} expected ({} for each of {} directions)",
                    names->strings_size(), per_direction * num_directions, per_direction,
                    num_directions));
  }
  std::vector<float> alphas = c.attrs.Floats("activation_alpha").value_or(std::vector<float>{});
  std::vector<float> betas = c.attrs.Floats("activation_beta").value_or(std::vector<float>{});
  size_t next_alpha = 0, next_beta = 0;
  for (const std::string& name : names->strings()) {
    const ActivationKind* kind = nullptr;
    for (const ActivationKind& k : kActivations) {
      if (k.name == name) kind = &k;
    }
    if (kind == nullptr) return c.Unsupported(fmt::format("activation '{}'", name));
    std::optional<float> alpha, beta;
    if (kind->alpha && next_alpha < alphas.size()) alpha = alphas[next_alpha++];
    if (kind->beta && next_beta < betas.size()) beta = betas[next_beta++];
    out.push_back([&c, n = kind->name, alpha, beta](const TValue& x) {
      return ApplyActivation(c, n, alpha, beta, x);
    });
  }
  return out;
}

// Small builders over NodeCall::Op.
struct B {
  NodeCall& c;
  absl::StatusOr<std::vector<TValue>> Split(const TValue& x, int64_t n, int64_t axis) {
    std::vector<TValue> parts;
    CARVE_ASSIGN_OR_RETURN(TValue t, c.Op("split", {x}, {{"indices_or_sections", IntAttr(n)},
                                                         {"axis", IntAttr(axis)}}));
    for (int64_t i = 0; i < n; ++i) {
      CARVE_ASSIGN_OR_RETURN(TValue p, c.ctx.GetItem(t, int(i)));
      parts.push_back(p);
    }
    return parts;
  }
  absl::StatusOr<TValue> Squeeze(const TValue& x, int64_t axis) {
    return c.Op("squeeze", {x}, {{"axis", IntsAttr(std::vector<int64_t>{axis})}});
  }
  // Split into n parts along axis 0, each squeezed (TVM's split + squeeze).
  absl::StatusOr<std::vector<TValue>> Unbind(const TValue& x, int64_t n) {
    CARVE_ASSIGN_OR_RETURN(std::vector<TValue> parts, Split(x, n, 0));
    for (TValue& p : parts) {
      CARVE_ASSIGN_OR_RETURN(p, Squeeze(p, 0));
    }
    return parts;
  }
  absl::StatusOr<TValue> Concat(std::vector<TValue> xs, int64_t axis) {
    return c.Op("concatenate", {c.ctx.Tuple(std::move(xs))}, {{"axis", IntAttr(axis)}});
  }
  absl::StatusOr<TValue> Stack(std::vector<TValue> xs, int64_t axis) {
    return c.Op("stack", {c.ctx.Tuple(std::move(xs))}, {{"axis", IntAttr(axis)}});
  }
  absl::StatusOr<TValue> Transpose(const TValue& x, std::vector<int64_t> perm) {
    return c.Op("transpose", {x}, {{"axes", IntsAttr(perm)}});
  }
  absl::StatusOr<TValue> Dense(const TValue& x, const TValue& w) {
    return c.Op("nn.dense", {x, w});
  }
  absl::StatusOr<TValue> Add(const TValue& a, const TValue& b) { return c.Op("add", {a, b}); }
  absl::StatusOr<TValue> Sub(const TValue& a, const TValue& b) { return c.Op("subtract", {a, b}); }
  absl::StatusOr<TValue> Mul(const TValue& a, const TValue& b) { return c.Op("multiply", {a, b}); }
  // Parts of `x` along axis 0 in the order `order` names them (a
  // permutation of the gate blocks).
  absl::StatusOr<TValue> Permute(const TValue& x, int64_t n, std::vector<int> order) {
    CARVE_ASSIGN_OR_RETURN(std::vector<TValue> parts, Split(x, n, 0));
    std::vector<TValue> out;
    for (int i : order) out.push_back(parts[size_t(i)]);
    return Concat(std::move(out), 0);
  }
};

// One direction's operands, with the gate blocks in the cell's order.
struct Direction {
  TValue h0, c0;
  TValue w, r;
  std::optional<TValue> wb, rb;
  std::optional<TValue> p_i, p_o, p_f;
  bool backwards = false;
};

// What the three ops share: the operands split per direction.
struct Unrolled {
  int64_t seq = 0, batch = 0, hidden = 0;
  int num_directions = 1;
  bool batch_major = false;
  std::vector<TValue> steps;  // seq values of [batch, input]
  std::vector<Direction> dirs;
};

absl::StatusOr<Unrolled> Prepare(NodeCall& c, int gates, std::vector<int> gate_order) {
  B b{c};
  Unrolled u;
  int64_t layout = c.opset >= 14 ? c.attrs.Int("layout", 0) : 0;
  if (layout != 0 && layout != 1) return c.Unsupported(fmt::format("layout {}", layout));
  u.batch_major = layout == 1;
  TValue x = c.In(0);
  if (x.rank() != 3) return absl::InvalidArgumentError("X must be of rank 3");
  if (u.batch_major) {
    CARVE_ASSIGN_OR_RETURN(x, b.Transpose(x, {1, 0, 2}));
  }
  const TValue& w = c.In(1);
  const TValue& r = c.In(2);
  if (w.rank() != 3 || r.rank() != 3) return absl::InvalidArgumentError("W and R must be of rank 3");
  u.seq = x.shape()[0];
  u.batch = x.shape()[1];
  u.num_directions = int(w.shape()[0]);
  u.hidden = r.shape()[2];
  if (u.seq < 0) return c.NeedsStaticShape("a sequence of dynamic length (the loop is unrolled)");
  if (u.batch < 0 || u.hidden < 0 || u.num_directions < 0) {
    return c.NeedsStaticShape("a dynamic batch or hidden extent");
  }
  std::string direction = c.attrs.Str("direction", "forward");
  int want = direction == "bidirectional" ? 2 : 1;
  if (direction != "forward" && direction != "reverse" && direction != "bidirectional") {
    return c.Unsupported(fmt::format("direction '{}'", direction));
  }
  if (u.num_directions != want) {
    return absl::InvalidArgumentError(fmt::format(
        "direction '{}' needs {} directions, W has {}", direction, want, u.num_directions));
  }
  if (int64_t h = c.attrs.Int("hidden_size", u.hidden); h != u.hidden) {
    return absl::InvalidArgumentError(
        fmt::format("hidden_size is {}, but R is of hidden size {}", h, u.hidden));
  }
  if (c.attrs.Has("clip")) {
    return c.Unsupported("the clip attribute (cell clipping; TVM's converter ignores it)");
  }
  CARVE_ASSIGN_OR_RETURN(u.steps, b.Unbind(x, u.seq));
  int64_t nd = u.num_directions;
  TValue h0;
  if (c.HasInput(5)) {
    h0 = c.In(5);
    if (u.batch_major) {
      CARVE_ASSIGN_OR_RETURN(h0, b.Transpose(h0, {1, 0, 2}));
    }
  } else {
    CARVE_ASSIGN_OR_RETURN(h0, c.Op("zeros", {}, {{"shape", IntsAttr(std::vector<int64_t>{nd, u.batch, u.hidden})},
                                                  {"dtype", StrAttr(w.dtype().ToString())}}));
  }
  CARVE_ASSIGN_OR_RETURN(std::vector<TValue> hs, b.Split(h0, nd, 0));
  CARVE_ASSIGN_OR_RETURN(std::vector<TValue> ws, b.Split(w, nd, 0));
  CARVE_ASSIGN_OR_RETURN(std::vector<TValue> rs, b.Split(r, nd, 0));
  std::vector<TValue> bs;
  if (c.HasInput(3)) {
    CARVE_ASSIGN_OR_RETURN(bs, b.Split(c.In(3), nd, 0));
  }
  for (int64_t d = 0; d < nd; ++d) {
    Direction dir;
    dir.backwards = d == 1 || direction == "reverse";
    CARVE_ASSIGN_OR_RETURN(dir.h0, b.Squeeze(hs[d], 0));
    CARVE_ASSIGN_OR_RETURN(TValue wd, b.Squeeze(ws[d], 0));
    CARVE_ASSIGN_OR_RETURN(TValue rd, b.Squeeze(rs[d], 0));
    dir.w = wd;
    dir.r = rd;
    if (gates > 1) {
      CARVE_ASSIGN_OR_RETURN(dir.w, b.Permute(wd, gates, gate_order));
      CARVE_ASSIGN_OR_RETURN(dir.r, b.Permute(rd, gates, gate_order));
    }
    if (!bs.empty()) {
      CARVE_ASSIGN_OR_RETURN(std::vector<TValue> bi_bh, b.Split(bs[d], 2, -1));
      for (int k = 0; k < 2; ++k) {
        CARVE_ASSIGN_OR_RETURN(TValue bk, b.Squeeze(bi_bh[k], 0));
        if (gates > 1) {
          CARVE_ASSIGN_OR_RETURN(bk, b.Permute(bk, gates, gate_order));
        }
        (k == 0 ? dir.wb : dir.rb) = bk;
      }
    }
    u.dirs.push_back(std::move(dir));
  }
  return u;
}

// Y [seq, num_directions, batch, hidden] from each direction's per-step
// outputs (in the order they were computed) and the final states
// [num_directions, batch, hidden], batch-major for layout 1.
absl::StatusOr<Outputs> Assemble(NodeCall& c, const Unrolled& u,
                                 const std::vector<std::vector<TValue>>& outs,
                                 const std::vector<std::vector<TValue>>& finals) {
  B b{c};
  std::vector<TValue> per_step;
  for (int64_t t = 0; t < u.seq; ++t) {
    std::vector<TValue> at;
    for (size_t d = 0; d < u.dirs.size(); ++d) {
      at.push_back(outs[d][size_t(u.dirs[d].backwards ? u.seq - 1 - t : t)]);
    }
    if (at.size() == 1) {
      per_step.push_back(at[0]);
    } else {
      CARVE_ASSIGN_OR_RETURN(TValue s, b.Stack(std::move(at), 0));
      per_step.push_back(s);
    }
  }
  CARVE_ASSIGN_OR_RETURN(TValue y, b.Stack(per_step, 0));
  if (u.dirs.size() == 1) {
    CARVE_ASSIGN_OR_RETURN(y, c.Op("expand_dims", {y}, {{"axis", IntAttr(1)}}));
  }
  if (u.batch_major) {
    CARVE_ASSIGN_OR_RETURN(y, b.Transpose(y, {2, 0, 1, 3}));
  }
  Outputs result{y};
  for (const std::vector<TValue>& state : finals) {
    TValue s;
    if (state.size() == 1) {
      CARVE_ASSIGN_OR_RETURN(s, c.Op("expand_dims", {state[0]}, {{"axis", IntAttr(0)}}));
    } else {
      CARVE_ASSIGN_OR_RETURN(s, b.Stack(state, 0));
    }
    if (u.batch_major) {
      CARVE_ASSIGN_OR_RETURN(s, b.Transpose(s, {1, 0, 2}));
    }
    result.push_back(s);
  }
  return result;
}

// RNN and LSTM carry no sequence_lens masks in TVM: a sequence_lens the
// import knows to be the full length for every batch entry changes nothing;
// any other is refused.
absl::Status CheckFullSequences(NodeCall& c, const Unrolled& u) {
  if (!c.HasInput(4)) return absl::OkStatus();
  if (!c.In(4).value.defined()) {
    return c.Unsupported(
        "sequence_lens of values unknown at import (carve, as TVM, runs every sequence to the "
        "full length)");
  }
  CARVE_ASSIGN_OR_RETURN(std::vector<int64_t> lens, c.StaticInts(4));
  for (int64_t len : lens) {
    if (len != u.seq) {
      return c.Unsupported(fmt::format(
          "sequence_lens {} shorter than the sequence ({}; carve, as TVM, runs every sequence "
          "to the full length)",
          len, u.seq));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Outputs> ConvertRNN(NodeCall& c) {
  B b{c};
  CARVE_ASSIGN_OR_RETURN(Unrolled u, Prepare(c, 1, {}));
  CARVE_RETURN_IF_ERROR(CheckFullSequences(c, u));
  CARVE_ASSIGN_OR_RETURN(std::vector<Fn> acts, Activations(c, 1, u.num_directions, {"Tanh"}));
  std::vector<std::vector<TValue>> outs(u.dirs.size()), finals(1);
  for (size_t d = 0; d < u.dirs.size(); ++d) {
    const Direction& dir = u.dirs[d];
    TValue h = dir.h0;
    for (int64_t k = 0; k < u.seq; ++k) {
      const TValue& x = u.steps[size_t(dir.backwards ? u.seq - 1 - k : k)];
      CARVE_ASSIGN_OR_RETURN(TValue xw, b.Dense(x, dir.w));
      CARVE_ASSIGN_OR_RETURN(TValue hw, b.Dense(h, dir.r));
      if (dir.wb && dir.rb) {
        CARVE_ASSIGN_OR_RETURN(xw, b.Add(xw, *dir.wb));
        CARVE_ASSIGN_OR_RETURN(hw, b.Add(hw, *dir.rb));
      }
      CARVE_ASSIGN_OR_RETURN(TValue sum, b.Add(xw, hw));
      CARVE_ASSIGN_OR_RETURN(h, acts[d](sum));
      outs[d].push_back(h);
    }
    finals[0].push_back(h);
  }
  return Assemble(c, u, outs, finals);
}

// GRU's sequence_lens masks (TVM's gru_cell): per step, 1 where the step
// is inside the sequence, 1 where it is past it, and (backwards) 1 at the
// step where the sequence ends, where the initial state is restored.
struct GruMasks {
  std::vector<TValue> inside, past, at_end;
};

absl::StatusOr<GruMasks> MakeGruMasks(NodeCall& c, const Unrolled& u, DataType dtype) {
  B b{c};
  const TValue& lens = c.In(4);
  std::vector<int64_t> iota(size_t(u.seq));
  for (int64_t i = 0; i < u.seq; ++i) iota[size_t(i)] = i;
  TValue arange = c.ctx.Ints(iota);
  CARVE_ASSIGN_OR_RETURN(arange, c.ctx.CastTo(arange, lens.dtype()));
  CARVE_ASSIGN_OR_RETURN(arange, c.Op("expand_dims", {arange}, {{"axis", IntAttr(1)}}));
  GruMasks m;
  auto mask = [&](std::string_view cmp) -> absl::StatusOr<std::vector<TValue>> {
    // [seq, 1] against [batch]: TVM's broadcast_to of the lengths first
    // gives the same [seq, batch].
    CARVE_ASSIGN_OR_RETURN(TValue v, c.Op(cmp, {arange, lens}));
    CARVE_ASSIGN_OR_RETURN(v, c.ctx.CastTo(v, dtype));
    CARVE_ASSIGN_OR_RETURN(v, c.Op("expand_dims", {v}, {{"axis", IntAttr(2)}}));
    return b.Unbind(v, u.seq);
  };
  CARVE_ASSIGN_OR_RETURN(m.inside, mask("less"));
  CARVE_ASSIGN_OR_RETURN(m.past, mask("greater_equal"));
  CARVE_ASSIGN_OR_RETURN(m.at_end, mask("equal"));
  return m;
}

// One GRU step (TVM's gru_cell): the next state from x and h, with the
// gate blocks in r-z-h order.
absl::StatusOr<TValue> GruStep(NodeCall& c, const Direction& dir, const TValue& x,
                               const TValue& h, bool linear_before_reset, const Fn& rz_act,
                               const Fn& n_act) {
  B b{c};
  CARVE_ASSIGN_OR_RETURN(TValue xw, b.Dense(x, dir.w));
  TValue r_gate, z_gate, n_gate;
  if (linear_before_reset) {
    CARVE_ASSIGN_OR_RETURN(TValue hw, b.Dense(h, dir.r));
    if (dir.wb && dir.rb) {
      CARVE_ASSIGN_OR_RETURN(xw, b.Add(xw, *dir.wb));
      CARVE_ASSIGN_OR_RETURN(hw, b.Add(hw, *dir.rb));
    }
    CARVE_ASSIGN_OR_RETURN(std::vector<TValue> i3, b.Split(xw, 3, -1));
    CARVE_ASSIGN_OR_RETURN(std::vector<TValue> h3, b.Split(hw, 3, -1));
    CARVE_ASSIGN_OR_RETURN(TValue rs, b.Add(i3[0], h3[0]));
    CARVE_ASSIGN_OR_RETURN(r_gate, rz_act(rs));
    CARVE_ASSIGN_OR_RETURN(TValue zs, b.Add(i3[1], h3[1]));
    CARVE_ASSIGN_OR_RETURN(z_gate, rz_act(zs));
    CARVE_ASSIGN_OR_RETURN(TValue rh, b.Mul(r_gate, h3[2]));
    CARVE_ASSIGN_OR_RETURN(TValue ns, b.Add(i3[2], rh));
    CARVE_ASSIGN_OR_RETURN(n_gate, n_act(ns));
  } else {
    CARVE_ASSIGN_OR_RETURN(std::vector<TValue> i3, b.Split(xw, 3, 1));
    CARVE_ASSIGN_OR_RETURN(std::vector<TValue> w3, b.Split(dir.r, 3, 0));
    CARVE_ASSIGN_OR_RETURN(TValue hr, b.Dense(h, w3[0]));
    CARVE_ASSIGN_OR_RETURN(TValue hz, b.Dense(h, w3[1]));
    CARVE_ASSIGN_OR_RETURN(r_gate, b.Add(i3[0], hr));
    CARVE_ASSIGN_OR_RETURN(z_gate, b.Add(i3[1], hz));
    TValue in = i3[2], h_n;
    if (dir.wb && dir.rb) {
      CARVE_ASSIGN_OR_RETURN(std::vector<TValue> bi, b.Split(*dir.wb, 3, -1));
      CARVE_ASSIGN_OR_RETURN(std::vector<TValue> bh, b.Split(*dir.rb, 3, -1));
      CARVE_ASSIGN_OR_RETURN(TValue br, b.Add(bi[0], bh[0]));
      CARVE_ASSIGN_OR_RETURN(r_gate, b.Add(r_gate, br));
      CARVE_ASSIGN_OR_RETURN(r_gate, rz_act(r_gate));
      CARVE_ASSIGN_OR_RETURN(TValue bz, b.Add(bi[1], bh[1]));
      CARVE_ASSIGN_OR_RETURN(z_gate, b.Add(z_gate, bz));
      CARVE_ASSIGN_OR_RETURN(in, b.Add(in, bi[2]));
      CARVE_ASSIGN_OR_RETURN(TValue rh, b.Mul(r_gate, h));
      CARVE_ASSIGN_OR_RETURN(TValue d2, b.Dense(rh, w3[2]));
      CARVE_ASSIGN_OR_RETURN(h_n, b.Add(d2, bh[2]));
    } else {
      CARVE_ASSIGN_OR_RETURN(r_gate, rz_act(r_gate));
      CARVE_ASSIGN_OR_RETURN(TValue rh, b.Mul(r_gate, h));
      CARVE_ASSIGN_OR_RETURN(h_n, b.Dense(rh, w3[2]));
    }
    CARVE_ASSIGN_OR_RETURN(z_gate, rz_act(z_gate));
    CARVE_ASSIGN_OR_RETURN(TValue ns, b.Add(in, h_n));
    CARVE_ASSIGN_OR_RETURN(n_gate, n_act(ns));
  }
  // h = (h - n) * z + n
  CARVE_ASSIGN_OR_RETURN(TValue diff, b.Sub(h, n_gate));
  CARVE_ASSIGN_OR_RETURN(TValue dz, b.Mul(diff, z_gate));
  return b.Add(dz, n_gate);
}

absl::StatusOr<Outputs> ConvertGRU(NodeCall& c) {
  B b{c};
  // ONNX's z-r-h gate blocks, in the cell's r-z-h order.
  CARVE_ASSIGN_OR_RETURN(Unrolled u, Prepare(c, 3, {1, 0, 2}));
  CARVE_ASSIGN_OR_RETURN(std::vector<Fn> acts,
                         Activations(c, 2, u.num_directions, {"Sigmoid", "Tanh"}));
  bool linear_before_reset = c.attrs.Int("linear_before_reset", 0) != 0;
  DataType dtype = u.steps[0].dtype();
  std::optional<GruMasks> masks;
  if (c.HasInput(4)) {
    CARVE_ASSIGN_OR_RETURN(masks, MakeGruMasks(c, u, dtype));
  }
  std::vector<std::vector<TValue>> outs(u.dirs.size()), finals(1);
  for (size_t d = 0; d < u.dirs.size(); ++d) {
    const Direction& dir = u.dirs[d];
    const Fn& rz_act = acts[2 * d];
    const Fn& n_act = acts[2 * d + 1];
    TValue h = dir.h0;
    TValue last;
    CARVE_ASSIGN_OR_RETURN(last, c.Op("zeros", {}, {{"shape", IntsAttr(std::vector<int64_t>{u.batch, u.hidden})},
                                                    {"dtype", StrAttr(dtype.ToString())}}));
    for (int64_t k = 0; k < u.seq; ++k) {
      size_t t = size_t(dir.backwards ? u.seq - 1 - k : k);
      CARVE_ASSIGN_OR_RETURN(h, GruStep(c, dir, u.steps[t], h, linear_before_reset, rz_act, n_act));
      if (masks) {
        CARVE_ASSIGN_OR_RETURN(h, b.Mul(h, masks->inside[t]));
      }
      outs[d].push_back(h);
      if (masks) {
        CARVE_ASSIGN_OR_RETURN(TValue kept, b.Mul(last, masks->past[t]));
        CARVE_ASSIGN_OR_RETURN(last, b.Add(kept, h));
      } else {
        last = h;
      }
      if (masks && dir.backwards) {
        CARVE_ASSIGN_OR_RETURN(TValue init, b.Mul(dir.h0, masks->at_end[t]));
        CARVE_ASSIGN_OR_RETURN(h, b.Add(h, init));
      }
    }
    finals[0].push_back(last);
  }
  return Assemble(c, u, outs, finals);
}

// One LSTM step (TVM's lstm_cell): h and cell updated in place from x,
// with the gate blocks in i-f-c-o order and acts = f, g, h.
absl::Status LstmStep(NodeCall& c, const Direction& dir, const TValue& x, const TValue& cat_w,
                      const Fn* acts, TValue& h, TValue& cell) {
  B b{c};
  const Fn& f_act = acts[0];
  const Fn& g_act = acts[1];
  const Fn& h_act = acts[2];
  CARVE_ASSIGN_OR_RETURN(TValue step, b.Concat({x, h}, 1));
  CARVE_ASSIGN_OR_RETURN(TValue gates, b.Dense(step, cat_w));
  if (dir.wb) {
    CARVE_ASSIGN_OR_RETURN(gates, b.Add(gates, *dir.wb));
  }
  if (dir.rb) {
    CARVE_ASSIGN_OR_RETURN(gates, b.Add(gates, *dir.rb));
  }
  CARVE_ASSIGN_OR_RETURN(std::vector<TValue> g4, b.Split(gates, 4, -1));
  TValue in = g4[0], fg = g4[1], cg = g4[2], og = g4[3];
  if (dir.p_i && dir.p_f) {
    CARVE_ASSIGN_OR_RETURN(TValue pi, b.Mul(*dir.p_i, cell));
    CARVE_ASSIGN_OR_RETURN(in, b.Add(in, pi));
    CARVE_ASSIGN_OR_RETURN(TValue pf, b.Mul(*dir.p_f, cell));
    CARVE_ASSIGN_OR_RETURN(fg, b.Add(fg, pf));
  }
  CARVE_ASSIGN_OR_RETURN(in, f_act(in));
  CARVE_ASSIGN_OR_RETURN(fg, f_act(fg));
  CARVE_ASSIGN_OR_RETURN(cg, g_act(cg));
  CARVE_ASSIGN_OR_RETURN(TValue fc, b.Mul(fg, cell));
  CARVE_ASSIGN_OR_RETURN(TValue ic, b.Mul(in, cg));
  CARVE_ASSIGN_OR_RETURN(cell, b.Add(fc, ic));
  if (dir.p_o) {
    CARVE_ASSIGN_OR_RETURN(TValue po, b.Mul(*dir.p_o, cell));
    CARVE_ASSIGN_OR_RETURN(og, b.Add(og, po));
  }
  CARVE_ASSIGN_OR_RETURN(og, f_act(og));
  CARVE_ASSIGN_OR_RETURN(TValue hc, h_act(cell));
  CARVE_ASSIGN_OR_RETURN(h, b.Mul(og, hc));
  return absl::OkStatus();
}

absl::StatusOr<Outputs> ConvertLSTM(NodeCall& c) {
  B b{c};
  if (c.attrs.Int("input_forget", 0) != 0) {
    return c.Unsupported("input_forget 1 (coupled input and forget gates)");
  }
  // ONNX's i-o-f-c gate blocks, in the cell's i-f-c-o order.
  CARVE_ASSIGN_OR_RETURN(Unrolled u, Prepare(c, 4, {0, 2, 3, 1}));
  CARVE_RETURN_IF_ERROR(CheckFullSequences(c, u));
  CARVE_ASSIGN_OR_RETURN(std::vector<Fn> acts,
                         Activations(c, 3, u.num_directions, {"Sigmoid", "Tanh", "Tanh"}));
  int64_t nd = u.num_directions;
  std::vector<TValue> cs;
  if (c.HasInput(6)) {
    TValue c0 = c.In(6);
    if (u.batch_major) {
      CARVE_ASSIGN_OR_RETURN(c0, b.Transpose(c0, {1, 0, 2}));
    }
    CARVE_ASSIGN_OR_RETURN(cs, b.Split(c0, nd, 0));
    for (TValue& v : cs) {
      CARVE_ASSIGN_OR_RETURN(v, b.Squeeze(v, 0));
    }
  } else {
    for (const Direction& dir : u.dirs) {
      CARVE_ASSIGN_OR_RETURN(TValue z, c.Op("zeros_like", {dir.h0}));
      cs.push_back(z);
    }
  }
  if (c.HasInput(7)) {
    // P holds i-o-f peepholes per direction.
    CARVE_ASSIGN_OR_RETURN(std::vector<TValue> pio, b.Split(c.In(7), 3, 1));
    for (int k = 0; k < 3; ++k) {
      CARVE_ASSIGN_OR_RETURN(std::vector<TValue> per_dir, b.Split(pio[k], nd, 0));
      for (int64_t d = 0; d < nd; ++d) {
        CARVE_ASSIGN_OR_RETURN(TValue p, b.Squeeze(per_dir[d], 0));
        (k == 0 ? u.dirs[d].p_i : k == 1 ? u.dirs[d].p_o : u.dirs[d].p_f) = p;
      }
    }
  }
  std::vector<std::vector<TValue>> outs(u.dirs.size()), finals(2);
  for (size_t d = 0; d < u.dirs.size(); ++d) {
    const Direction& dir = u.dirs[d];
    const Fn* acts3 = &acts[3 * d];
    TValue h = dir.h0, cell = cs[d];
    // TVM's single dense over [x, h] and [W, R].
    CARVE_ASSIGN_OR_RETURN(TValue cat_w, b.Concat({dir.w, dir.r}, 1));
    for (int64_t k = 0; k < u.seq; ++k) {
      const TValue& x = u.steps[size_t(dir.backwards ? u.seq - 1 - k : k)];
      CARVE_RETURN_IF_ERROR(LstmStep(c, dir, x, cat_w, acts3, h, cell));
      outs[d].push_back(h);
    }
    finals[0].push_back(h);
    finals[1].push_back(cell);
  }
  return Assemble(c, u, outs, finals);
}

}  // namespace

std::vector<ConverterEntry> RecurrentConverters() {
  return {{"RNN", ConvertRNN}, {"GRU", ConvertGRU}, {"LSTM", ConvertLSTM}};
}

}  // namespace carve::onnx_import

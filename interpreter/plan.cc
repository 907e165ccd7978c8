#include "interpreter/plan.h"

#include <algorithm>

#include "interpreter/kernel_join.h"
#include "interpreter/kernels/kernel_util.h"
#include "interpreter/machine.h"
#include "support/cancellation.h"
#include "support/status_macros.h"

namespace carve {

// Lowers one function body: an explicit-stack post-order walk that mirrors
// Machine::Eval task by task, emitting a step where the tree walker would
// apply a call, build a tuple or project a field.
class PlanBuilder {
 public:
  PlanBuilder(Interpreter& interp, const Function* fn) : interp_(interp), fn_(fn) {}

  std::unique_ptr<Plan> Build() {
    plan_ = std::make_unique<Plan>();
    for (const Var* p : fn_->params()) {
      uint32_t s = NewSlot();
      plan_->param_slots_.push_back(s);
      env_[p] = s;
    }
    for (const Var* v : interp_.Info(fn_).free_vars) {
      uint32_t s = NewSlot();
      plan_->captured_slots_[v] = s;
      env_[v] = s;
    }
    if (!Walk()) return nullptr;
    plan_->num_slots_ = next_slot_;
    ComputeFrees();
    PlaceJoins();
    return std::move(plan_);
  }

 private:
  enum class Phase : uint8_t { kEnter, kEmit, kLetBody, kLetDone };
  struct Item {
    const Expr* e;
    Phase phase;
  };

  uint32_t NewSlot() { return next_slot_++; }

  // The slot of an evaluated operand (an atom is resolved here; a non-atom
  // was lowered before its consumer). False when it cannot be planned.
  bool SlotOf(const Expr* e, uint32_t* slot) {
    switch (e->kind()) {
      case ExprKind::kVar: {
        auto it = env_.find(Cast<Var>(e));
        if (it == env_.end()) return false;
        *slot = it->second;
        return true;
      }
      case ExprKind::kConstant:
        return Preset(e, Cast<Constant>(e)->data(), slot);
      case ExprKind::kGlobalVar:
        return Preset(e, Value::Global(Cast<GlobalVar>(e)), slot);
      case ExprKind::kOp:
        return false;  // an operator used as a value: the tree walker reports it
      default: {
        auto it = lowered_.find(e);
        if (it == lowered_.end()) return false;
        *slot = it->second;
        return true;
      }
    }
  }

  bool Preset(const Expr* e, Value value, uint32_t* slot) {
    auto [it, inserted] = lowered_.try_emplace(e, 0);
    if (inserted) {
      it->second = NewSlot();
      plan_->presets_.emplace_back(it->second, std::move(value));
    }
    *slot = it->second;
    return true;
  }

  // Pushes the evaluation of operand `e` (atoms and lowered nodes need none).
  void Visit(const Expr* e) {
    if (e->is_atom() || lowered_.contains(e)) return;
    stack_.push_back({e, Phase::kEnter});
  }

  bool Walk() {
    Visit(fn_->body());
    while (!stack_.empty()) {
      Item item = stack_.back();
      stack_.pop_back();
      if (item.phase != Phase::kEnter) {
        if (!Finish(item)) return false;
        continue;
      }
      const Expr* e = item.e;
      if (lowered_.contains(e)) continue;  // shared: lowered on its first visit
      if (!Enter(e)) return false;
    }
    return SlotOf(fn_->body(), &plan_->result_);
  }

  // Schedules a node's operands (pushed in reverse, so they run left to
  // right) before its own step.
  bool Enter(const Expr* e) {
    switch (e->kind()) {
      case ExprKind::kCall: {
        const Call* call = Cast<Call>(e);
        if (call->op() != nullptr && interp_.Kernel(call->op()) == nullptr) return false;
        stack_.push_back({e, Phase::kEmit});
        for (size_t i = call->args().size(); i-- > 0;) Visit(call->args()[i]);
        if (call->op() == nullptr) Visit(call->callee());
        return true;
      }
      case ExprKind::kTuple: {
        auto fields = Cast<Tuple>(e)->fields();
        stack_.push_back({e, Phase::kEmit});
        for (size_t i = fields.size(); i-- > 0;) Visit(fields[i]);
        return true;
      }
      case ExprKind::kTupleGetItem:
        stack_.push_back({e, Phase::kEmit});
        Visit(Cast<TupleGetItem>(e)->tuple());
        return true;
      case ExprKind::kLet:
        stack_.push_back({e, Phase::kLetBody});
        Visit(Cast<Let>(e)->value());
        return true;
      case ExprKind::kFunction: {
        // A closed literal (a composite function) is a constant closure.
        const Function* f = Cast<Function>(e);
        if (!interp_.Info(f).free_vars.empty()) return false;
        Closure closure;
        closure.function = f;
        uint32_t slot;
        return Preset(e, Value::MakeClosure(std::move(closure)), &slot);
      }
      default:
        return false;  // if: control flow stays with the tree walker
    }
  }

  bool Finish(const Item& item) {
    const Expr* e = item.e;
    switch (item.phase) {
      case Phase::kEmit:
        return Emit(e);
      case Phase::kLetBody: {
        const Let* let = Cast<Let>(e);
        uint32_t value;
        if (!SlotOf(let->value(), &value)) return false;
        env_[let->var()] = value;
        stack_.push_back({e, Phase::kLetDone});
        Visit(let->body());
        return true;
      }
      case Phase::kLetDone: {
        uint32_t body;
        if (!SlotOf(Cast<Let>(e)->body(), &body)) return false;
        lowered_[e] = body;
        return true;
      }
      default:
        return false;
    }
  }

  bool Emit(const Expr* e) {
    Plan::Step step{};
    step.expr = e;
    step.in_begin = plan_->operands_.size();
    std::vector<const Expr*> operands;
    if (const Call* call = DynCast<Call>(e)) {
      if (call->op() != nullptr) {
        step.kind = Plan::StepKind::kKernel;
        step.kernel = interp_.Kernel(call->op());
        ++plan_->kernel_steps_;
      } else {
        step.kind = Plan::StepKind::kInvoke;
        operands.push_back(call->callee());
      }
      operands.insert(operands.end(), call->args().begin(), call->args().end());
    } else if (const Tuple* tuple = DynCast<Tuple>(e)) {
      step.kind = Plan::StepKind::kTuple;
      operands.assign(tuple->fields().begin(), tuple->fields().end());
    } else {
      step.kind = Plan::StepKind::kProject;
      operands.push_back(Cast<TupleGetItem>(e)->tuple());
    }
    for (size_t i = 0; i < operands.size(); ++i) {
      uint32_t s;
      if (!SlotOf(operands[i], &s)) return false;
      plan_->operands_.push_back(s);
      if (step.kind == Plan::StepKind::kKernel && i < 64 &&
          operands[i]->kind() == ExprKind::kConstant) {
        step.constant_operands |= uint64_t{1} << i;
      }
    }
    step.in_end = plan_->operands_.size();
    step.out = NewSlot();
    lowered_[e] = step.out;
    plan_->steps_.push_back(std::move(step));
    return true;
  }

  // For each step, the slots it reads for the last time (each once), so a
  // run frees them right after; presets and the result are never freed.
  void ComputeFrees() {
    Plan& p = *plan_;
    constexpr uint32_t kNever = UINT32_MAX;
    std::vector<uint32_t> last(p.num_slots_, kNever);
    for (uint32_t k = 0; k < p.steps_.size(); ++k) {
      for (uint32_t i = p.steps_[k].in_begin; i < p.steps_[k].in_end; ++i) last[p.operands_[i]] = k;
    }
    std::vector<bool> keep(p.num_slots_, false);
    for (const auto& [slot, value] : p.presets_) keep[slot] = true;
    keep[p.result_] = true;
    std::vector<std::vector<uint32_t>> frees(p.steps_.size());
    p.unread_.assign(p.num_slots_, false);
    for (uint32_t s = 0; s < p.num_slots_; ++s) {
      if (keep[s]) continue;
      if (last[s] == kNever) {
        p.unread_[s] = true;
      } else {
        frees[last[s]].push_back(s);
      }
    }
    for (uint32_t k = 0; k < p.steps_.size(); ++k) {
      p.steps_[k].free_begin = p.frees_.size();
      p.frees_.insert(p.frees_.end(), frees[k].begin(), frees[k].end());
      p.steps_[k].free_end = p.frees_.size();
    }
    std::vector<uint32_t> reads(p.num_slots_, 0);
    for (uint32_t s : p.operands_) ++reads[s];
    std::vector<bool> param(p.num_slots_, false);
    for (uint32_t s : p.param_slots_) param[s] = true;
    for (const auto& [var, s] : p.captured_slots_) param[s] = true;
    p.read_once_.assign(p.num_slots_, false);
    for (uint32_t s = 0; s < p.num_slots_; ++s) {
      p.read_once_[s] = reads[s] == 1 && !keep[s] && !param[s];
    }
    // An element-wise step may overwrite its first operand when it is that
    // slot's last reader (earlier readers have run; any that kept a view of
    // the tensor made it not fresh, see Run) and reads it once.
    for (uint32_t k = 0; k < p.steps_.size(); ++k) {
      Plan::Step& step = p.steps_[k];
      if (step.kind != Plan::StepKind::kKernel || step.in_begin == step.in_end) continue;
      const uint32_t s = p.operands_[step.in_begin];
      if (keep[s] || param[s] || last[s] != k) continue;
      if (std::count(p.operands_.begin() + step.in_begin, p.operands_.begin() + step.in_end, s) !=
          1) {
        continue;
      }
      step.inplace = FindInPlaceKernel(Cast<Call>(step.expr)->op()->name);
    }
  }

  // The static dtype and shape of a call's tensor result, if it has them.
  static bool StaticTensor(const Expr* e, DataType* dtype, std::vector<int64_t>* shape) {
    const TensorType* t = e->checked_type() != nullptr ? DynCast<TensorType>(e->checked_type())
                                                       : nullptr;
    if (t == nullptr) return false;
    absl::StatusOr<std::vector<int64_t>> static_shape = StaticShape(t);
    if (!static_shape.ok()) return false;
    *shape = *std::move(static_shape);
    *dtype = t->dtype();
    return true;
  }

  // Gives the joins of interpreter/kernel_join.h one block each (see plan.h,
  // "Joins without a copy"). A join qualifies when its one operand is a
  // tuple step's slot that only it reads, the tuple's fields are distinct
  // slots that only the tuple reads, and each field's chain (the kernel
  // step that made it, back through in-place steps to the kernel step that
  // allocated) starts at a kernel step without an in-place variant whose
  // static type is the field's.
  void PlaceJoins() {
    Plan& p = *plan_;
    std::vector<int32_t> producer(p.num_slots_, -1);
    for (uint32_t k = 0; k < p.steps_.size(); ++k) producer[p.steps_[k].out] = int32_t(k);
    auto kernel_step = [&](uint32_t slot) -> Plan::Step* {
      const int32_t k = producer[slot];
      return k >= 0 && p.steps_[k].kind == Plan::StepKind::kKernel ? &p.steps_[k] : nullptr;
    };
    for (const Plan::Step& join : p.steps_) {
      if (join.kind != Plan::StepKind::kKernel || join.in_end - join.in_begin != 1) continue;
      const Call* call = Cast<Call>(join.expr);
      AdjacentJoinFn views = FindAdjacentJoin(call->op()->name);
      const uint32_t tuple_slot = p.operands_[join.in_begin];
      const int32_t t = producer[tuple_slot];
      if (views == nullptr || !views(call) || t < 0 || !p.read_once_[tuple_slot] ||
          p.steps_[t].kind != Plan::StepKind::kTuple) {
        continue;
      }
      const Plan::Step& tuple = p.steps_[t];
      std::vector<Plan::JoinSlice> slices;
      std::vector<Plan::Step*> heads;
      size_t bytes = 0;
      for (uint32_t i = tuple.in_begin; i < tuple.in_end; ++i) {
        const uint32_t field = p.operands_[i];
        Plan::Step* head = kernel_step(field);
        if (!p.read_once_[field] || head == nullptr) break;
        while (head->inplace != nullptr) {
          Plan::Step* before = kernel_step(p.operands_[head->in_begin]);
          if (before == nullptr) break;
          head = before;
        }
        Plan::JoinSlice slice;
        std::vector<int64_t> field_shape;
        DataType field_dtype;
        if (head->inplace != nullptr || head->join_slice >= 0 ||
            std::find(heads.begin(), heads.end(), head) != heads.end() ||
            !StaticTensor(head->expr, &slice.dtype, &slice.shape) ||
            !StaticTensor(p.steps_[producer[field]].expr, &field_dtype, &field_shape) ||
            field_dtype != slice.dtype || field_shape != slice.shape) {
          break;
        }
        slice.block = uint32_t(p.join_block_bytes_.size());
        slice.offset = bytes;
        int64_t elements = 1;
        for (int64_t d : slice.shape) elements *= d;
        bytes += size_t(elements) * slice.dtype.bytes();
        heads.push_back(head);
        slices.push_back(std::move(slice));
      }
      if (slices.size() != size_t(tuple.in_end - tuple.in_begin) || slices.size() < 2) continue;
      // Steps are stored in run order: the head at the highest address runs
      // last.
      slices[std::max_element(heads.begin(), heads.end()) - heads.begin()].last = true;
      for (size_t i = 0; i < heads.size(); ++i) {
        heads[i]->join_slice = int32_t(p.join_slices_.size());
        p.join_slices_.push_back(std::move(slices[i]));
      }
      p.join_block_bytes_.push_back(bytes);
    }
  }

  Interpreter& interp_;
  const Function* fn_;
  std::unique_ptr<Plan> plan_;
  uint32_t next_slot_ = 0;
  absl::flat_hash_map<const Var*, uint32_t> env_;
  absl::flat_hash_map<const Expr*, uint32_t> lowered_;
  std::vector<Item> stack_;
};

std::unique_ptr<Plan> Plan::Lower(Interpreter& interp, const Function* fn) {
  return PlanBuilder(interp, fn).Build();
}

namespace {

// The byte range of a tensor's storage, for the aliasing checks below.
struct ByteRange {
  uintptr_t begin, end;
  bool Overlaps(const ByteRange& o) const { return begin < o.end && o.begin < end; }
};
ByteRange RangeOf(const NDArray& t) {
  auto begin = reinterpret_cast<uintptr_t>(t.raw_data());
  return {begin, begin + t.nbytes()};
}

// True when a kernel step's output (a tensor, or a tuple of tensors) is
// storage no one else holds: the op computes (its pattern is not opaque),
// and no output tensor shares bytes with an input or with another output
// (a view such as reshape's, or relu returning an unsigned input as it is,
// fails this).
bool FreshOutput(const OpInfo* op, std::span<const Value> in, const Value& out) {
  switch (op->pattern) {
    case OpPattern::kElemWise:
    case OpPattern::kBroadcast:
    case OpPattern::kInjective:
    case OpPattern::kCommReduce:
    case OpPattern::kOutEWiseFusable:
      break;
    default:
      return false;
  }
  std::vector<ByteRange> seen;
  for (const Value& v : in) {
    if (!v.is_tensor()) return false;
    seen.push_back(RangeOf(v.tensor()));
  }
  std::span<const Value> outs(&out, 1);
  if (out.is_tuple()) outs = out.fields();
  for (const Value& v : outs) {
    if (!v.is_tensor()) return false;
    ByteRange r = RangeOf(v.tensor());
    for (const ByteRange& s : seen) {
      if (r.Overlaps(s)) return false;
    }
    seen.push_back(r);
  }
  return true;
}

// The live slots of one run and their byte count (for the interpreter's
// retained / live counters; presets are the module's, not the run's).
struct RunSlots {
  std::vector<Value> values;
  std::vector<int64_t> bytes;
  int64_t retained = 0;
};

}  // namespace

bool Plan::RunInPlace(Interpreter& interp, const Call* call, InPlaceKernelFn fn,
                      std::span<const Value> in, int64_t retained, Value* out) {
  std::vector<NDArray> inputs;
  inputs.reserve(in.size());
  for (const Value& v : in) {
    if (!v.is_tensor()) return false;
    inputs.push_back(v.tensor());
  }
  NDArray data = inputs[0];  // shares the buffer that is overwritten
  KernelContext ctx;
  ctx.op = call->op();
  ctx.inputs = inputs;
  ctx.attrs = call->attrs();
  ctx.out_type = call->checked_type();
  ctx.device = interp.opts_.device;
  if (!fn(ctx, data)) return false;
  // The counters Machine::CallKernel keeps, with the same figures.
  ++interp.stats_.kernel_calls;
  interp.stats_.peak_live_bytes =
      std::max(interp.stats_.peak_live_bytes, retained + static_cast<int64_t>(data.nbytes()));
  *out = Value(std::move(data));
  return true;
}

absl::StatusOr<Value> Plan::Run(Interpreter& interp, std::vector<Value> args,
                                const Closure* closure, int64_t outer_retained) const {
  RunSlots run;
  run.values.resize(num_slots_);
  run.bytes.assign(num_slots_, 0);
  InterpreterStats& stats = interp.stats_;
  auto store = [&](uint32_t slot, Value v) {
    if (unread_[slot] && slot != result_) return;  // never read: dropped now
    run.bytes[slot] = v.TensorBytes();
    run.retained += run.bytes[slot];
    stats.peak_retained_bytes = std::max(stats.peak_retained_bytes, outer_retained + run.retained);
    run.values[slot] = std::move(v);
  };
  for (const auto& [slot, value] : presets_) run.values[slot] = value;
  for (size_t i = 0; i < args.size(); ++i) store(param_slots_[i], std::move(args[i]));
  if (closure != nullptr) {
    for (const auto& [var, value] : closure->captured) store(captured_slots_.at(var), value);
  }
  // Slots holding tensors that no one outside this run's slots holds (see
  // FreshOutput): an in-place step may overwrite them.
  std::vector<bool> fresh(num_slots_, false);
  // The joins' blocks (PlaceJoins), allocated when their first slice is
  // written; each slice's tensor keeps the block alive.
  std::vector<NDArray> blocks(join_block_bytes_.size());
  std::vector<Value> in;
  for (const Step& step : steps_) {
    CARVE_RETURN_IF_ERROR(CheckCancellation());  // Ctrl-C in the REPL
    in.clear();
    for (uint32_t i = step.in_begin; i < step.in_end; ++i) in.push_back(run.values[operands_[i]]);
    for (uint32_t i = step.free_begin; i < step.free_end; ++i) {
      const uint32_t s = frees_[i];
      run.retained -= run.bytes[s];
      run.bytes[s] = 0;
      run.values[s] = Value();
    }
    Value out;
    bool out_fresh = false;
    switch (step.kind) {
      case StepKind::kKernel: {
        const Call* call = Cast<Call>(step.expr);
        if (step.inplace != nullptr && fresh[operands_[step.in_begin]] &&
            RunInPlace(interp, call, step.inplace, in, outer_retained + run.retained, &out)) {
          out_fresh = true;
          break;
        }
        NDArray destination;
        if (step.join_slice >= 0) {
          const JoinSlice& slice = join_slices_[step.join_slice];
          NDArray& block = blocks[slice.block];
          if (!block.defined()) {
            const int64_t size = int64_t(join_block_bytes_[slice.block]);
            block = NDArray::Uninitialized(DataType::UInt(8), std::span<const int64_t>(&size, 1));
          }
          destination = block.ViewAt(slice.offset, slice.dtype, slice.shape);
          if (slice.last) block = NDArray();
        }
        CARVE_ASSIGN_OR_RETURN(
            out, Machine::CallKernel(interp, call, step.kernel, in, outer_retained + run.retained,
                                    step.constant_operands, &step.state,
                                    destination.defined() ? &destination : nullptr));
        out_fresh = FreshOutput(call->op(), in, out);
        break;
      }
      case StepKind::kTuple:
        out = Value::Tuple(std::move(in));
        in = {};
        break;
      case StepKind::kProject: {
        CARVE_ASSIGN_OR_RETURN(out, Machine::ProjectField(Cast<TupleGetItem>(step.expr), in[0]));
        // The tuple dies with this step: its field is as fresh as it was.
        const uint32_t tuple = operands_[step.in_begin];
        out_fresh = fresh[tuple] && read_once_[tuple];
        break;
      }
      case StepKind::kInvoke: {
        Value callee = std::move(in[0]);
        std::vector<Value> call_args(std::make_move_iterator(in.begin() + 1),
                                     std::make_move_iterator(in.end()));
        Machine machine(interp);
        CARVE_ASSIGN_OR_RETURN(out,
                               machine.CallFromPlan(callee, std::move(call_args), step.expr->span(),
                                                    outer_retained + run.retained, &out_fresh));
        // The callee may keep its arguments (a runtime's cached weights):
        // they are no longer the plan's alone, whatever the result is.
        for (uint32_t i = step.in_begin; i < step.in_end; ++i) fresh[operands_[i]] = false;
        break;
      }
    }
    // A step whose result may share its operands' storage (a view, a tuple
    // holding them, a callee returning one) leaves them not fresh: a later
    // in-place step must not overwrite what that result still shows.
    if (!out_fresh) {
      for (uint32_t i = step.in_begin; i < step.in_end; ++i) fresh[operands_[i]] = false;
    }
    fresh[step.out] = out_fresh;
    store(step.out, std::move(out));
  }
  return std::move(run.values[result_]);
}

}  // namespace carve

// Helpers for the printer tests: a builder that makes typed IR by hand (each
// node gets the checked type TVM printed for it), so that expected texts can
// be copied from TVM's output.
#pragma once

#include <fstream>
#include <initializer_list>
#include <regex>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "gtest/gtest.h"
#include "ir/expr.h"
#include "ir/module.h"
#include "ir/type.h"

namespace carve::testing {

inline const TensorType* F32(std::initializer_list<int64_t> shape) {
  return TensorTy(DataType::Float(32), shape);
}
inline const TensorType* I32() { return ScalarTy(DataType::Int(32)); }
inline const TensorType* F32() { return ScalarTy(DataType::Float(32)); }
inline const TensorType* Bool() { return ScalarTy(DataType::Bool()); }
inline const Type* TupleOf(std::initializer_list<const Type*> fields) {
  return TupleTy(std::span<const Type* const>(fields.begin(), fields.size()));
}
inline const Type* FnOf(std::initializer_list<const Type*> params, const Type* ret) {
  return FuncTy(std::span<const Type* const>(params.begin(), params.size()), ret);
}

// Builds nodes in a module's arena. `ty` arguments become checked types
// (nullptr: untyped).
class TestBuilder {
 public:
  explicit TestBuilder(Module* mod) : mod_(mod), b_(mod->builder()) {}

  // A variable annotated with `ty` and typed `ty` (as after InferType).
  const Var* Param(std::string_view name, const Type* ty) {
    return Typed(b_.MakeVar(name, ty), ty);
  }
  // A variable without annotation.
  const Var* Untyped(std::string_view name) { return b_.MakeVar(name); }

  const Call* Op(std::string_view op, std::initializer_list<const Expr*> args,
                 const Type* ty = nullptr, const Attrs* attrs = nullptr) {
    const OpExpr* callee = GetOp(op);
    EXPECT_NE(callee, nullptr) << "op not registered: " << op;
    return Typed(b_.MakeCall(callee, args, attrs), ty);
  }
  const Call* Apply(const Expr* callee, std::initializer_list<const Expr*> args,
                    const Type* ty = nullptr) {
    return Typed(b_.MakeCall(callee, args), ty);
  }
  const Call* CallGlobal(std::string_view name, std::initializer_list<const Expr*> args,
                         const Type* ty = nullptr) {
    return Apply(mod_->GetGlobalVar(name), args, ty);
  }
  const Constant* Scalar(DataType dtype, double value) {
    return Typed(b_.MakeScalar(dtype, value), ScalarTy(dtype));
  }
  const Constant* Int(int32_t value) { return Scalar(DataType::Int(32), value); }
  const Constant* Tensor(NDArray data, const Type* ty) {
    return Typed(b_.MakeConstant(std::move(data)), ty);
  }
  const Tuple* Tup(std::vector<const Expr*> fields, const Type* ty = nullptr) {
    return Typed(b_.MakeTuple(fields), ty);
  }
  const TupleGetItem* Get(const Expr* tuple, int index, const Type* ty = nullptr) {
    return Typed(b_.MakeTupleGetItem(tuple, index), ty);
  }
  const Let* LetIn(const Var* var, const Expr* value, const Expr* body) {
    return b_.MakeLet(var, value, body);
  }
  const If* IfElse(const Expr* cond, const Expr* then_branch, const Expr* else_branch) {
    return b_.MakeIf(cond, then_branch, else_branch);
  }
  // A function literal; `typed` sets its checked type from params and `ret`.
  const Function* Fn(std::vector<const Var*> params, const Expr* body, const Type* ret = nullptr,
                     const Attrs* attrs = nullptr, bool typed = true) {
    const Function* fn = b_.MakeFunction(params, body, ret, attrs);
    if (typed && ret != nullptr) {
      std::vector<const Type*> types;
      for (const Var* p : params) types.push_back(p->checked_type());
      fn->set_checked_type(FuncTy(types, ret));
    }
    return fn;
  }
  // Defines `@name` (a top-level function is not given a checked type).
  void Def(std::string_view name, std::vector<const Var*> params, const Expr* body,
           const Type* ret = nullptr, const Attrs* attrs = nullptr) {
    mod_->Add(name, b_.MakeFunction(params, body, ret, attrs));
  }

  template <typename T>
  static const T* Typed(const T* e, const Type* ty) {
    if (ty != nullptr) e->set_checked_type(ty);
    return e;
  }

 private:
  Module* mod_;
  IRBuilder b_;
};

// A dictionary of string/int function attributes, in the given order.
inline const Attrs* FnAttrs(std::initializer_list<std::pair<std::string_view, AttrValue>> kv) {
  const Attrs* attrs = EmptyAttrs();
  for (const auto& [key, value] : kv) attrs = WithAttr(attrs, key, value);
  return attrs;
}

// The compiler annotation attributes (`compiler="target"`).
inline const Attrs* CompilerAttrs(std::string_view target) {
  const OpInfo* op = FindOp("annotation.compiler_begin");
  EXPECT_NE(op, nullptr);
  return WithField(DefaultAttrs(op->attrs), "compiler", AttrValue::Str(target));
}

// The text of a corpus file (TVM's output), or "" when unreadable.
inline std::string ReadCorpus(std::string_view name) {
  std::ifstream in(std::string(CARVE_SHARED_DIR) + "/corpus/" + std::string(name),
                   std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A corpus file split at its metadata section.
struct CorpusText {
  std::string program;   // the text before the blank line that precedes `#[metadata]`
  std::string metadata;  // the JSON after `#[metadata]\n` ("" when absent)
};

// Splits `text` and rewrites TVM's `meta[relay.attrs.CompilerAttrs][i]`
// arguments as carve prints them (`compiler="..."`, values read from the
// metadata). When the section held nothing but compiler attributes carve
// prints none, so the program then ends at the last definition.
inline CorpusText CarveForm(const std::string& text) {
  CorpusText out;
  size_t meta = text.find("\n#[metadata]\n");
  out.program = text.substr(0, meta == std::string::npos ? text.size() : meta);
  if (meta == std::string::npos) return out;
  out.metadata = text.substr(meta + 13);
  std::vector<std::string> compilers;
  std::regex compiler_re("\"compiler\": \"([^\"]*)\"");
  for (std::sregex_iterator it(out.metadata.begin(), out.metadata.end(), compiler_re), end;
       it != end; ++it) {
    compilers.push_back((*it)[1]);
  }
  std::regex ref_re("meta\\[relay\\.attrs\\.CompilerAttrs\\]\\[([0-9]+)\\]");
  std::string program;
  auto last = out.program.cbegin();
  for (std::sregex_iterator it(out.program.begin(), out.program.end(), ref_re), end; it != end;
       ++it) {
    program.append(last, (*it)[0].first);
    program += "compiler=\"" + compilers.at(std::stoul((*it)[1])) + "\"";
    last = (*it)[0].second;
  }
  program.append(last, out.program.cend());
  out.program = program;
  if (out.metadata.find("relay.Constant") == std::string::npos) out.metadata.clear();
  return out;
}

}  // namespace carve::testing

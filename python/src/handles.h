// How carve's IR is held from Python.
//
// IR nodes live in arenas owned by modules (support/arena.h) and are linked
// by plain pointers, so a Python expression object holds its node together
// with a shared pointer to the arena that keeps it alive: `ExprHandle`.
// One C++ handle type per node kind (VarHandle, CallHandle, ...) gives
// Python its classes (`isinstance(e, carve.relay.Call)`); they differ only in
// the properties bound to them.
//
// Nodes built from Python (carve.relay.var, relay.Call, ...) go to the
// *build arena*: one arena shared by everything built while any of it is
// alive, which also keeps alive the arenas of the nodes it refers to (an
// expression taken from a parsed module and used in a new function). It is
// held weakly between uses, so it is freed with the last object that needs
// it, and the next build starts a new one.
#pragma once

#include <memory>

#include <pybind11/pybind11.h>

#include "ir/expr.h"
#include "ir/module.h"

namespace carve::python {

struct ExprHandle {
  std::shared_ptr<Arena> arena;
  const Expr* expr = nullptr;
};
struct VarHandle : ExprHandle {};
struct GlobalVarHandle : ExprHandle {};
struct ConstantHandle : ExprHandle {};
struct OpHandle : ExprHandle {};
struct CallHandle : ExprHandle {};
struct TupleHandle : ExprHandle {};
struct TupleGetItemHandle : ExprHandle {};
struct LetHandle : ExprHandle {};
struct IfHandle : ExprHandle {};
struct RefCreateHandle : ExprHandle {};
struct RefReadHandle : ExprHandle {};
struct RefWriteHandle : ExprHandle {};
struct FunctionHandle : ExprHandle {};

// A module as Python sees it: a value (passes return a new one).
struct ModuleHandle {
  Module mod;
};

// `expr` (living in `arena`) as a Python object of its kind's class.
pybind11::object WrapExpr(const std::shared_ptr<Arena>& arena, const Expr* expr);

// The build arena (created when none is alive).
std::shared_ptr<Arena> BuildArena();
// Makes the build arena `build` keep `other` alive (no-op when they are the
// same arena or `other` is already kept).
void KeepAlive(const std::shared_ptr<Arena>& build, const std::shared_ptr<Arena>& other);

}  // namespace carve::python

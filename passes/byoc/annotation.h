// The vocabulary the BYOC passes share: TVM's function attribute keys, the
// `annotation.compiler_begin` / `annotation.compiler_end` markers that
// AnnotateTarget inserts on edges, and small helpers to build and read them.
#pragma once

#include <string_view>

#include "ir/expr.h"

namespace carve {

// Function attribute keys, spelled as in TVM (include/tvm/relay/function.h).
namespace attr {
inline constexpr std::string_view kComposite = "Composite";
inline constexpr std::string_view kCompiler = "Compiler";
inline constexpr std::string_view kPrimitive = "Primitive";
inline constexpr std::string_view kInline = "Inline";
inline constexpr std::string_view kPartitionedFromPattern = "PartitionedFromPattern";
inline constexpr std::string_view kExtern = "Extern";
inline constexpr std::string_view kSkipOptimization = "SkipOptimization";
inline constexpr std::string_view kGlobalSymbol = "global_symbol";
}  // namespace attr

// The target of every op no requested target supports (AnnotateTarget) and
// whose annotations PartitionGraph drops before partitioning.
inline constexpr std::string_view kDefaultTarget = "default";

// The callee nodes of annotation.compiler_begin / compiler_end (one node per
// op, see GetOp): comparing a call's callee with them reads no other node.
const OpExpr* CompilerBeginOp();
const OpExpr* CompilerEndOp();

// True for a call of annotation.compiler_begin / annotation.compiler_end.
// They compare callee pointers: a walk asks this of every node, and reading
// the callee (often a composite function literal elsewhere in memory) was a
// cache miss per call.
bool IsCompilerBegin(const Expr* e);
bool IsCompilerEnd(const Expr* e);
bool IsCompilerAnnotation(const Expr* e);

// The `compiler` attribute of an annotation call ("" for other nodes).
std::string_view AnnotationTarget(const Expr* e);

// compiler_begin(arg) / compiler_end(arg) for `target`. The new call takes
// arg's checked type (as TVM's AnnotateTarget does), so passes that insert
// annotations keep a typed graph.
const Call* MakeCompilerBegin(IRBuilder& builder, const Expr* arg, std::string_view target);
const Call* MakeCompilerEnd(IRBuilder& builder, const Expr* arg, std::string_view target);

// The interned attributes MakeCompilerBegin / MakeCompilerEnd give an
// annotation of `op` (CompilerBeginOp() or CompilerEndOp()) for `target`, and
// the annotation made with them. A pass that annotates many edges with a few
// targets looks the attributes up once per target and builds each call
// without comparing target names.
const Attrs* CompilerAnnotationAttrs(const OpExpr* op, std::string_view target);
const Call* MakeCompilerAnnotation(IRBuilder& builder, const OpExpr* op, const Expr* arg,
                                   const Attrs* attrs);

// The composite name of a call to a `Composite` function literal, or "".
std::string_view CompositeName(const Call* call);

// TVM's AsOptimizableFunctionNode: false for functions a Relay function pass
// skips (those with `Compiler`, a non-zero `Extern` or `SkipOptimization`).
bool IsOptimizableFunction(const Function* fn);

}  // namespace carve

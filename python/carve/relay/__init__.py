"""carve.relay: building Relay expressions from Python, as tvm.relay does.

    x = relay.var("x", shape=(1, 3), dtype="float32")
    y = relay.nn.relu(x + relay.const(1.0))
    mod = carve.IRModule.from_expr(relay.Function([x], y))

Every registered operator is a function here under its Relay name (relay.add,
relay.reshape, relay.nn.conv2d, relay.qnn.op.requantize): inputs first, then
its attributes positionally in the op's attribute order or by keyword.
Nothing is checked until InferType, as in TVM.
"""

from .. import _carve
from . import dataflow_pattern  # noqa: F401
from . import transform  # noqa: F401
from .._carve import Type  # noqa: F401
from ..ir import IRModule  # noqa: F401
from . import op as _op
from .op import nn, qnn, image  # noqa: F401
from . import op  # noqa: F401
from . import build_module  # noqa: F401
from . import frontend  # noqa: F401
from . import analysis  # noqa: F401
from .build_module import bind_params_by_name  # noqa: F401


class _NodeClass(type):
    """A constructor that is also the class of the nodes it makes (isinstance works)."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, cls._node_class)

    def __call__(cls, *args, **kwargs):
        return cls._make(*args, **kwargs)


def _node(name, node_class, make, doc):
    return _NodeClass(name, (), {"_node_class": node_class, "_make": staticmethod(make), "__doc__": doc})


def _call(op, args, attrs=None):
    if isinstance(op, _carve.Op):
        return _carve.make_op_call(op.name, list(args), dict(attrs or {}))
    if attrs:
        raise ValueError("attrs apply to calls of operators only")
    return _carve.make_call(op, list(args))


def _function(params, body, ret_type=None, type_params=None, attrs=None):
    if type_params:
        raise ValueError("carve builds no type parameters from Python")
    return _carve.make_function(list(params), body, ret_type, attrs)


Expr = _carve.Expr
Var = _node("Var", _carve.Var, lambda name_hint, type_annotation=None: var(name_hint, type_annotation), "relay.Var")
GlobalVar = _node("GlobalVar", _carve.GlobalVar, None, "relay.GlobalVar")
Constant = _node("Constant", _carve.Constant, lambda data: const(data), "relay.Constant")
Call = _node("Call", _carve.Call, _call, "relay.Call(op, args, attrs=None)")
Tuple = _node("Tuple", _carve.Tuple, lambda fields: _carve.make_tuple(list(fields)), "relay.Tuple(fields)")
TupleGetItem = _node("TupleGetItem", _carve.TupleGetItem, _carve.make_tuple_get_item,
                     "relay.TupleGetItem(tuple_value, index)")
Let = _node("Let", _carve.Let, _carve.make_let, "relay.Let(var, value, body)")
If = _node("If", _carve.If, _carve.make_if, "relay.If(cond, true_branch, false_branch)")
RefCreate = _node("RefCreate", _carve.RefCreate, _carve.make_ref_create, "relay.RefCreate(value)")
RefRead = _node("RefRead", _carve.RefRead, _carve.make_ref_read, "relay.RefRead(ref)")
RefWrite = _node("RefWrite", _carve.RefWrite, _carve.make_ref_write, "relay.RefWrite(ref, value)")
Function = _node("Function", _carve.Function, _function,
                 "relay.Function(params, body, ret_type=None, type_params=None, attrs=None)")
TensorType = _node("TensorType", _carve.Type,
                   lambda shape, dtype="float32": _carve.tensor_type(list(shape), dtype),
                   "relay.TensorType(shape, dtype)")
TupleType = _node("TupleType", _carve.Type, lambda fields: _carve.tuple_type(list(fields)), "relay.TupleType")
FuncType = _node("FuncType", _carve.Type,
                 lambda arg_types, ret_type: _carve.func_type(list(arg_types), ret_type), "relay.FuncType")


def var(name_hint, type_annotation=None, shape=None, dtype="float32"):
    """A variable; `shape` (with `dtype`) makes its annotation a tensor type."""
    if type_annotation is not None and shape is not None:
        raise ValueError("var: give type_annotation or shape, not both")
    if shape is not None:
        type_annotation = _carve.tensor_type(list(shape), dtype)
    return _carve.make_var(name_hint, type_annotation)


def const(value, dtype=None):
    """A constant: a Python number or list (int -> int32, float -> float32, as TVM) or an array."""
    import numpy as _np

    if isinstance(value, (bool, int, float, list, tuple)):
        array = _np.array(value, dtype=dtype)
        if dtype is None:
            array = array.astype({_np.dtype("int64"): _np.int32,
                                  _np.dtype("float64"): _np.float32}.get(array.dtype, array.dtype))
    else:
        array = _np.asarray(value)
        if dtype is not None:
            array = array.astype(dtype)
    return _carve.make_constant(array)


# TVM names carve leaves out on purpose, with what to use instead: carve
# partitions and runs modules, it does not compile them.
_NOT_IN_CARVE = {
    "build": "carve does not compile modules: run one with carve.run(mod, inputs), or compare "
             "a backend's partition with carve.compare(mod, backend, inputs=...)",
    "create_executor": "run a module with carve.run(mod, inputs, params=...) (a list of numpy "
                       "arrays), as create_executor(...).evaluate() would",
    "optimize": "carve does not compile modules: run passes with carve.transform (Sequential, "
                "parse_pipeline) and partition with carve.partition_for",
}


def __getattr__(name):
    if name in _NOT_IN_CARVE:
        raise AttributeError("carve.relay has no %r: %s" % (name, _NOT_IN_CARVE[name]))
    try:
        return _op.op_function(name)
    except AttributeError:
        # Not "carve has no operator": the name may not be meant as one.
        raise AttributeError("carve.relay has no %r (no such function, module or operator)"
                             % name) from None


def _install_operators():
    """TVM's ExprWithOp: arithmetic and comparisons build op calls; calling an expression calls it."""

    def binary(op_name, swap=False):
        def method(self, other):
            if not isinstance(other, _carve.Expr):
                if isinstance(other, (int, float)):
                    raise TypeError('convert "%s" with `const` first' % (other,))
                return NotImplemented
            a, b = (other, self) if swap else (self, other)
            return _op.op_function(op_name)(a, b)

        return method

    expr = _carve.Expr
    for name, op_name in [("add", "add"), ("sub", "subtract"), ("mul", "multiply"),
                          ("truediv", "divide"), ("div", "divide")]:
        setattr(expr, "__%s__" % name, binary(op_name))
        setattr(expr, "__r%s__" % name, binary(op_name, swap=True))
    for name, op_name in [("lt", "less"), ("gt", "greater"), ("le", "less_equal"), ("ge", "greater_equal")]:
        setattr(expr, "__%s__" % name, binary(op_name))
    expr.__neg__ = lambda self: _op.op_function("negative")(self)
    expr.__call__ = lambda self, *args: _carve.make_call(self, list(args))
    expr.astype = lambda self, dtype: _op.op_function("cast")(self, dtype)
    # TVM wraps the calls of ops with several results (split, batch_norm,
    # topk, ...) in a TupleWrapper; here the call itself indexes, iterates and
    # has a length, and astuple() is the call. A call stays true whatever its
    # length, as an expression is in TVM.
    call = _carve.Call
    call.__getitem__ = _tuple_item
    call.__len__ = _tuple_size
    call.__bool__ = lambda self: True
    call.astuple = lambda self: self
    _carve.Tuple.__getitem__ = _tuple_item


# The number of results of a call of these ops, from its attributes: the
# size of the TupleWrapper TVM's Python wrapper returns. Indexing such a call
# then leaves it untyped, as in TVM (typing would print `/* ty=... */`).
_RESULTS = {
    "split": lambda a: (a["indices_or_sections"] if isinstance(a["indices_or_sections"], int)
                        else len(a["indices_or_sections"]) + 1),
    "nn.batch_norm": lambda a: 3,
    "nn.dropout": lambda a: 2,
    "unique": lambda a: 5 if a["return_counts"] else 4,
    "topk": lambda a: 2 if a["ret_type"] == "both" else None,
    "dft": lambda a: 2,
}


def _tuple_size(expr):
    """The number of fields of `expr`'s tuple type (typing it when it has no checked type)."""
    if isinstance(expr, _carve.Tuple):
        return len(expr.fields)
    try:
        ty = expr.checked_type
    except ValueError:
        results = _RESULTS.get(expr.op.name) if isinstance(expr.op, _carve.Op) else None
        size = results(expr.attrs) if results else None
        if size is not None:
            return size
        ty = transform.InferType()(IRModule.from_expr(expr))["main"].body.checked_type
    if ty.kind != "TupleType":
        raise TypeError("expression of type %s is not a tuple: it has no length or items" % ty)
    return len(ty.fields)


def _tuple_item(expr, index):
    """tuple[index]: a Tuple's field, or TupleGetItem of an expression of tuple type."""
    if not isinstance(index, int):
        raise TypeError("tuple indices are integers, not %s" % type(index).__name__)
    size = _tuple_size(expr)
    if index < 0:
        index += size
    if not 0 <= index < size:
        raise IndexError("tuple index out of range")
    if isinstance(expr, _carve.Tuple):
        return expr.fields[index]
    return _carve.make_tuple_get_item(expr, index)


_install_operators()


def fromtext(text, source_name="<string>"):
    """tvm.relay.fromtext: carve.parse (a typed module)."""
    return _carve.parse(text, source_name)

"""carve.relay.analysis: tvm.relay.analysis's variable queries.

    y = relay.nn.relu(relay.add(x, b))
    f = relay.Function(relay.analysis.free_vars(y), y)

Each returns variables in TVM's order: first use, a bound variable at the
let, function or match clause that binds it.
"""

from .. import _carve


def free_vars(expr):
    """The variables `expr` reads but does not bind (TVM's free_vars)."""
    return _carve.free_vars(expr)


def bound_vars(expr):
    """The variables bound inside `expr`: let variables, function parameters, match variables."""
    return _carve.bound_vars(expr)


def all_vars(expr):
    """Every variable of `expr`, free or bound."""
    return _carve.all_vars(expr)


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise AttributeError(
        "carve.relay.analysis has no %r: it has free_vars, bound_vars and all_vars; a module's "
        "types come from carve.transform.InferType(), and carve.ir.structural_equal / "
        "assert_structural_equal compare modules" % name)

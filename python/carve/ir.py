"""carve.ir: modules, structural equality and attribute sets (tvm.ir)."""

from ._carve import (  # noqa: F401
    IRModule,
    Type,
    assert_structural_equal,
    structural_equal,
    structural_hash,
)


class Attrs(dict):
    """An attribute set: a dict that also reads as attributes (call.attrs.padding)."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


def register_op_attr(op_name, attr_key, value=None, level=10):
    """tvm.ir.register_op_attr for annotation rules: "target.<name>" with a function of the call.

    Used as a decorator (@register_op_attr("add", "target.mybackend")) or called with the
    function (or True / False). It replaces the target's rules for that op.
    """
    from ._carve import register_op_attr as _register

    if level != 10:
        raise ValueError("register_op_attr: carve has no attribute levels; omit level")

    def register(fn):
        _register(op_name, attr_key, fn)
        return fn

    return register if value is None else register(value)


def __getattr__(name):
    # tvm.ir.transform is tvm.transform (Sequential, PassContext, ...).
    if name == "transform":
        from . import transform

        return transform
    raise AttributeError("module 'carve.ir' has no attribute %r" % name)


def _update_func(mod, var, func):
    """IRModule.update_func(gv, func): replaces (or adds) the function `var` names."""
    mod[var] = func


def _concrete_shape(ty):
    """TensorType.concrete_shape: the shape as ints (ValueError when a dim is dynamic)."""
    shape = ty.shape
    if any(d is None for d in shape):
        raise ValueError("%s has a dynamic dimension: no concrete shape" % ty)
    return shape


IRModule.update_func = _update_func
Type.concrete_shape = property(_concrete_shape)

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

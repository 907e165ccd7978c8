"""carve.transform: TVM's BYOC passes (tvm.relay.transform), each callable on a module.

    mod = carve.transform.Sequential([
        carve.transform.InferType(),
        carve.transform.MergeComposite(table),   # [(name, pattern[, check])], a .pat table or a backend name
        carve.transform.AnnotateTarget("dnnl"),
        carve.transform.MergeCompilerRegions(),
        carve.transform.PartitionGraph(),
    ])(mod)

A pass returns a new module and leaves its argument as it was. Every pass carve has
is also reachable through parse_pipeline("InferType,FoldConstant,...") (list_passes()).

As in TVM, a Sequential runs the members its pass context lets run: those registered
at most at its opt_level (2 outside any `with`) and not in its disabled_pass:

    with carve.transform.PassContext(opt_level=3, disabled_pass=["AlterOpLayout"]):
        mod = seq(mod)                       # FoldScaleAxis (level 3) runs here
        mod = carve.partition_for(mod, "arm_compute_lib")   # in this context too

A pass applied directly, parse_pipeline's included, runs whole, as a TVM pass applied
directly does (TVM's FoldScaleAxis, a Sequential itself, would skip its level-3 members
below opt_level 3); partition_for outside any `with` runs in its backend's own context
(docs/backends.md).
"""

import warnings

from . import _carve
from ._carve import (  # noqa: F401
    AnnotateTarget,
    InferType,
    MergeCompilerRegions,
    MergeComposite,
    PartitionGraph,
    Pass,
    PassContext,
    Sequential,
    list_passes,
    parse_pipeline,
)


def _pipeline_value(value):
    """A Python argument as pipeline text: "quoted", True / False, [a,b], 3."""
    if isinstance(value, str):
        if '"' in value or "\\" in value:
            raise ValueError("pass arguments cannot hold quotes or backslashes: %r" % value)
        return '"%s"' % value
    if isinstance(value, (list, tuple)):
        return "[%s]" % ",".join(_pipeline_value(v) for v in value)
    if isinstance(value, (bool, int)):
        return str(value)
    raise TypeError("a pass argument is a string, bool, int or list, not %r" % (value,))


def _pipeline_pass(name):
    def make(*args, **kwargs):
        parts = [_pipeline_value(a) for a in args]
        parts += ["%s=%s" % (k, _pipeline_value(v)) for k, v in kwargs.items()]
        return parse_pipeline("%s(%s)" % (name, ",".join(parts)) if parts else name)

    make.__name__ = name
    make.__doc__ = "carve's %s pass (see list_passes() for its parameters)." % name
    return make


def _layout_item(op, layouts):
    """One desired_layouts entry as carve's `op:data[:kernel]` item."""
    if not isinstance(op, str):
        raise TypeError("desired_layouts: an op is named by a str, not %r" % (op,))
    if isinstance(layouts, str) or not isinstance(layouts, (list, tuple)) or \
            not 1 <= len(layouts) <= 2 or not all(isinstance(x, str) for x in layouts):
        raise TypeError("desired_layouts[%r] must be [data_layout] or [data_layout, "
                        "kernel_layout] (str), not %r" % (op, layouts))
    return ":".join([op] + list(layouts))


def _converted_items(desired_layouts):
    """The entries of TVM's desired_layouts dict that ConvertLayout acts on, as `op:data[:kernel]`.

    TVM consults the dict only for ops with a convert function (convolutions, pools, resize,
    roi ops) and ignores the other entries: the BNNS guide's {"nn.conv2d": ..., "nn.bias_add":
    ..., "nn.relu": ...} runs, bias_add and relu following conv2d's layout. carve drops those
    entries with a warning; a name that is no op at all is still an error (a typo)."""
    items, ignored = [], []
    for op, layouts in desired_layouts.items():
        item = _layout_item(op, layouts)
        if _carve._layout_converts(op) is False:
            ignored.append(op)
        else:
            items.append(item)
    if ignored:
        warnings.warn("ConvertLayout: ignoring desired layouts for %s: ConvertLayout converts "
                      "no such op (as TVM, which ignores them too; they follow the layout of "
                      "their producers)" % ", ".join(ignored), stacklevel=3)
    if not items:
        raise ValueError("ConvertLayout: desired_layouts names no op that ConvertLayout converts "
                         "(the convolutions, the 2-d pools, image.resize1d/2d, vision.roi_align "
                         "/ roi_pool; docs/passes.md)")
    return items


def ConvertLayout(desired_layouts=None, **kwargs):
    """TVM's ConvertLayout: moves the listed ops to the desired layouts; the ops after them follow.

    desired_layouts is TVM's map from op name to [data_layout] or [data_layout, kernel_layout],
    "default" for the op's default kernel layout:

        transform.ConvertLayout({"nn.conv2d": ["NHWC", "default"], "nn.max_pool2d": ["NHWC"]})

    (also as desired_layouts={...}, TVM's keyword, or layouts={...}, carve's). Entries for
    ops ConvertLayout does not convert (nn.relu, nn.bias_add: they follow their producer) are
    ignored with a warning, as TVM ignores them; a name that is no op is an error.

    carve's pipeline form works too: ConvertLayout("NHWC", kernel_layout="OHWI",
    ops=["nn.conv2d"]), or layouts=["nn.conv2d:NHWC:OHWI"] (docs/passes.md).

    As in TVM it is an opt_level 3 pass: applied directly it runs, but a Sequential
    runs it only inside `with PassContext(opt_level=3)`.
    """
    make = _pipeline_pass("ConvertLayout")
    if isinstance(kwargs.get("layouts"), dict):
        # carve's `layouts` parameter given in TVM's dict form.
        if desired_layouts is not None:
            raise TypeError("ConvertLayout: give desired_layouts or layouts, not both")
        desired_layouts = kwargs.pop("layouts")
    if isinstance(desired_layouts, dict):
        if kwargs:
            raise TypeError("ConvertLayout takes TVM's desired_layouts dict alone, or carve's "
                            "arguments without it; got both (%s)" % ", ".join(sorted(kwargs)))
        if not desired_layouts:
            raise ValueError("ConvertLayout: desired_layouts is empty (name at least one op)")
        return make(layouts=_converted_items(desired_layouts))
    if desired_layouts is None:
        return make(**kwargs)
    return make(desired_layouts, **kwargs)


def __getattr__(name):
    # Every other registered pass under its TVM name: FoldConstant(), SimplifyInference(), ...
    for signature in list_passes():
        if signature.split("(")[0] == name:
            return _pipeline_pass(name)
    raise AttributeError("carve.transform has no pass %r (see list_passes())" % name)


def _python_pass(kind, pass_func, opt_level, name, required, run):
    """The decorator behind module_pass / function_pass."""
    if opt_level is None:
        raise TypeError("%s: opt_level is required, as in TVM" % kind)
    if required:
        raise ValueError("%s: carve runs no `required` passes before a Python pass; put them "
                         "before it in a Sequential" % kind)

    def create(obj):
        import inspect

        if inspect.isclass(obj):
            # Instances of the decorated class are passes, as in TVM.
            pass_name = name or obj.__name__

            class PythonPass:
                def __new__(cls, *args, **kwargs):
                    inst = obj(*args, **kwargs)
                    return _carve.python_pass(pass_name, opt_level, lambda mod: run(inst, mod))

            PythonPass.__name__ = PythonPass.__qualname__ = obj.__name__
            PythonPass.__doc__ = obj.__doc__
            return PythonPass
        if not callable(obj):
            raise TypeError("%s decorates a function or a class, not %r" % (kind, obj))
        return _carve.python_pass(name or obj.__name__, opt_level, lambda mod: run(obj, mod))

    return create(pass_func) if pass_func is not None else create


def _run_module_pass(impl, mod):
    fn = impl if not hasattr(impl, "transform_module") else impl.transform_module
    return fn(mod, PassContext.current())


def _run_function_pass(impl, mod):
    fn = impl if not hasattr(impl, "transform_function") else impl.transform_function
    ctx = PassContext.current()
    for gv, func in list(mod.functions.items()):
        # TVM's function passes skip the functions of external compilers.
        if func.attrs and ("Compiler" in func.attrs or "SkipOptimization" in func.attrs):
            continue
        new = fn(func, mod, ctx)
        if not new.same_as(func):
            mod.update_func(gv, new)
    return mod


def module_pass(pass_func=None, opt_level=None, name=None, required=None, traceable=False):
    """tvm.transform.module_pass: a pass from a function f(mod, ctx) -> mod, or a class
    with transform_module(self, mod, ctx) (its instances are passes).

    The pass is registered under its name (the function's or class's unless name= is
    given) with opt_level, so a Sequential's PassContext gates and disables it as TVM's.
    """
    if traceable:
        raise ValueError("module_pass: carve has no traceable passes")
    return _python_pass("module_pass", pass_func, opt_level, name, required, _run_module_pass)


def function_pass(pass_func=None, opt_level=None, name=None, required=None):
    """relay.transform.function_pass: a pass from f(func, mod, ctx) -> func, or a class with
    transform_function(self, func, mod, ctx), applied to every function of the module but
    those of external compilers (Compiler attribute), as TVM's."""
    return _python_pass("function_pass", pass_func, opt_level, name, required, _run_function_pass)


def InferTypeLocal(expr):
    """relay.transform.InferTypeLocal: types `expr` (its free variables need annotations)
    and returns its type."""
    from .ir import IRModule

    mod = InferType()(IRModule.from_expr(expr))
    fn = mod["main"]
    return fn.checked_type if isinstance(expr, _carve.Function) else fn.body.checked_type

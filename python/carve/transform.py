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


def __getattr__(name):
    # Every other registered pass under its TVM name: FoldConstant(), SimplifyInference(), ...
    for signature in list_passes():
        if signature.split("(")[0] == name:
            return _pipeline_pass(name)
    raise AttributeError("carve.transform has no pass %r (see list_passes())" % name)

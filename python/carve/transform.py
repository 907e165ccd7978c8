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

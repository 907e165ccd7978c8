"""tvm.relay.op.contrib.arm_compute_lib: partition_for_arm_compute_lib."""

from .... import _carve

_DEFAULT_DISABLED = ("concatenate",)


def partition_for_arm_compute_lib(mod, params=None, disabled_ops=_DEFAULT_DISABLED, **opts):
    """Offload what Arm Compute Library supports, as TVM's function of this name.

    carve's ACL spec leaves concatenate out, as TVM's default disabled_ops does; another
    list would need the spec edited (backends/arm_compute_lib/arm_compute_lib.pat, or
    carve.patterns to register a changed copy), so it raises.
    """
    if opts:
        raise TypeError("partition_for_arm_compute_lib: carve takes no options (%s)"
                        % ", ".join(sorted(opts)))
    if disabled_ops is None or tuple(disabled_ops) != _DEFAULT_DISABLED:
        raise NotImplementedError(
            "partition_for_arm_compute_lib: carve's ACL spec disables exactly ['concatenate'] "
            "(TVM's default); got %r" % (disabled_ops,))
    return _carve.partition_for(mod, "arm_compute_lib", params=params)


def arm_compute_lib_pattern_table(disabled_ops=_DEFAULT_DISABLED):
    """The Arm Compute Library composites as TVM's function of this name returns them, for
    MergeComposite; carve's spec leaves concatenate out, as TVM's default disabled_ops."""
    from .register import get_pattern_table

    if disabled_ops is None or tuple(disabled_ops) != _DEFAULT_DISABLED:
        raise NotImplementedError(
            "arm_compute_lib_pattern_table: carve's ACL spec disables exactly ['concatenate'] "
            "(TVM's default); got %r" % (disabled_ops,))
    return get_pattern_table("arm_compute_lib")

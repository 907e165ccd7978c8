"""tvm.relay.op.contrib.bnns: partition_for_bnns."""

from .... import _carve


def partition_for_bnns(mod, params=None):
    """Offload what Apple BNNS supports, as TVM's function of this name."""
    return _carve.partition_for(mod, "bnns", params=params)


def pattern_table():
    """The bnns composites as TVM's pattern_table() returns them: [(name, pattern, check)]
    for MergeComposite, read from carve's bnns spec (backends/bnns/bnns.pat)."""
    from .register import get_pattern_table

    return get_pattern_table("bnns")

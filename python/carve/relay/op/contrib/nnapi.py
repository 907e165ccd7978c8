"""partition_for_nnapi: carve's Android NNAPI flow (TVM's NNAPI RFC, with its static cost rule)."""

from .... import _carve


def partition_for_nnapi(mod, params=None, prune_subgraphs=True):
    """Offload what NNAPI supports; prune_subgraphs=False keeps partitions the cost rule drops."""
    return _carve.partition_for(mod, "nnapi", params=params, prune=bool(prune_subgraphs))


def pattern_table():
    """The nnapi composites as TVM's pattern_table() returns them: [(name, pattern, check)]
    for MergeComposite, read from carve's nnapi spec (backends/nnapi/nnapi.pat)."""
    from .register import get_pattern_table

    return get_pattern_table("nnapi")

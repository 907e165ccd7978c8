"""partition_for_dnnl, as TVM v0.16's DNNL tests define it (tests/python/contrib/test_dnnl.py)."""

from .... import _carve


def partition_for_dnnl(mod, params=None, alter_layout=False, prune_subgraphs=True):
    """Offload what oneDNN supports: test_dnnl.py's preparation, composites and pruning.

    carve does not rewrite convolutions into oneDNN's blocked layouts (dnnl.alter_conv), so
    alter_layout defaults to False here (TVM's test defaults to True) and True raises.
    """
    if alter_layout:
        raise NotImplementedError(
            "partition_for_dnnl: carve has no oneDNN AlterOpLayout (blocked layouts); "
            "call it with alter_layout=False")
    return _carve.partition_for(mod, "dnnl", params=params, prune=bool(prune_subgraphs))


def pattern_table():
    """The dnnl composites as TVM's pattern_table() returns them: [(name, pattern, check)]
    for MergeComposite, read from carve's dnnl spec (backends/dnnl/dnnl.pat)."""
    from .register import get_pattern_table

    return get_pattern_table("dnnl")

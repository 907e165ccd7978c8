"""tvm.relay.op.contrib.bnns: partition_for_bnns."""

from .... import _carve


def partition_for_bnns(mod, params=None):
    """Offload what Apple BNNS supports, as TVM's function of this name."""
    return _carve.partition_for(mod, "bnns", params=params)

"""tvm.relay.op.contrib.tensorrt: partition_for_tensorrt."""

from .... import _carve


def partition_for_tensorrt(mod, params=None, target=None):
    """Offload what TensorRT supports, as TVM's function of this name with its default
    target (implicit batch mode, no fp16); another target raises."""
    if target is not None:
        raise NotImplementedError(
            "partition_for_tensorrt: carve has only TVM's default TensorRT target "
            "(implicit batch, no fp16); call it without target")
    return _carve.partition_for(mod, "tensorrt", params=params)


def pattern_table():
    """The tensorrt composites as TVM's pattern_table() returns them: [(name, pattern, check)]
    for MergeComposite, read from carve's tensorrt spec (backends/tensorrt/tensorrt.pat)."""
    from .register import get_pattern_table

    return get_pattern_table("tensorrt")


def is_tensorrt_runtime_enabled():
    """False: carve has no TensorRT runtime (carve.run runs tensorrt partitions on its
    reference kernels), as TVM built without TensorRT answers."""
    return False

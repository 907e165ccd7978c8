"""The arrays carve hands out: numpy arrays that also answer TVM's NDArray calls.

carve's tensors are numpy arrays; ported TVM code still calls `.numpy()` on a
constant's `data` or on a run's outputs (as on tvm.nd.NDArray), so these
arrays have it.
"""

import numpy as _np


class NDArray(_np.ndarray):
    """A numpy array with tvm.nd.NDArray's numpy() and asnumpy(): a plain copy, as in TVM."""

    def numpy(self):
        """A copy as a plain, writeable numpy array (TVM's NDArray.numpy())."""
        return _np.array(self)

    asnumpy = numpy


def wrap(array):
    """`array` seen as an NDArray (a view: no copy, same flags)."""
    return array.view(NDArray)

"""tvm.relay.op.contrib: each backend's partition_for_<backend>, under TVM's names.

    from carve.relay.op.contrib.arm_compute_lib import partition_for_arm_compute_lib
    with carve.transform.PassContext(opt_level=3, disabled_pass=["AlterOpLayout"]):
        mod = partition_for_arm_compute_lib(mod, params)

Each runs carve's flow for its backend (carve.partition_for): the passes of TVM's
function of that name, in the active PassContext, or outside any `with` in the
context the backend's users build in (docs/backends.md). Arguments TVM's function
takes that carve cannot honour raise instead of being ignored.
"""

from .register import get_pattern_table, register_pattern_table  # noqa: F401
from .arm_compute_lib import partition_for_arm_compute_lib  # noqa: F401
from .bnns import partition_for_bnns  # noqa: F401
from .dnnl import partition_for_dnnl  # noqa: F401
from .nnapi import partition_for_nnapi  # noqa: F401
from .tensorrt import partition_for_tensorrt  # noqa: F401

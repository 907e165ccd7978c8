"""carve: Relay graphs, dataflow patterns and BYOC partitioning, with TVM's Python vocabulary.

    import carve
    mod = carve.load("model.relay")                  # or carve.parse(text)
    mod = carve.partition_for(mod, "dnnl")
    print(mod.astext(show_meta_data=False))
    outs = carve.run(mod, {"data": x})               # list of numpy arrays

TVM code ports by changing its imports:  import carve as tvm;  from carve import relay
"""

import os as _os

# oneDNN's OpenMP (libgomp) reads its wait policy once, when the extension
# below loads it: its default spins at every barrier, which makes runs with
# threads > 1 many times slower whenever another process uses a core
# (tools/cli/openmp_wait_policy.h). The carve CLI chooses passive the same
# way; a policy the user set is kept.
_os.environ.setdefault("OMP_WAIT_POLICY", "passive")

from . import _carve  # noqa: E402
from ._carve import CarveError  # noqa: E402,F401
from ._carve import IRModule, load, parse, parse_expr  # noqa: F401
from ._carve import codegen, partition_for  # noqa: F401
from ._carve import run as _run  # noqa: E402
from .ndarray import wrap as _wrap  # noqa: E402
from . import ir  # noqa: F401
from . import transform  # noqa: F401
from . import dataflow_pattern  # noqa: F401
from . import patterns  # noqa: F401
from . import relay  # noqa: F401
from . import parser  # noqa: F401
from .compare import compare  # noqa: F401


def run(mod, inputs=None, params=None):
    return [_wrap(a) for a in _run(mod, inputs, params)]


run.__doc__ = _run.__doc__.split("\n", 1)[1].lstrip() + (
    "The arrays also have TVM NDArray's .numpy() (a writeable copy).")
_carve.Constant.data = property(lambda self, _data=_carve.Constant.data: _wrap(_data.fget(self)),
                                doc="The constant's value, read-only (.numpy() copies it, as in TVM).")

# TVM names a ported script reaches for first, with what carve has instead:
# carve partitions and runs modules on the host, it does not compile them.
_RUN_INSTEAD = ("run a module with carve.run(mod, {name: array}, params=...), which returns a "
                "list of numpy arrays (graph_executor's set_input, run and get_output in one call)")
_NOT_IN_CARVE = {
    "nd": "carve's tensors are numpy arrays: pass np.ndarray values to carve.run and params",
    "cpu": "carve runs on the host CPU and takes no device: " + _RUN_INSTEAD,
    "device": "carve runs on the host CPU and takes no device: " + _RUN_INSTEAD,
    "runtime": _RUN_INSTEAD,
    "contrib": _RUN_INSTEAD,
    "build": "carve does not compile modules: " + _RUN_INSTEAD,
    "target": "carve's targets are backend names: carve.partition_for(mod, \"dnnl\")",
}


def __getattr__(name):
    if name in _NOT_IN_CARVE:
        raise AttributeError("carve has no %r: %s" % (name, _NOT_IN_CARVE[name]))
    raise AttributeError("module 'carve' has no attribute %r" % name)

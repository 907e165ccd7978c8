"""carve: Relay graphs, dataflow patterns and BYOC partitioning, with TVM's Python vocabulary.

    import carve
    mod = carve.load("model.relay")                  # or carve.parse(text)
    mod = carve.partition_for(mod, "dnnl")
    print(mod.astext(show_meta_data=False))
    outs = carve.run(mod, {"data": x})               # list of numpy arrays

TVM code ports by changing its imports:  import carve as tvm;  from carve import relay
"""

from ._carve import CarveError  # noqa: F401
from ._carve import IRModule, load, parse, parse_expr  # noqa: F401
from ._carve import codegen, partition_for, run  # noqa: F401
from . import ir  # noqa: F401
from . import transform  # noqa: F401
from . import dataflow_pattern  # noqa: F401
from . import patterns  # noqa: F401
from . import relay  # noqa: F401
from . import parser  # noqa: F401
from .compare import compare  # noqa: F401

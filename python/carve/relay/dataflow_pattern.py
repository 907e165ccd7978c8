"""tvm.relay.dataflow_pattern's name for carve.dataflow_pattern."""

from ..dataflow_pattern import *  # noqa: F401,F403
from ..dataflow_pattern import DFPattern, Explanation, FunctionPattern  # noqa: F401

"""tvm.relay.transform's name for carve.transform."""

from ..transform import *  # noqa: F401,F403
from ..transform import __getattr__  # noqa: F401  (every registered pass)

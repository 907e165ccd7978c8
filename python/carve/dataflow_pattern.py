"""carve.dataflow_pattern: TVM's pattern language (tvm.relay.dataflow_pattern).

    pat = is_op("nn.relu")(is_op("nn.conv2d")(wildcard(), is_constant()))
    pat = pat.optional(lambda x: is_op("nn.bias_add")(x, wildcard()))
    pat.match(expr); pat.partition(expr); pat.why(expr)
"""

from ._carve import rewrite as _rewrite  # noqa: F401
from ._carve import (  # noqa: F401
    DFPattern,
    dominates,
    function_pattern as FunctionPattern,
    is_constant,
    is_expr,
    is_if,
    is_let,
    is_op,
    is_tuple,
    is_tuple_get_item,
    is_var,
    wildcard,
)


def has_attr(attrs, pattern=None):
    """`pattern` (default: any expression) whose attributes equal `attrs`."""
    return (pattern if pattern is not None else wildcard()).has_attr(attrs)


def has_type(ttype, pattern=None):
    return (pattern if pattern is not None else wildcard()).has_type(ttype)


def has_dtype(dtype, pattern=None):
    return (pattern if pattern is not None else wildcard()).has_dtype(dtype)


def has_shape(shape, pattern=None):
    """Dims are ints, None (any extent) or "?" (a dynamic dim)."""
    return (pattern if pattern is not None else wildcard()).has_shape(shape)


class Explanation:
    """Why a pattern does or does not match at a node (DFPattern.why)."""

    def __init__(self, verdict, matched, reason, path, text):
        self.verdict = verdict  # "matched", "no_match", "rejected" or "claimed"
        self.matched = matched
        self.reason = reason  # the first constraint that failed, in words
        self.path = path  # from the node to where it failed ("arg 0, arg 1")
        self.text = text

    def __bool__(self):
        return self.matched

    def __str__(self):
        return self.text

    def __repr__(self):
        return "Explanation(%r)" % self.text


class DFPatternCallback:
    """A rewrite for `rewrite`, as TVM's: set self.pattern, override callback.

        class FoldRelu(DFPatternCallback):
            def __init__(self):
                super().__init__()
                self.x = wildcard()
                self.pattern = is_op("nn.relu")(is_op("nn.relu")(self.x))

            def callback(self, pre, post, node_map):
                return relay.nn.relu(node_map[self.x][0])

    callback(pre, post, node_map) gets the matched root before and after its
    inputs were rewritten and node_map[p]: the (rewritten) expressions bound to
    pattern node p; it returns the replacement, or post for no change.
    require_type types the expression before each of this callback's passes;
    rewrite_once retires the callback after its first pass that changed the graph.
    """

    def __init__(self, require_type=False, rewrite_once=False):
        self.pattern = None
        self.require_type = require_type
        self.rewrite_once = rewrite_once

    def callback(self, pre, post, node_map):
        raise NotImplementedError("%s.callback is not defined" % type(self).__name__)

    def rewrite(self, expr):
        """rewrite(self, expr)."""
        return rewrite(self, expr)


def rewrite(callbacks, expr, mod=None):
    """TVM's rewrite: applies the callbacks to `expr` until nothing changes.

    callbacks: a DFPatternCallback or a list of them, applied in order each round,
    each to the matches of its pattern (consumers first, no overlaps, as TVM groups
    them). mod: the IRModule whose globals `expr` calls, for require_type. Raises
    CarveError when rewriting does not converge within carve's limits (100 rounds, or
    a graph grown to 16 times its size) instead of TVM's abort; a callback's own
    exception propagates.
    """
    if isinstance(callbacks, DFPatternCallback):
        callbacks = [callbacks]
    specs = []
    for cb in callbacks:
        if not isinstance(cb, DFPatternCallback):
            raise TypeError("rewrite takes DFPatternCallback objects, not %s" % type(cb).__name__)
        specs.append((cb.pattern, cb.callback, bool(cb.require_type), bool(cb.rewrite_once),
                      type(cb).__name__))
    return _rewrite(specs, expr, mod)

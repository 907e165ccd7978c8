"""carve.dataflow_pattern: TVM's pattern language (tvm.relay.dataflow_pattern).

    pat = is_op("nn.relu")(is_op("nn.conv2d")(wildcard(), is_constant()))
    pat = pat.optional(lambda x: is_op("nn.bias_add")(x, wildcard()))
    pat.match(expr); pat.partition(expr); pat.why(expr)
"""

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

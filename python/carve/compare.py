"""carve.compare: a module run as is and partitioned for backends, output by output."""

from ._carve import compare as _compare


class CompareReport:
    """What carve.compare found: the errors per output and per composite.

    ok                every error within tolerance (and, with require_offload=True,
                      something offloaded)
    within_tolerance  every error within tolerance
    offloaded         functions offloaded; 0 means both runs used the reference kernels
    outputs     [{"type", "max_abs", "max_rel", "within", "rtol", "atol", "rule", "scale",
                  "elements", "out_of_tolerance", "by_norm_rule", "nan_one_side",
                  "nonfinite_both", "max_magnitude", "exploded", "worst_index",
                  "worst_got", "worst_ref"}] in output order
    composites  the same with "name", "calls" and "worst_call" (0-based), by name
    note        set when the graph-normal form was compared instead (lets)
    partitioned the partitioned module that ran
    text        the report as `carve run --compare` prints it

    rule is "|a-b| <= atol + rtol*|b|" (numpy's allclose, every dtype) and, for floats,
    "or |a-b| <= rtol*max|b|" with scale = max|b|; by_norm_rule counts the elements that
    passed only by the second. worst_index is a tuple (one coordinate per dimension), None
    when every element is equal. exploded: a value beyond 1e6, or inf/NaN on both sides.
    A NaN on one side only is out of tolerance (nan_one_side counts them).
    """

    def __init__(self, ok, within_tolerance, backends, offloaded, outputs, composites, note,
                 partitioned, text):
        self.ok = ok
        self.within_tolerance = within_tolerance
        self.backends = backends
        self.offloaded = offloaded
        self.outputs = outputs
        self.composites = composites
        self.note = note
        self.partitioned = partitioned
        self.text = text

    @property
    def nothing_offloaded(self):
        return self.offloaded == 0

    @property
    def warnings(self):
        """Names ("out0", composite names) whose magnitudes exploded."""
        return (["out%d" % i for i, o in enumerate(self.outputs) if o["exploded"]] +
                [c["name"] for c in self.composites if c["exploded"]])

    def __bool__(self):
        return self.ok

    def __str__(self):
        return self.text

    def __repr__(self):
        return "CompareReport(ok=%r, offloaded=%r, backends=%r)" % (self.ok, self.offloaded, self.backends)


def compare(mod, backend, inputs=None, params=None, rtol=None, atol=None, require_offload=False):
    """Runs `mod` on the reference kernels and partitioned for `backend` (a name or a list)
    on its runtime, with `inputs` and `params` ({name: array}, together one per parameter of
    @main; params are bound as constants before partitioning, as partition_for does).
    With require_offload=True, a module of which nothing was offloaded is not ok."""
    return _compare(mod, backend, inputs, params, rtol, atol, require_offload)

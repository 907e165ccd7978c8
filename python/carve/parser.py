"""tvm.parser's names: parse (typed module), fromtext, parse_expr."""

from ._carve import parse, parse_expr  # noqa: F401

fromtext = parse

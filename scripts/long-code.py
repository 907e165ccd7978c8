#!/usr/bin/env python3
"""Lists carve's long files and long functions (issue 20: files under about
600 lines, functions under about 60 except flat dispatch switches).

  scripts/long-code.py [--file-limit 600] [--function-limit 60] [DIR ...]

Prints one line per file over the file limit (`FILE: N lines`) and per
function over the function limit (`FILE:LINE: N lines: NAME`), longest
first; a function whose lines are mostly `case` labels is marked
`(switch)`, since a flat dispatch switch is allowed to be long. Not a CI
check: a report for whoever splits code. The function finder is a brace
matcher, not a C++ parser: a function is a `{ ... }` block whose header
has a `)` and that is not inside another function (lambdas and local
classes count toward the function that holds them).
"""
import argparse
import os
import re
import sys

DEFAULT_DIRS = ["support", "ir", "grammar", "patterns", "passes", "interpreter",
                "backends", "frontend", "tools", "python/src"]
SCOPE_RE = re.compile(r"\b(namespace|class|struct|union|enum)\b[^()]*$|extern\s+\"C\"\s*$")


def strip_code(text):
    """Blanks comments, string and char literals, keeping newlines."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            end = text.find(")" + m.group(1) + '"', i)
            end = n if end < 0 else end + len(m.group(1)) + 2
            out.append('""' + "\n" * text.count("\n", i, end))
            i = end
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def functions(path):
    """Yields (start_line, length, header) for each function definition."""
    with open(path, encoding="utf-8", errors="replace") as f:
        code = strip_code(f.read())
    stack = []  # "scope" (namespace, class), "other", or ("fn", line, header)
    header_start = 0  # where the text before the next `{` begins
    line = 1
    for i, c in enumerate(code):
        if c == "\n":
            line += 1
        elif c == "{":
            header = code[header_start:i].strip()
            if any(isinstance(s, tuple) for s in stack):
                stack.append("other")  # a block, lambda or local class
            elif SCOPE_RE.search(header):
                stack.append("scope")
            elif ")" in header:
                stack.append(("fn", line, header))
            else:
                stack.append("other")  # an initializer list
            header_start = i + 1
        elif c == "}":
            top = stack.pop() if stack else "other"
            if isinstance(top, tuple):
                yield top[1], line - top[1] + 1, top[2]
            header_start = i + 1
        elif c == ";":
            header_start = i + 1


def name_of(header):
    header = " ".join(header.split())
    m = re.search(r"([~\w:<>]+(?:operator\s*\S+?)?)\s*\((?!.*\bnoexcept\b\s*\()", header)
    return m.group(1) if m else header[:60]


def case_share(lines, start, length):
    body = lines[start - 1:start - 1 + length]
    cases = sum(1 for l in body if re.match(r"\s*(case\b.*:|default:)", l))
    return cases / max(1, length)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--file-limit", type=int, default=600)
    ap.add_argument("--function-limit", type=int, default=60)
    ap.add_argument("dirs", nargs="*", default=DEFAULT_DIRS)
    args = ap.parse_args()
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    os.chdir(root)
    files = []
    for d in args.dirs:
        for dirpath, _, names in os.walk(d):
            files += [os.path.join(dirpath, n) for n in names
                      if n.endswith((".cc", ".h", ".inc", ".def"))]
    long_files, long_fns = [], []
    for path in sorted(files):
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().split("\n")
        count = len(lines) - (1 if lines and lines[-1] == "" else 0)
        if count > args.file_limit:
            long_files.append((count, path))
        if not path.endswith((".cc", ".h")):
            continue
        for start, length, header in functions(path):
            if length > args.function_limit:
                mark = " (switch)" if case_share(lines, start, length) > 0.2 else ""
                long_fns.append((length, path, start, name_of(header), mark))
    for count, path in sorted(long_files, key=lambda t: (-t[0], t[1])):
        print(f"{path}: {count} lines")
    for length, path, start, name, mark in sorted(long_fns, key=lambda t: (-t[0], t[1], t[2])):
        print(f"{path}:{start}: {length} lines: {name}{mark}")
    print(f"{len(long_files)} files over {args.file_limit} lines, "
          f"{len(long_fns)} functions over {args.function_limit} lines", file=sys.stderr)


if __name__ == "__main__":
    main()

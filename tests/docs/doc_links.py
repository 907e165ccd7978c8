#!/usr/bin/env python3
"""Checks that the references of README.md, DEVELOPERS.md and docs/*.md resolve.

Two kinds of reference are checked, relative to the repository root:
  - Markdown links and images, [text](target) and [label]: target, to a file
    (relative to the page) and, with #anchor, to a heading of that page;
  - file paths written in the text, as the README names them
    ("docs/why.md", `tools/cli/cmd_reduce.cc`, ../shared/spec/cli.md): any
    word that starts with a top-level folder of the repository (or
    ../shared/) and names no placeholder (<name>, *, ...).
Prints one line per broken reference and exits 1 when there is any.
  tests/docs/doc_links.py [REPO_ROOT]
"""
import os
import re
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                       os.path.join(os.path.dirname(__file__), "..", ".."))

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
REF_DEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s+(\S+)", re.M)
# A path word: letters, digits and ._-/ ; ends before punctuation.
PATH_WORD = re.compile(r"(?<![\w./-])((?:\.\./shared/|[a-z_]+/)[\w./-]*[\w/])")
FENCE = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)
CODE_SPAN = re.compile(r"`[^`]*`")
# TVM's tree, which the docs cite as the reference: not carve's files.
TVM_PATHS = ("python/tvm/", "tests/python/")


def anchors(path):
    """GitHub's anchors of the headings of the Markdown file at `path`."""
    out = set()
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
            if not m:
                continue
            text = re.sub(r"[`*_]|\[([^\]]*)\]\([^)]*\)", r"\1", m.group(1)).lower()
            slug = re.sub(r"[^\w\- ]", "", text).replace(" ", "-")
            out.add(slug)
    return out


def check_link(page, target):
    if re.match(r"[a-z][a-z0-9+.-]*:", target) or target.startswith("//"):
        return None  # http:, https:, mailto:: not checked offline
    path, _, anchor = target.partition("#")
    resolved = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
    if not os.path.exists(resolved):
        return f"link to missing file '{target}'"
    if anchor and resolved.endswith(".md") and anchor not in anchors(resolved):
        return f"link to missing heading '{target}'"
    return None


def is_placeholder(word):
    """`backends/<name>/`, `fuzz/corpus/TARGET/`, `backends/mybackend/`: the
    docs' stand-ins for a name the reader picks."""
    if any(c in word for c in "<>*{}$%"):
        return True
    return any(re.fullmatch(r"[A-Z][A-Z_]+|my[\w.-]*", part) for part in word.split("/"))


def check_path_word(word, top_folders):
    if is_placeholder(word) or word.startswith(TVM_PATHS):
        return None
    first = word.split("/", 1)[0]
    if word.startswith("../shared/"):
        if not os.path.isdir(os.path.join(ROOT, "..", "shared")):
            return None  # a checkout without the shared folder beside it
    elif first not in top_folders or "/" not in word:
        return None
    path = os.path.normpath(os.path.join(ROOT, word))
    if os.path.exists(path):
        return None
    # A folder mentioned with a file-name stem ("tests/golden/why" for its
    # .test files) is not a path; only words that look like one are checked.
    if not re.search(r"\.\w+$|/$", word):
        return None
    return f"names missing file '{word}'"


def main():
    pages = [os.path.join(ROOT, "README.md"), os.path.join(ROOT, "DEVELOPERS.md")]
    docs = os.path.join(ROOT, "docs")
    pages += sorted(os.path.join(docs, f) for f in os.listdir(docs) if f.endswith(".md"))
    top_folders = {d for d in os.listdir(ROOT) if os.path.isdir(os.path.join(ROOT, d))
                   and not d.startswith(".") and not d.startswith("build")}
    broken = 0
    for page in pages:
        with open(page, encoding="utf-8") as f:
            text = f.read()
        rel = os.path.relpath(page, ROOT)
        for lineno, line in enumerate(text.splitlines(), 1):
            outside_code = CODE_SPAN.sub("", line)
            for target in LINK.findall(outside_code) + REF_DEF.findall(outside_code):
                problem = check_link(page, target)
                if problem:
                    print(f"{rel}:{lineno}: {problem}")
                    broken += 1
        # Paths in running text and code spans; fenced blocks hold commands
        # whose words are outputs and options as often as files.
        prose = FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), text)
        for lineno, line in enumerate(prose.splitlines(), 1):
            for word in PATH_WORD.findall(line):
                problem = check_path_word(word.rstrip("."), top_folders)
                if problem:
                    print(f"{rel}:{lineno}: {problem}")
                    broken += 1
    print(f"{len(pages)} pages, {broken} broken reference{'s' if broken != 1 else ''}")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Regenerates the pictures of docs/visualize.md by the commands shown there.

Runs every fenced ``` block of the page that writes under docs/images/,
exactly as written, from the repository root, with `carve` standing for the
binary under test (CARVE, default build/tools/carve) and `chromium` for
headless Chromium. Files the blocks write elsewhere (the imported .relay,
the .html pages) are removed afterwards. It also checks that the terminal
example (a block starting with `$ carve`) prints what the page shows.

    python3 scripts/viz-pictures.py [--check-only]

--check-only runs nothing that writes docs/images/; it only checks the
terminal example. Needs Chromium for the screenshots (Debian `chromium`);
about 30 s. Not part of CI: look at the pictures before committing them.
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAGE = os.path.join(ROOT, "docs", "visualize.md")


def blocks(text):
    """The fenced code blocks of `text`, each as a string."""
    return re.findall(r"^```[a-z]*\n(.*?)^```", text, flags=re.S | re.M)


def run_block(block, carve):
    # `carve` in the page is the binary under test; the block runs as is.
    script = f'carve() {{ "{carve}" "$@"; }}\nset -e\n{block}'
    print(block.rstrip(), flush=True)
    subprocess.run(["bash", "-c", script], cwd=ROOT, check=True)


def check_term_example(block, carve):
    lines = block.rstrip("\n").split("\n")
    command = lines[0][2:]
    shown = [l for l in lines[1:] if l != "..."]
    script = f'carve() {{ "{carve}" "$@"; }}\n{command}'
    out = subprocess.run(["bash", "-c", script], cwd=ROOT, check=True, capture_output=True,
                         text=True).stdout.split("\n")
    if out[: len(shown)] != shown:
        sys.exit(f"docs/visualize.md: `{command}` prints\n" + "\n".join(out[: len(shown)]) +
                 "\nbut the page shows\n" + "\n".join(shown))
    print(f"ok: {command}")


def main():
    carve = os.path.abspath(os.environ.get("CARVE", os.path.join(ROOT, "build/tools/carve")))
    check_only = "--check-only" in sys.argv[1:]
    before = set(os.listdir(ROOT))
    try:
        for block in blocks(open(PAGE).read()):
            if block.startswith("$ carve"):
                check_term_example(block, carve)
            elif "docs/images/" in block and not check_only:
                run_block(block, carve)
    finally:
        # Intermediate files the blocks wrote to the repository root.
        for name in sorted(set(os.listdir(ROOT)) - before):
            path = os.path.join(ROOT, name)
            if os.path.isfile(path):
                os.remove(path)


if __name__ == "__main__":
    main()

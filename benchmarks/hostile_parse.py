"""Extraction time on hostile inputs: deeply nested calls and long method chains.

Each case parses one generated file with the real extractor of its language in a child
process (killed at --timeout seconds, reported as "> timeout"). Run it with the
PYTHONPATH of the version to measure, e.g. before and after a change:

    PYTHONPATH=/path/to/checkout python benchmarks/hostile_parse.py [--timeout 60]
"""

from __future__ import annotations

import argparse
import subprocess
import sys

TEMPLATES = {
    "py": "def g(x):\n    return {}\n",
    "java": "class A {{ int g(B x) {{ return {}; }} }}\n",
    "kt": "fun g(x: B): Int {{ return {} }}\n",
    "ts": "function g(x) {{ return {}; }}\n",
    "js": "function g(x) {{ return {}; }}\n",
    "go": "package m\nfunc g(x B) int {{ return {} }}\n",
    "rs": "fn g(x: B) -> i32 {{ {} }}\n",
    "php": "<?php\nfunction g(B $x) {{ return {}; }}\n",
    "rb": "def g(x)\n  {}\nend\n",
    "swift": "func g(x: B) -> Int {{ return {} }}\n",
    "scala": "object A {{ def g(x: B): Int = {} }}\n",
}
# (kind, n): "nest" one call nested n deep, "chain" one n-long method chain, "nests" as
# many functions holding a 95-deep nest as fit in n bytes.
CASES = [("nest", 500), ("nest", 1000), ("nest", 50_000), ("chain", 1000),
         ("nests", 100_000)]

CHILD = r"""
import sys, time
from graphrag.parsing.extract import parse_file
from graphrag.parsing.registry import RepoContext
kind, n, ext, template = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
if kind == "nests":
    nest = "f(" * 95 + "1" + ")" * 95
    one = template.replace("g(", "g{i}(").replace("class A", "class A{i}")
    head = {"go": "package m\n", "php": "<?php\n"}.get(ext, "")
    one = one[len(head):] if one.startswith(head) else one
    parts = [head] if head else []
    while sum(map(len, parts)) < n:
        parts.append(one.replace("{}", nest).replace("{{", "{").replace("}}", "}")
                     .replace("{i}", str(len(parts))).replace("package m\n", ""))
    source = "".join(parts).encode()
else:
    body = "f(" * n + "1" + ")" * n if kind == "nest" else "x" + ".m()" * n
    source = template.format(body).encode()
t = time.perf_counter()
result = parse_file(source, "m/a." + ext, RepoContext({"go": {"": "ex.com/m"}}))
print(f"{time.perf_counter() - t:.2f}s calls={len(result.calls)}")
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--timeout", type=float, default=60)
    args = ap.parse_args()
    print(f"{'case':<14}" + "".join(f"{ext:>22}" for ext in TEMPLATES))
    for kind, n in CASES:
        cells = []
        for ext, template in TEMPLATES.items():
            try:
                out = subprocess.run(
                    [sys.executable, "-c", CHILD, kind, str(n), ext, template],
                    capture_output=True, text=True, timeout=args.timeout)
                lines = out.stdout.strip().splitlines() or [
                    (out.stderr.strip().splitlines() or ["?"])[-1][:20]]
                cells.append(lines[-1])
            except subprocess.TimeoutExpired:
                cells.append(f"> {args.timeout:g}s")
        print(f"{kind + ' ' + str(n):<14}" + "".join(f"{c:>22}" for c in cells), flush=True)


if __name__ == "__main__":
    main()

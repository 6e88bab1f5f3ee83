"""HTTP links between services on public multi-service repositories, against a
hand-checked list (``benchmarks/links_expected.json``), and what linking costs.

Each service folder of a repository is indexed (graph only) as its own application, the
repository's applications form one group, and the links found are compared with the
hand-checked ones: precision and recall per repository and in total (targets: P >= 0.95,
R >= 0.80). Then the cost: the share of the full index spent linking (target <= 5 %) and
the time of re-linking after a one-line edit of a file that sends requests (target
<= 0.2 s).

    python benchmarks/links.py --checkout piggymetrics=/path/to/piggymetrics \\
        --checkout petclinic=/path/to/spring-petclinic-microservices \\
        --checkout robot-shop=/path/to/robot-shop [--show]

Each checkout must be the commit the expected file names (printed with the results;
``git -C PATH checkout COMMIT``); a checkout with a ``.git`` at another commit is refused.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from _common import ROOT, bench_engine, drop_app

EXPECTED = ROOT / "benchmarks" / "links_expected.json"


def _head(path: Path) -> str | None:
    if not (path / ".git").exists():
        return None
    out = subprocess.run(["git", "-C", str(path), "rev-parse", "HEAD"], capture_output=True,
                         text=True, check=False)
    return out.stdout.strip() or None


def extraction_seconds(root: Path) -> float:
    """Time spent finding the HTTP call sites of every code file under ``root`` (part of
    the parse step, measured apart from the rest of the parse). The first call in a
    process also pays for imports and compiled queries (once per parse worker)."""
    from graphrag.graph.scan import scan_repository
    from graphrag.parsing import registry
    from graphrag.parsing.extract import repo_context
    from graphrag.parsing.http.sites import http_calls

    files = [f for f in scan_repository(root) if f.lang and f.problem is None]
    ctx = repo_context(root, [f.rel_path for f in files])
    spent = 0.0
    for f in files:
        source = Path(f.full_path).read_bytes()
        result = registry.extractor(f.lang)(source, f.rel_path, ctx)
        start = time.perf_counter()
        http_calls(source, result)
        spent += time.perf_counter() - start
    return spent


def run_repo(engine, name: str, spec: dict, checkout: Path, show: bool) -> dict:
    from graphrag.config import load_settings
    from graphrag.errors import NotFound
    from graphrag.graph.index import index_graph
    from graphrag.graph.service_links import add_to_group, drop_group, links_report

    settings = load_settings().with_overrides(workers=1)
    prefix = f"bench-links-{name}"
    apps = {folder: f"{prefix}-{folder}" for folder in spec["apps"]}
    for app in apps.values():
        drop_app(engine, app)
    total = link = extract = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for folder, app in apps.items():
            shutil.copytree(checkout / folder, Path(tmp) / folder, symlinks=True)
            stats = index_graph(engine, settings, Path(tmp) / folder, app)
            total += stats.seconds
            extraction_seconds(Path(tmp) / folder)  # imports, grammars, queries: once
            link += stats.timings.get("link", 0.0)
            extract += extraction_seconds(Path(tmp) / folder)
        with contextlib.suppress(NotFound):  # left by an interrupted run
            drop_group(engine, prefix)
        add_to_group(engine, prefix, list(apps.values()))
        report = links_report(engine, group=prefix)
        back = {v: k for k, v in apps.items()}
        found = {(back[r["caller_app"]], r["caller"], r["method"], back[r["endpoint_app"]],
                  r["endpoint"]) for r in report["links"]}
        expected = {tuple(x) for x in spec["links"]}
        hits = len(found & expected)
        # re-linking after a one-line edit of a file that sends requests
        edit = spec["edit"]
        target = Path(tmp) / edit["app"] / edit["file"]
        target.write_text(target.read_text() + edit["line"] + "\n")
        relink = index_graph(engine, settings, Path(tmp) / edit["app"], apps[edit["app"]])
    if show:
        for row in sorted(found):
            print(("  ok   " if row in expected else "  EXTRA ") + " ".join(map(str, row)))
        for row in sorted(expected - found):
            print("  MISSED " + " ".join(map(str, row)))
        for r in report["unmatched"]:
            print(f"  unmatched {back[r['caller_app']]} {r['caller']} {r['method']} {r['url']}")
    drop_group(engine, prefix)
    for app in apps.values():
        drop_app(engine, app)
    return {"links": sorted(found), "found": len(found), "expected": len(expected),
            "hits": hits,
            "sites": len(report["links"]) + len(report["unmatched"]),
            "index_s": total, "link_s": link + extract, "extract_s": extract,
            "relink_s": relink.timings.get("link", 0.0),
            "reindex_s": relink.seconds}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--checkout", action="append", default=[], metavar="NAME=PATH",
                    help="A checkout of a repository named in links_expected.json.")
    ap.add_argument("--show", action="store_true", help="Print every link and miss.")
    args = ap.parse_args()
    specs = json.loads(EXPECTED.read_text())
    engine = bench_engine()
    hits = found = expected = 0
    index_s = link_s = 0.0
    for item in args.checkout:
        name, _, path = item.partition("=")
        if name not in specs:
            raise SystemExit(f"unknown repository {name!r} (known: {', '.join(specs)})")
        spec, checkout = specs[name], Path(path).expanduser()
        head = _head(checkout)
        if head is not None and head != spec["commit"]:
            raise SystemExit(f"{name}: checkout is at {head}, expected {spec['commit']}")
        print(f"{name}: {spec['repository']} @ {spec['commit']}")
        res = run_repo(engine, name, spec, checkout, args.show)
        p = res["hits"] / res["found"] if res["found"] else 1.0
        r = res["hits"] / res["expected"] if res["expected"] else 1.0
        print(f"  sites {res['sites']}  links found {res['found']}  expected"
              f" {res['expected']}  precision {p:.3f}  recall {r:.3f}")
        print(f"  full index {res['index_s']:.2f} s, of which sites and links"
              f" {res['link_s']:.3f} s"
              f" ({100 * res['link_s'] / res['index_s']:.1f} %; finding sites"
              f" {res['extract_s']:.3f} s);"
              f" one-file edit: re-index {res['reindex_s']:.3f} s, re-link"
              f" {res['relink_s']:.3f} s")
        hits, found, expected = hits + res["hits"], found + res["found"], \
            expected + res["expected"]
        index_s, link_s = index_s + res["index_s"], link_s + res["link_s"]
    if found or expected:
        print(f"total: precision {hits / found if found else 1:.3f}"
              f"  recall {hits / expected if expected else 1:.3f}"
              f"  linking share of full index {100 * link_s / index_s:.1f} %")


if __name__ == "__main__":
    os.environ.setdefault("GRAPHRAG_WORKERS", "1")
    start = time.perf_counter()
    main()
    print(f"({time.perf_counter() - start:.0f} s)")

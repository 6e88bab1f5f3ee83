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
from collections.abc import Iterator
from pathlib import Path

from _common import ROOT, CpuClock, bench_engine, drop_app

EXPECTED = ROOT / "benchmarks" / "links_expected.json"


def _head(path: Path) -> str | None:
    if not (path / ".git").exists():
        return None
    out = subprocess.run(["git", "-C", str(path), "rev-parse", "HEAD"], capture_output=True,
                         text=True, check=False)
    return out.stdout.strip() or None


@contextlib.contextmanager
def _without_links() -> Iterator[None]:
    """Index as before this feature: no call sites found, no linking step."""
    import graphrag.graph.index as index_module
    import graphrag.parsing.extract as extract_module

    saved = (extract_module.http_calls, index_module.link_run, index_module.endpoints_before)
    extract_module.http_calls = lambda source, result: []
    index_module.link_run = lambda *args, **kwargs: None
    index_module.endpoints_before = lambda *args, **kwargs: []
    try:
        yield
    finally:
        (extract_module.http_calls, index_module.link_run,
         index_module.endpoints_before) = saved


def _index_all(engine, apps: dict[str, str], root: Path, linking: bool) -> float:
    """CPU seconds (this process, its parse workers and the database server) of a full
    index of every application; parse workers are forked, so they see the switch."""
    from graphrag.config import load_settings
    from graphrag.graph.index import index_graph

    settings = load_settings().with_overrides(workers=1)
    for app in apps.values():
        drop_app(engine, app)
    with contextlib.ExitStack() as stack:
        if not linking:
            stack.enter_context(_without_links())
        with CpuClock(engine) as clock:
            for folder, app in apps.items():
                index_graph(engine, settings, root / folder, app, full=True)
    return clock.cpu + (clock.db or 0.0)


def run_repo(engine, name: str, spec: dict, checkout: Path, show: bool,
             rounds: int) -> dict:
    from graphrag.config import load_settings
    from graphrag.db.context import resolve_scope
    from graphrag.errors import NotFound
    from graphrag.graph.index import index_graph
    from graphrag.graph.service_links import add_to_group, drop_group, links_report

    settings = load_settings().with_overrides(workers=1)
    prefix = f"bench-links-{name}"
    apps = {folder: f"{prefix}-{folder}" for folder in spec["apps"]}
    with tempfile.TemporaryDirectory() as tmp:
        for folder in apps:
            shutil.copytree(checkout / folder, Path(tmp) / folder, symlinks=True)
        # cost: the best of alternating rounds without and with linking (CPU, not wall
        # time: the machine's other load does not count)
        without = min(_index_all(engine, apps, Path(tmp), False) for _ in range(rounds))
        with_links = min(_index_all(engine, apps, Path(tmp), True) for _ in range(rounds))
        with contextlib.suppress(NotFound):  # left by an interrupted run
            drop_group(engine, prefix)
        add_to_group(resolve_scope(engine, settings, list(apps.values())), prefix)
        report = links_report(resolve_scope(engine, settings, group=prefix))
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
            print(("  ok     " if row in expected else "  EXTRA  ") + " ".join(map(str, row)))
        for row in sorted(expected - found):
            print("  MISSED " + " ".join(map(str, row)))
        for r in report["unmatched"]:
            print(f"  unmatched {back[r['caller_app']]} {r['caller']} {r['method']} {r['url']}")
    drop_group(engine, prefix)
    for app in apps.values():
        drop_app(engine, app)
    return {"links": sorted(found), "found": len(found), "expected": len(expected),
            "hits": hits, "sites": len(report["links"]) + len(report["unmatched"]),
            "without_s": without, "with_s": with_links,
            "relink_s": relink.timings.get("link", 0.0), "reindex_s": relink.seconds}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--checkout", action="append", default=[], metavar="NAME=PATH",
                    help="A checkout of a repository named in links_expected.json.")
    ap.add_argument("--show", action="store_true", help="Print every link and miss.")
    ap.add_argument("--cost", action="append", default=[], metavar="PATH",
                    help="Also measure the cost alone on this folder, indexed as one"
                         " application (a larger repository than the services').")
    ap.add_argument("--rounds", type=int, default=2,
                    help="Full indexes with and without linking (the best of each counts).")
    args = ap.parse_args()
    specs = json.loads(EXPECTED.read_text())
    engine = bench_engine()
    hits = found = expected = 0
    without_s = with_s = 0.0
    for item in args.checkout:
        name, _, path = item.partition("=")
        if name not in specs:
            raise SystemExit(f"unknown repository {name!r} (known: {', '.join(specs)})")
        spec, checkout = specs[name], Path(path).expanduser()
        head = _head(checkout)
        if head is not None and head != spec["commit"]:
            raise SystemExit(f"{name}: checkout is at {head}, expected {spec['commit']}")
        print(f"{name}: {spec['repository']} @ {spec['commit']}")
        res = run_repo(engine, name, spec, checkout, args.show, args.rounds)
        p = res["hits"] / res["found"] if res["found"] else 1.0
        r = res["hits"] / res["expected"] if res["expected"] else 1.0
        print(f"  sites {res['sites']}  links found {res['found']}  expected"
              f" {res['expected']}  precision {p:.3f}  recall {r:.3f}")
        print(f"  full index CPU (own + workers + database): without links"
              f" {res['without_s']:.2f} s, with {res['with_s']:.2f} s"
              f" ({100 * (res['with_s'] / res['without_s'] - 1):+.1f} %);"
              f" one-file edit: re-index {res['reindex_s']:.3f} s, re-link"
              f" {res['relink_s']:.3f} s")
        hits, found, expected = hits + res["hits"], found + res["found"], \
            expected + res["expected"]
        without_s, with_s = without_s + res["without_s"], with_s + res["with_s"]
    for path in args.cost:
        root = Path(path).expanduser().resolve()
        apps = {root.name: f"bench-links-cost-{root.name}"}
        without = min(_index_all(engine, apps, root.parent, False) for _ in range(args.rounds))
        with_links = min(_index_all(engine, apps, root.parent, True)
                         for _ in range(args.rounds))
        drop_app(engine, apps[root.name])
        print(f"{root.name} ({_head(root) or 'no git'}): full index CPU without links"
              f" {without:.2f} s, with {with_links:.2f} s"
              f" ({100 * (with_links / without - 1):+.1f} %)")
    if found or expected:
        print(f"total: precision {hits / found if found else 1:.3f}"
              f"  recall {hits / expected if expected else 1:.3f}"
              f"  full index CPU with links {100 * (with_s / without_s - 1):+.1f} %")


if __name__ == "__main__":
    os.environ.setdefault("GRAPHRAG_WORKERS", "1")
    start = time.perf_counter()
    main()
    print(f"({time.perf_counter() - start:.0f} s)")

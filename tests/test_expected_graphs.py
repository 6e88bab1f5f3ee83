"""Resolver + extractors against the hand-written expected_graph.json of each sample
repository: calls, extends, implements and endpoints must match exactly."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from graphrag.graph.model import Graph
from graphrag.graph.resolve import build_graph
from graphrag.parsing.extract import parse_file, repo_context

SAMPLES = Path(__file__).resolve().parent.parent / "sample_repos"
SKIP_DIRS = {"node_modules", ".git", "vendor", "build", "dist", "target", "__pycache__",
             ".venv", "venv", ".gradle", ".idea"}
REPOS = sorted(p.parent for p in SAMPLES.glob("*/expected_graph.json"))


def walk(root: Path) -> list[str]:
    """Repo-relative paths of all files, skipping dependency and build folders."""
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        for name in sorted(filenames):
            out.append((Path(dirpath) / name).relative_to(root).as_posix())
    return out


def graph_of(root: Path) -> Graph:
    paths = walk(root)
    ctx = repo_context(root, paths)
    results = []
    for rel in paths:
        parsed = parse_file((root / rel).read_bytes(), rel, ctx)
        if parsed is not None:
            results.append(parsed)
    return build_graph(results)


def actual_sets(graph: Graph) -> dict[str, set[tuple]]:
    nodes = graph.node_by_key()
    out: dict[str, set[tuple]] = {"calls": set(), "extends": set(), "implements": set()}
    names = {"CALLS": "calls", "EXTENDS": "extends", "IMPLEMENTS": "implements"}
    for edge in graph.edges:
        if edge.kind in names:
            out[names[edge.kind]].add((nodes[edge.src_key].fqn, nodes[edge.dst_key].fqn))
    out["endpoints"] = {(n.fqn, n.meta.get("http_method"), n.meta.get("route"))
                        for n in graph.nodes if n.kind == "ENDPOINT"}
    return out


def http_sites(root: Path) -> set[tuple]:
    """(caller, method, path template) of every HTTP call site of a sample."""
    paths = walk(root)
    ctx = repo_context(root, paths)
    out = set()
    for rel in paths:
        parsed = parse_file((root / rel).read_bytes(), rel, ctx)
        for site in parsed.http_calls if parsed is not None else ():
            out.add((site.caller, site.method, site.path))
    return out


def expected_sets(data: dict) -> dict[str, set[tuple]]:
    out = {key: {tuple(pair) for pair in data.get(key, [])}
           for key in ("calls", "extends", "implements")}
    out["endpoints"] = {(e["fqn"], e["http_method"], e["route"])
                        for e in data.get("endpoints", [])}
    out["http_calls"] = {tuple(site) for site in data.get("http_calls", [])}
    return out


def score(actual: set, expected: set) -> tuple[float, float]:
    hits = len(actual & expected)
    precision = hits / len(actual) if actual else 1.0
    recall = hits / len(expected) if expected else 1.0
    return precision, recall


def report(repo: str, actual: dict[str, set], expected: dict[str, set]) -> list[str]:
    """Human-readable differences (empty when everything matches)."""
    lines = []
    for key in ("calls", "extends", "implements", "endpoints", "http_calls"):
        precision, recall = score(actual[key], expected[key])
        if precision == recall == 1.0:
            continue
        lines.append(f"{repo} {key}: precision={precision:.3f} recall={recall:.3f}")
        lines += [f"  unexpected {item}" for item in sorted(actual[key] - expected[key])]
        lines += [f"  missing    {item}" for item in sorted(expected[key] - actual[key])]
    return lines


@pytest.mark.skipif(not REPOS, reason="no sample_repos/*/expected_graph.json yet")
@pytest.mark.parametrize("root", REPOS, ids=[p.name for p in REPOS])
def test_expected_graph(root: Path) -> None:
    expected = expected_sets(json.loads((root / "expected_graph.json").read_text()))
    actual = actual_sets(graph_of(root))
    actual["http_calls"] = http_sites(root)
    diffs = report(root.name, actual, expected)
    assert not diffs, "\n" + "\n".join(diffs)


@pytest.mark.parametrize(("repo", "src", "dst", "resolution"), [
    # a receiver typed by the declared return type of a call in the chain
    ("java_spring", "com.example.shop.service.ProductService.reprice",
     "com.example.shop.model.Product.changePrice", "return-type"),
    ("ts_express", "src/services/orderService:OrderService.recentForUser",
     "src/repositories/orderRepository:OrderRepository.findByUser", "return-type"),
    ("python_fastapi", "app.services.orders.OrderService.open_order_count",
     "app.repositories.orders.OrderRepository.open_orders", "return-type"),
    # a callback parameter typed by the callee's declared function type
    ("ts_express", "src/services/orderService:cancelPending",
     "src/services/orderService:OrderService.cancel", "callback-param"),
    # a receiver declared as one of several classes (`A | B`): an edge to each
    ("python_fastapi", "app.services.notifications.notify_all",
     "app.services.notifications.EmailNotifier.send", "union"),
    ("python_fastapi", "app.services.notifications.notify_all",
     "app.services.notifications.LogNotifier.send", "union"),
    # a Kotlin extension function on a repository class, and on an external one (String)
    ("kotlin_spring", "com.example.library.service.BookLinks.caption",
     "com.example.library.util.label", "extension"),
    ("kotlin_spring", "com.example.library.service.BookLinks.link",
     "com.example.library.util.slug", "extension"),
    # a C function of the linker's one namespace, defined in another file
    ("c_kvstore", "main", "kv_open", "global"),
    # a method a supertype declares, called on the caller's own instance or on another
    ("ts_express", "src/repositories/userRepository:UserRepository.findByEmail",
     "src/repositories/baseRepository:BaseRepository.findAll", "self-inherited"),
    ("ts_express", "src/services/userService:UserService.list",
     "src/repositories/baseRepository:BaseRepository.findAll", "inherited"),
    # overloads: the one the arguments select
    ("java_spring", "com.example.shop.util.PriceUtils.applyDiscount(long,int,int)",
     "com.example.shop.util.PriceUtils.roundCents(long,int)", "self"),
])
def test_resolution_kinds_have_sample_cases(repo: str, src: str, dst: str,
                                            resolution: str) -> None:
    """Every resolution kind has a case in a sample repository, with its own label and
    confidence (see graphrag.graph.edges.CONFIDENCE)."""
    from graphrag.graph.edges import CONFIDENCE

    graph = graph_of(SAMPLES / repo)
    nodes = graph.node_by_key()
    (edge,) = [e for e in graph.edges if e.kind == "CALLS" and nodes[e.src_key].fqn == src
               and nodes[e.dst_key].fqn == dst]
    assert (edge.resolution, edge.confidence) == (resolution, CONFIDENCE[resolution])

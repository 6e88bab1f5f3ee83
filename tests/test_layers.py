"""The import rules of the package, checked on its source so they stay true.

Data flows one way (files -> parsing -> graph -> documents -> chunking -> pipeline ->
retrieval) and a lower step never imports a higher one; ``indexing``/``ingesting``
compose the steps; ``jobs``, ``server`` and ``cli`` are shells over the services; click
(the command-line toolkit) appears only in ``cli/``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import graphrag

PACKAGE = Path(graphrag.__file__).parent

# Lowest first. A module may import from its own part and from any earlier layer.
LAYERS: list[set[str]] = [
    {"errors", "kinds", "progress"},
    {"plugins"},
    {"config"},
    {"db"},
    {"embedding", "parsing"},
    {"graph"},
    {"documents"},
    {"chunking"},
    {"pipeline"},
    {"retrieval"},
    {"ingesting"},
    {"indexing"},
    {"jobs"},
    {"server"},
    {"cli"},
    {"__main__"},
]
LEVEL = {part: n for n, layer in enumerate(LAYERS) for part in layer}
SHELLS = {"cli"}  # the only part that may use click


def _part(root: Path, path: Path) -> str:
    rel = path.relative_to(root)
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


def _imports(root: Path, path: Path) -> list[tuple[int, str]]:
    """(line, absolute module) of every import in a file; relative imports resolved."""
    rel = path.relative_to(root).with_suffix("")
    here = ["graphrag", *rel.parts[:-1]]
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            out.append((node.lineno, module))
    return out


def _sources(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.py") if "_migrations" not in p.parts)


def layer_violations(root: Path) -> list[str]:
    """Every import of a later step (or of an unknown part) in the package at ``root``."""
    wrong = []
    for path in _sources(root):
        part = _part(root, path)
        if part == "__init__":
            continue
        for line, module in _imports(root, path):
            names = module.split(".")
            if names[0] != "graphrag" or len(names) < 2 or names[1] == part:
                continue
            if LEVEL.get(names[1], len(LAYERS)) >= LEVEL.get(part, -1):
                wrong.append(f"{path.relative_to(root)}:{line} imports {module}")
    return wrong


def click_outside_cli(root: Path) -> list[str]:
    """Imports of click outside the command-line shell."""
    return [f"{path.relative_to(root)}:{line}"
            for path in _sources(root) if _part(root, path) not in SHELLS
            for line, module in _imports(root, path) if module.split(".")[0] == "click"]


def test_every_part_of_the_package_has_a_layer() -> None:
    parts = {_part(PACKAGE, p) for p in _sources(PACKAGE)} - {"__init__"}
    assert parts <= set(LEVEL), f"add {sorted(parts - set(LEVEL))} to LAYERS"


def test_no_step_imports_a_later_one() -> None:
    wrong = layer_violations(PACKAGE)
    assert not wrong, "\n".join(wrong)


def test_click_only_in_the_cli() -> None:
    wrong = click_outside_cli(PACKAGE)
    assert not wrong, "click outside cli/: " + ", ".join(wrong)


def test_the_checks_find_violations(tmp_path: Path) -> None:
    # The rules must be able to fail: a lower step importing a higher one (absolute and
    # relative), and click in a service, are found; allowed imports are not reported.
    root = tmp_path / "graphrag"
    (root / "parsing").mkdir(parents=True)
    (root / "retrieval").mkdir()
    (root / "parsing" / "probe.py").write_text(
        "from graphrag.retrieval import search\nfrom ..graph import x\nimport click\n"
        "from graphrag.errors import InvalidInput\nfrom . import model\n")
    (root / "retrieval" / "ok.py").write_text("from graphrag.parsing import probe\n")
    assert layer_violations(root) == ["parsing/probe.py:1 imports graphrag.retrieval",
                                      "parsing/probe.py:2 imports graphrag.graph"]
    assert click_outside_cli(root) == ["parsing/probe.py:3"]

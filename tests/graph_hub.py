"""A generated repository with one much-called function (the graph view's budget in
tests/test_web.py and benchmarks/web.py)."""

from __future__ import annotations

from pathlib import Path


def hub_repo(root: Path, callers: int) -> Path:
    """A package whose ``hub.core.hub`` is called by ``callers`` functions."""
    (root / "hub").mkdir()
    (root / "hub" / "__init__.py").write_text("")
    (root / "hub" / "core.py").write_text("def hub():\n    return 1\n")
    per_file = 100
    for f in range(0, callers, per_file):
        body = "".join(f"def caller_{i}():\n    return hub()\n\n\n"
                       for i in range(f, min(callers, f + per_file)))
        (root / "hub" / f"users_{f // per_file}.py").write_text(
            "from hub.core import hub\n\n\n" + body)
    return root

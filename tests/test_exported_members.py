"""The public API: every name in ``graphrag.__all__`` resolves and is documented."""

from __future__ import annotations

import inspect
import subprocess
import sys

import graphrag


def test_every_exported_name_resolves_with_a_docstring() -> None:
    for name in graphrag.__all__:
        value = getattr(graphrag, name)
        assert value is not None, name
        if inspect.isfunction(value) or inspect.isclass(value):
            assert (value.__doc__ or "").strip(), f"{name} has no docstring"


def test_import_is_cheap() -> None:
    """`import graphrag` must not pull in torch or networkx (CLI start-up time)."""
    code = ("import sys, graphrag; "
            "print(sorted(m for m in ('torch', 'networkx', 'numpy') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"

"""The parse pool's batches: a file past its budget inside a batch is recorded as timed
out, the other files of the batch are parsed, and outcomes keep the input order."""

from __future__ import annotations

from pathlib import Path

from graphrag.graph.parse_pool import _batches, parse_files
from graphrag.graph.parse_worker import ParseLimits
from graphrag.parsing.registry import RepoContext


def test_a_slow_file_times_out_inside_its_batch_and_the_batch_goes_on(tmp_path: Path
                                                                        ) -> None:
    names = [f"m{i:02d}.py" for i in range(12)]
    for i, name in enumerate(names):
        (tmp_path / name).write_text(f"def f{i}():\n    return g{i}()\n")
    # Parsing this takes seconds; the budget is a small fraction of that.
    slow = "m05.py"
    (tmp_path / slow).write_text("".join(
        f"def f{i}(x):\n    return g{i}(x).h(x)[x]\n" for i in range(10_000)))
    files = [(name, "python", (tmp_path / name).stat().st_size, None) for name in names]
    assert max(len(b) for b in _batches(files, 1)) > 1  # the slow file shares a batch
    outcomes = parse_files(tmp_path, files, RepoContext(), ParseLimits(4 * 1024 * 1024),
                           workers=1, timeout=0.3)
    assert [o.path for o in outcomes] == names
    for o in outcomes:
        if o.path == slow:
            assert o.status == "failed" and "timed out" in (o.error or "")
        else:
            assert o.status == "ok", (o.path, o.error)
            assert [s["name"] for s in o.parse_data["symbols"]] == [f"f{names.index(o.path)}"]


def test_batches_cover_every_file_once_in_order() -> None:
    files = [(f"f{i}", None, 0, None) for i in range(1000)]
    for workers in (1, 2, 8):
        batches = _batches(files, workers)
        assert [f for b in batches for f in b] == files
        assert max(map(len, batches)) <= 32 and len(batches) >= min(len(files), workers * 4)

"""The parse pool's batches: a file past its budget inside a batch is recorded as timed
out, the other files of the batch are parsed, and outcomes keep the input order."""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from pathlib import Path

import pytest

from graphrag.graph import parse_pool
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


def _few_files(tmp_path: Path, n: int = 3) -> list[tuple[str, str, int, None]]:
    names = [f"m{i}.py" for i in range(n)]
    for i, name in enumerate(names):
        (tmp_path / name).write_text(f"def f{i}():\n    return g{i}()\n")
    return [(name, "python", (tmp_path / name).stat().st_size, None) for name in names]


def _misbehaving(bad: str, how: str):
    """A parse that crashes the worker process or hangs where the timer cannot reach it
    (signals blocked: like time spent inside a grammar's C code) on ``bad``."""
    real = parse_pool.parse_one

    def parse(root, rel_path, *args):  # noqa: ANN001, ANN202
        if rel_path == bad:
            if how == "crash":
                os.kill(os.getpid(), signal.SIGKILL)  # a grammar crash, the OOM killer
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
            time.sleep(600)
        return real(root, rel_path, *args)
    return parse


@pytest.mark.parametrize("how", ["crash", "hang"])
def test_a_few_files_with_one_that_kills_or_hangs_its_worker(tmp_path: Path, monkeypatch,
                                                               how: str) -> None:
    """Few changed files (a small re-index) are as isolated as many: the file that kills
    its worker or hangs in C code is reported, the others are parsed, nothing hangs."""
    files = _few_files(tmp_path)
    # the workers are forked from this process: they run the patched parse
    monkeypatch.setattr(parse_pool, "parse_one", _misbehaving("m1.py", how))
    outcomes = parse_files(tmp_path, files, RepoContext(), ParseLimits(4 * 1024 * 1024),
                           workers=1, timeout=0.5)
    assert [o.path for o in outcomes] == ["m0.py", "m1.py", "m2.py"]
    assert [o.status for o in outcomes] == ["ok", "failed", "ok"]
    assert ("parser process died" if how == "crash" else "timed out") in outcomes[1].error
    assert outcomes[2].parse_data["symbols"][0]["name"] == "f2"


def test_the_workers_are_gone_after_the_parse(tmp_path: Path) -> None:
    """The pool is stopped in the background once every file is parsed: no worker
    process outlives it."""
    before = set(multiprocessing.active_children())
    outcomes = parse_files(tmp_path, _few_files(tmp_path), RepoContext(),
                           ParseLimits(4 * 1024 * 1024), workers=2, timeout=30)
    assert [o.status for o in outcomes] == ["ok"] * 3
    for thread in threading.enumerate():
        if thread.name == "parse-pool-join":
            thread.join()
    assert set(multiprocessing.active_children()) <= before


def test_parses_from_several_threads_one_after_another(tmp_path: Path) -> None:
    """Index runs of a long-lived process (server threads, workers) parse back to back
    and side by side: no pool forks its workers while another is forking or stopping
    (with filelock imported, a fork racing another thread's raises)."""
    files = _few_files(tmp_path)
    errors: list[BaseException] = []

    def run() -> None:
        try:
            for _ in range(5):
                outcomes = parse_files(tmp_path, files, RepoContext(),
                                       ParseLimits(4 * 1024 * 1024), workers=2, timeout=30)
                assert [o.status for o in outcomes] == ["ok"] * 3
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors

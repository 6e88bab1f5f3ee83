"""Helpers shared by the benchmark scripts (database, scratch applications)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from sqlalchemy import Engine, text

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


def bench_engine() -> Engine:
    """The configured database (GRAPHRAG_DATABASE_URL) or the embedded server."""
    from graphrag.config import load_settings
    from graphrag.db.engine import get_engine

    return get_engine(load_settings())


def drop_app(engine: Engine, name: str) -> None:
    with engine.begin() as conn:
        conn.execute(text("DELETE FROM applications WHERE name = :n"), {"n": name})


def _proc_cpu(pid: int, children: bool = False) -> float:
    """CPU seconds of process ``pid`` (with its reaped children when asked), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = int(fields[11]) + int(fields[12])  # utime, stime
    if children:
        ticks += int(fields[13]) + int(fields[14])  # cutime, cstime
    return ticks / os.sysconf("SC_CLK_TCK")


def server_cpu_seconds(engine: Engine) -> float | None:
    """CPU seconds used so far by the database server, when it runs on this machine and
    its data folder is known (the embedded server): the postmaster, its finished children
    and its live ones. None otherwise. On a shared machine CPU time, unlike wall time,
    does not grow with other users' load."""
    try:
        with engine.connect() as conn:
            data_dir = conn.execute(text("SHOW data_directory")).scalar()
        postmaster = int((Path(data_dir) / "postmaster.pid").read_text().split()[0])
        total = _proc_cpu(postmaster, children=True)
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    stat = (entry / "stat").read_text()
                except OSError:
                    continue
                if int(stat.rsplit(")", 1)[1].split()[1]) == postmaster:
                    total += _proc_cpu(int(entry.name))
        return total
    except (OSError, ValueError, IndexError):
        return None


def own_cpu_seconds() -> float:
    """CPU seconds of this process and its children (e.g. parser workers): the finished
    ones and those still alive (a pool may stop its workers after the call returned)."""
    import resource

    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    total = me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime
    pid = os.getpid()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    total += _proc_cpu(int(entry.name))
            except (OSError, ValueError, IndexError):
                continue
    return total


class CpuClock:
    """Wall, own and database CPU seconds of a block: ``with CpuClock(engine) as c: ...``
    then ``c.wall``, ``c.cpu`` (this process and its children), ``c.db`` (None when the
    server's CPU cannot be read)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.wall = self.cpu = 0.0
        self.db: float | None = None

    def __enter__(self) -> CpuClock:
        import time

        self._t = (time.perf_counter(), own_cpu_seconds(), server_cpu_seconds(self.engine))
        return self

    def __exit__(self, *exc: object) -> None:
        import time

        t0, c0, d0 = self._t
        self.wall = time.perf_counter() - t0
        self.cpu = own_cpu_seconds() - c0
        d1 = server_cpu_seconds(self.engine)
        self.db = d1 - d0 if d0 is not None and d1 is not None else None

    def __str__(self) -> str:
        db = f"{self.db:6.2f}" if self.db is not None else "   n/a"
        return f"wall {self.wall:6.2f} s  cpu {self.cpu:6.2f} s  db cpu {db} s"

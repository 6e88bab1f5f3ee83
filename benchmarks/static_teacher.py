"""Teacher pairs for the learned static backend: what the embed stage encoded for each
chunk of an index, with the transformer's vectors it stored.

For every application of a graphrag home whose chunks were embedded by the ONNX backend,
the chunk's body text and title text are rebuilt with the embed stage's own functions
(:func:`graphrag.pipeline.stages.embed.embed_input` / ``title_input``) and kept only when
their hash equals the stored ``embed_input_hash``: the texts are exactly the ones the
stored vectors were computed from. Writes ``<out>/<home>-<app>.npz`` (``texts``,
``titles``, ``emb``, ``title_emb``, float16 vectors)::

    GRAPHRAG_HOME=/copy/of/a/home python benchmarks/static_teacher.py --out DIR [--skip-app X]

Read-only on the database; run it on a copy of a home another process may be using.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np
from _common import bench_engine
from sqlalchemy import text

from graphrag.pipeline.model import WorkItem
from graphrag.pipeline.stages.embed import embed_input, input_hash, title_input
from graphrag.pipeline.store import _SELECT, _node

TEACHER_PREFIX = "all-MiniLM-L6-v2/onnx@"


def _vector(literal: str | None, dim: int) -> np.ndarray:
    if literal is None:
        return np.zeros(dim, np.float32)
    return np.asarray(literal.strip("[]").split(","), dtype=np.float32)


def app_pairs(conn, app_id: int) -> dict[str, np.ndarray]:
    """Every chunk of the application whose rebuilt texts hash to the stored input hash."""
    sql = _SELECT.format(selectable="c.emb IS NOT NULL AND c.embed_model LIKE :teacher",
                         after="", claim="")
    rows = conn.execute(text(sql), {"app": app_id, "size": 10**9,
                                    "teacher": TEACHER_PREFIX + "%"}).mappings().all()
    vectors = dict((r[0], (r[1], r[2], r[3])) for r in conn.execute(text(
        "SELECT id, emb::text, title_emb::text, embed_model FROM chunks"
        " WHERE application_id = :app AND emb IS NOT NULL"), {"app": app_id}))
    texts, titles, emb, title_emb = [], [], [], []
    for r in rows:
        row = {k: v for k, v in r.items() if not k.startswith(("n_", "p_"))}
        item = WorkItem(id=r["id"], row=row, node=_node(r))
        body, title = embed_input(item), title_input(item)
        body_vec, title_vec, model = vectors[r["id"]]
        if input_hash(model, body, title) != r["embed_input_hash"]:
            continue
        vec = _vector(body_vec, 384)
        texts.append(body)
        titles.append(title)
        emb.append(vec)
        title_emb.append(_vector(title_vec, vec.shape[0]))
    if not emb:
        return {"texts": np.array([], dtype=object)}
    return {"texts": np.array(texts, dtype=object), "titles": np.array(titles, dtype=object),
            "emb": np.array(emb, np.float16),
            "title_emb": np.array(title_emb, np.float16)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--skip-app", action="append", default=[],
                        help="leave this application out (held-out evaluation code)")
    args = parser.parse_args(argv)
    home = Path(os.environ["GRAPHRAG_HOME"]).name
    args.out.mkdir(parents=True, exist_ok=True)
    engine = bench_engine()
    with engine.connect() as conn:
        apps = conn.execute(text("SELECT id, name FROM applications ORDER BY id")).all()
        for app_id, name in apps:
            if name in args.skip_app:
                print(f"{home}/{name}: skipped", file=sys.stderr)
                continue
            pairs = app_pairs(conn, app_id)
            print(f"{home}/{name}: {len(pairs['texts'])} pairs", file=sys.stderr)
            if len(pairs["texts"]):
                np.savez(args.out / f"{home}-{name}.npz", **pairs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

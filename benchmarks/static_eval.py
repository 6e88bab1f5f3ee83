"""The docstring benchmark's ``embed`` baseline (``retrieval.py``: a function's raw code
against the first sentence of its removed docstring) for static tables, offline.

For each table (``.npy`` from ``static_learn.py``, or ``m2v`` for the distilled model2vec
model, or ``onnx`` for the transformer) the functions are encoded by the table and the
queries both by the table (symmetric) and by the transformer (asymmetric: the table's
vectors live in the transformer's space). Prints strict MRR@10 per code base.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np
from codesearch_corpus import build_corpus, fetch_source
from retrieval import CODE_BASES, TOP_K, embed_cached, function_texts, score
from static_learn import tokenize


class TableEncoder:
    """Weighted sums of a learned table's rows (weights folded in), unit-normed."""

    def __init__(self, table: np.ndarray, tok_file: Path, name: str) -> None:
        self.table, self.tok_file, self.name, self.dim = table, tok_file, name, table.shape[1]

    def encode(self, texts: list[str]) -> np.ndarray:
        out = np.stack([self.table[ids].sum(0) for ids in tokenize(self.tok_file, texts)])
        return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)


def mrr(corpus, fvec: np.ndarray, qvec: np.ndarray) -> float:
    spans = [(f.path, f.line_start, f.line_end) for f in corpus.functions]
    ranked = [np.argsort(-row, kind="stable")[:TOP_K] for row in qvec @ fvec.T]
    return score(corpus, [[spans[i] for i in row] for row in ranked])["strict"]["mrr"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tables", nargs="+", help="onnx, m2v or a .npy table")
    parser.add_argument("--cache", type=Path, required=True)
    parser.add_argument("--model-dir", type=Path, required=True)
    parser.add_argument("--m2v-dir", type=Path)
    args = parser.parse_args()
    from graphrag.config import load_settings
    from graphrag.embedding import get_embedder

    os.environ["GRAPHRAG_EMBED_BACKEND"] = "onnx"
    teacher = get_embedder(load_settings())
    tok_file = args.model_dir / "tokenizer.json"
    corpora = []
    for base in CODE_BASES[:2]:
        source = fetch_source(base, args.cache, {})
        corpora.append(build_corpus(base, source, args.cache, 300))
    for name in args.tables:
        if name == "onnx":
            enc = teacher
        elif name == "m2v":
            from graphrag.embedding.static_backend import StaticEmbedder

            enc = StaticEmbedder("m2v", args.m2v_dir)
        else:
            enc = TableEncoder(np.load(name), tok_file, Path(name).stem)
        row = []
        for corpus in corpora:
            started = time.perf_counter()
            fvec = embed_cached(enc, function_texts(corpus), args.cache)
            queries = [q.text for q in corpus.queries]
            qt = embed_cached(teacher, queries, args.cache)
            sym = mrr(corpus, fvec, enc.encode(queries))
            asym = mrr(corpus, fvec, qt) if name != "m2v" else float("nan")  # PCA space
            row.append((sym, asym, time.perf_counter() - started))
        macro_s = sum(r[0] for r in row) / len(row)
        macro_a = sum(r[1] for r in row) / len(row)
        print(f"{name}: " + "  ".join(f"{c.base.name} sym {s:.3f} asym {a:.3f} ({t:.0f}s)"
                                      for c, (s, a, t) in zip(corpora, row, strict=True))
              + f"  macro sym {macro_s:.3f} asym {macro_a:.3f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

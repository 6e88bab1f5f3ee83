"""Hostile documents: the cost of the cases that were once unbounded.

1. DOCX with many paragraphs (``--paragraphs``, default 75,000: about 10 MB of XML):
   extraction time (python-docx resolved every paragraph's style by scanning all styles:
   quadratic; now one style map per document).
2. DOCX decompression bomb (310 MB of XML from ~750 KB) and entity bomb: time until the
   document is refused.
3. A 1,000,000-character one-line Markdown ingested end to end (extract, page chunks,
   every stage). The embedding model is replaced by a hash stub so the number shows
   graphrag's own cost (before: every chunk of a batch carried the whole unit text).
   ``--real-model`` uses the real model instead.

    python benchmarks/hostile_documents.py [--paragraphs 75000] [--real-model]

Uses GRAPHRAG_DATABASE_URL (or the embedded server); the scratch application is dropped.
"""

from __future__ import annotations

import argparse
import hashlib
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from _common import ROOT, bench_engine, drop_app

sys.path.insert(0, str(ROOT / "tests"))

APP = "bench_hostile_documents"


class HashEmbedder:
    """A stand-in model: a deterministic unit vector per text, no inference cost."""

    name = "hash-stub"
    dim = 384

    def encode(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(texts):
            out[i, int(hashlib.md5(t.encode()).hexdigest(), 16) % self.dim] = 1.0
        return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--paragraphs", type=int, default=75_000)
    parser.add_argument("--real-model", action="store_true")
    args = parser.parse_args()

    from hostile_files import make_entity_bomb_docx, make_many_paragraphs_docx, make_zip_bomb_docx

    from graphrag.config import load_settings
    from graphrag.documents.extract import extract
    from graphrag.errors import DocumentError
    from graphrag.ingesting import ingest_files

    work = Path(tempfile.mkdtemp(prefix="bench-hostile-"))
    many = make_many_paragraphs_docx(work / "many.docx", args.paragraphs)
    t0 = time.perf_counter()
    units = extract(many, "docx", "many.docx").units
    print(f"docx {args.paragraphs} paragraphs: {time.perf_counter() - t0:.1f} s"
          f" ({sum(len(u.text) for u in units)} chars)")

    for name, make in (("zip bomb 310 MB", make_zip_bomb_docx),
                       ("entity bomb", make_entity_bomb_docx)):
        path = make(work / f"{name.split()[0]}.docx")
        t0 = time.perf_counter()
        try:
            extract(path, "docx", path.name)
            outcome = "extracted (!)"
        except DocumentError as exc:
            outcome = f"refused: {exc}"
        print(f"{name} ({path.stat().st_size} bytes): {time.perf_counter() - t0:.3f} s,"
              f" {outcome}")

    line = work / "line.md"
    line.write_text(" ".join(f"word{n % 997}" for n in range(125_000))[:1_000_000])
    engine = bench_engine()
    settings = load_settings()
    embedder = None if args.real_model else HashEmbedder()
    if args.real_model:
        from graphrag.embedding import get_embedder

        get_embedder(settings)
    drop_app(engine, APP)
    t0 = time.perf_counter()
    (doc,) = ingest_files(engine, settings, APP, [line], embedder=embedder)["documents"]
    seconds = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    print(f"1,000,000-char line ({'real model' if args.real_model else 'hash stub'}):"
          f" {seconds:.1f} s, {doc['chunk_count']} chunks, {doc['sentence_count']} sentences,"
          f" status {doc['status']}, peak RSS {peak} MB")
    drop_app(engine, APP)


if __name__ == "__main__":
    main()

"""Documents: ingest throughput of a generated PDF, and sentence vs chunk granularity.

1. Throughput: a generated ``--pages``-page PDF (default 300, about ``--page-chars``
   characters of prose per page) is ingested end to end with the library call
   ``ingest_files`` (validate, store, extract, nodes and MENTIONS, page chunks, stages
   extract-page, embed, split-sentences, link-edges). The embedding model is loaded
   before the clock starts. Reported: pages/s overall and the time per phase.
2. Granularity: a generated corpus (``--corpus-pages`` pages) where each page hides one
   distinctive fact among generic filler sentences; one question per fact, whose answer
   page is known. Hit@1/hit@5 (answer page among the top hits' pages) and MRR for chunk
   search and sentence search, both vector mode and hybrid.

    python benchmarks/documents.py [--pages 300] [--corpus-pages 60] [--skip-throughput]

Uses GRAPHRAG_DATABASE_URL (or the embedded server); scratch applications are dropped.
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from pathlib import Path

from _common import ROOT, bench_engine, drop_app

FILLER = [
    "The committee reviews this section every quarter and records its decisions.",
    "All staff should read the general guidance before starting any new task.",
    "Exceptions to these rules require written approval from a department head.",
    "Questions about this policy can be raised during the weekly team meeting.",
    "Records are retained for seven years in accordance with the archive policy.",
    "The document owner is responsible for keeping the contents up to date.",
    "Changes take effect on the first working day of the following month.",
    "Training material for new employees is available on the internal portal.",
    "Managers confirm compliance in their annual review of the department.",
    "Any disagreement is escalated through the usual reporting line first.",
    "Summaries of previous versions are listed in the appendix of this handbook.",
    "Teams coordinate schedules through the shared calendar of the office.",
]
CITIES = ["Oslo", "Lisbon", "Nairobi", "Osaka", "Lima", "Quebec", "Tallinn", "Hanoi",
          "Perth", "Zagreb", "Accra", "Bergen", "Cusco", "Dakar", "Graz", "Izmir"]
GOODS = ["copper wire", "olive oil", "solar panels", "wool blankets", "bicycle tyres",
         "coffee beans", "glass bottles", "steel bolts", "rice sacks", "paper rolls",
         "printer toner", "winter boots"]


def fact(i: int, rng: random.Random) -> tuple[str, str]:
    """(sentence hidden in the page, question about it)."""
    city, goods = CITIES[i % len(CITIES)], GOODS[(i // len(CITIES)) % len(GOODS)]
    n = rng.randint(100, 999)
    return (f"The warehouse in {city} keeps exactly {n} pallets of {goods} for emergencies.",
            f"How many pallets of {goods} does the {city} warehouse keep?")


def page_text(rng: random.Random, chars: int, hidden: str | None = None) -> str:
    sentences = []
    while sum(len(s) + 1 for s in sentences) < chars:
        sentences.append(rng.choice(FILLER))
    if hidden:
        sentences.insert(rng.randrange(len(sentences)), hidden)
    paras = [" ".join(sentences[i:i + 4]) for i in range(0, len(sentences), 4)]
    return "\n\n".join(paras)


def throughput(engine, settings, embedder, pages: int, chars: int, folder: Path) -> dict:
    import sys

    sys.path.insert(0, str(ROOT / "tests"))
    from doc_files import make_pdf

    from graphrag.ingesting import ingest_files

    rng = random.Random(7)
    pdf = make_pdf(folder / "big.pdf", [page_text(rng, chars) for _ in range(pages)])
    app = "bench_documents_ingest"
    drop_app(engine, app)
    phases: dict[str, float] = {}
    last = [time.perf_counter(), "extract"]

    def progress(phase: str, done: int, total: int) -> None:
        now = time.perf_counter()
        if phase != last[1]:
            last[:] = [now, phase]
        phases[phase] = round(now - last[0], 2)

    t0 = time.perf_counter()
    result = ingest_files(engine, settings, app, [pdf], progress=progress, embedder=embedder)
    seconds = time.perf_counter() - t0
    (doc,) = result["documents"]
    drop_app(engine, app)
    return {"pages": pages, "pdf_mb": round(pdf.stat().st_size / 1e6, 2),
            "chunks": doc["chunk_count"], "sentences": doc["sentence_count"],
            "seconds": round(seconds, 2), "pages_per_s": round(pages / seconds, 2),
            "chunk_plan_s": result["chunks"]["duration"],
            "stages_s": result["pipeline"]["duration_s"],
            "stage_counts": result["pipeline"]["stages"]}


def granularity(engine, settings, embedder, pages: int, chars: int, folder: Path) -> dict:
    import sys

    sys.path.insert(0, str(ROOT / "tests"))
    from doc_files import make_pdf

    from graphrag.ingesting import ingest_files
    from graphrag.retrieval.documents.sentences import search_sentences
    from graphrag.retrieval.search.engine import search
    from graphrag.retrieval.search.model import SearchOptions

    rng = random.Random(11)
    facts = [fact(i, rng) for i in range(pages)]
    texts = [page_text(rng, chars, hidden) for hidden, _ in facts]
    pdf = make_pdf(folder / "corpus.pdf", texts)
    app = "bench_documents_granularity"
    drop_app(engine, app)
    ingest_files(engine, settings, app, [pdf], embedder=embedder)
    questions = [(q, page) for page, (_, q) in enumerate(facts, start=1)]
    report = {}
    for mode in ("vector", "hybrid"):
        options = SearchOptions(mode=mode, top_k=10)
        for name, run in (("chunk", search), ("sentence", search_sentences)):
            ranks = []
            for q, page in questions:
                hits = run(engine, [app], q, options, embedder).hits
                got = [h["page_number"] for h in hits]
                ranks.append(got.index(page) + 1 if page in got else None)
            n = len(ranks)
            report[f"{name}/{mode}"] = {
                "hit@1": round(sum(r == 1 for r in ranks) / n, 3),
                "hit@5": round(sum(r is not None and r <= 5 for r in ranks) / n, 3),
                "mrr@10": round(sum(1 / r for r in ranks if r) / n, 3)}
    drop_app(engine, app)
    return {"pages": pages, "questions": len(questions), "results": report}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pages", type=int, default=300)
    ap.add_argument("--page-chars", type=int, default=1200)
    ap.add_argument("--corpus-pages", type=int, default=60)
    ap.add_argument("--corpus-chars", type=int, default=1800)
    ap.add_argument("--skip-throughput", action="store_true")
    args = ap.parse_args()

    from graphrag.config import load_settings
    from graphrag.embedding import get_embedder

    engine = bench_engine()
    settings = load_settings()
    embedder = get_embedder(settings)
    embedder.encode(["warm up"])
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        if not args.skip_throughput:
            out["throughput"] = throughput(engine, settings, embedder, args.pages,
                                           args.page_chars, Path(tmp))
            print(json.dumps(out["throughput"]), flush=True)
        out["granularity"] = granularity(engine, settings, embedder, args.corpus_pages,
                                         args.corpus_chars, Path(tmp))
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()

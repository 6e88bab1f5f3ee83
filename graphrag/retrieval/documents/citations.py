"""ID-based citations with a text-matching fallback.

An answer is ``{"sections": [{"text": ..., "source_ids": [...]}]}``. Each source id is a
segment id ``{document_id}:{segment_index}`` (or a chunk's plan id, e.g. for code) that
appeared as ``[SEG=...]`` in the context; it is mapped back to document, segment, page
and a snippet. Ids that name nothing in the application are dropped and reported.

When the answer is not valid JSON, or no section carries a valid id, each section is
matched against the application's segments by text instead (``method: "text-match"``):
the score is the share of the section's words found in the segment, each word weighted
by its rarity across segments (inverse document frequency), plus a bonus for word pairs
found in the same order -- so a short answer such as a person's name goes to the segment
with that name, not to a header that shares many common words. Sections are then
aligned monotonically: a later section prefers a segment at or after the previous one
(going back costs ``BACKTRACK_PENALTY``)."""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection

from graphrag.db.context import AppContext
from graphrag.retrieval.documents import store
from graphrag.retrieval.documents.adjacent import resolve
from graphrag.retrieval.documents.segments import Segment, load_segments

MIN_SCORE = 0.35
PAIR_WEIGHT = 0.3
CANDIDATES = 5
BACKTRACK_PENALTY = 0.15
PREVIEW_CHARS = 200
_WORD = re.compile(r"\w+", re.UNICODE)


def words(value: str) -> list[str]:
    return _WORD.findall(value.lower())


@dataclass(frozen=True)
class Answer:
    """Parsed answer sections; ``valid_json`` False when the text was not the JSON shape."""

    sections: list[dict[str, Any]]
    valid_json: bool


def parse_answer(raw: str) -> Answer:
    """Sections with ``text`` and ``source_ids`` (strings only); non-JSON input becomes one
    section per paragraph with no ids."""
    try:
        data = json.loads(raw)
    except (json.JSONDecodeError, ValueError):
        data = None
    if isinstance(data, dict) and isinstance(data.get("sections"), list):
        sections = []
        for sec in data["sections"]:
            if not isinstance(sec, dict):
                continue
            ids = sec.get("source_ids")
            ids = [i for i in ids if isinstance(i, str)] if isinstance(ids, list) else []
            sections.append({"text": str(sec.get("text") or ""), "source_ids": ids})
        return Answer(sections, True)
    paragraphs = [p.strip() for p in re.split(r"\n\s*\n", raw or "") if p.strip()]
    return Answer([{"text": p, "source_ids": []} for p in paragraphs], False)


def _preview(content: str) -> str:
    flat = " ".join(content.split())
    return flat if len(flat) <= PREVIEW_CHARS else flat[: PREVIEW_CHARS - 3] + "..."


def segment_citation(seg: Segment, method: str, source_id: str | None = None,
                     score: float | None = None) -> dict[str, Any]:
    out = {"source_id": source_id or seg.segment_id, "segment_id": seg.segment_id,
           "document_id": seg.document_id, "segment_index": seg.segment_index,
           "page_idx": seg.page_idx, "page_number": seg.page_number,
           "filename": seg.filename, "chunk_id": seg.chunk_id,
           "snippet_preview": _preview(seg.content), "method": method}
    if score is not None:
        out["score"] = round(score, 4)
    return out


_MEMBER_ID = re.compile(r"^\d+:code:snippet$")
def _by_ids(conn: Connection, app_id: int, ids: list[str]) -> dict[str, dict[str, Any]]:
    """Citation per resolvable id: document segments first, then other chunks (code)."""
    segments, rest = resolve(conn, app_id, ids)
    found: dict[str, dict[str, Any]] = {}
    for seg in segments:
        for key in (seg.segment_id, seg.chunk_id):
            if key in ids:
                found[key] = segment_citation(seg, "id", key)
    if rest:
        rows = store.cited_chunk_rows(conn, app_id, rest)
        # a context block of a split member is cited by the parts' common prefix
        # `{node}:code:snippet`: the member's lines, its first part's text
        members = [i for i in rest if _MEMBER_ID.match(i)] if len(rows) < len(rest) else []
        if members:
            rows += store.cited_member_rows(conn, app_id, members)
        for r in rows:
            found[r.plan_id] = {
                "source_id": r.plan_id, "segment_id": r.plan_id, "document_id": None,
                "segment_index": None, "page_idx": None, "page_number": None,
                "filename": r.file_path, "chunk_id": r.plan_id, "fqn": r.fqn,
                "line_start": r.line_start, "line_end": r.line_end,
                "snippet_preview": _preview(r.content or ""), "method": "id"}
    return found


class TextMatcher:
    """IDF-weighted word coverage of a section by a segment (see the module docstring)."""

    def __init__(self, segments: list[Segment]) -> None:
        self.segments = segments
        self._words = [set(words(s.content)) for s in segments]
        self._pairs = [set(_pairs(words(s.content))) for s in segments]
        df = Counter(w for ws in self._words for w in ws)
        n = len(segments)
        self._idf = {w: math.log((n + 1) / (c + 1)) + 1.0 for w, c in df.items()}
        self._default_idf = math.log(n + 1) + 1.0

    def idf(self, word: str) -> float:
        return self._idf.get(word, self._default_idf)

    def score(self, section: str, index: int) -> float:
        toks = words(section)
        if not toks:
            return 0.0
        unique = set(toks)
        total = sum(self.idf(w) for w in unique)
        cover = sum(self.idf(w) for w in unique if w in self._words[index]) / total
        pairs = set(_pairs(toks))
        if not pairs:
            return cover
        pair_cover = sum(1 for p in pairs if p in self._pairs[index]) / len(pairs)
        return (1 - PAIR_WEIGHT) * cover + PAIR_WEIGHT * pair_cover

    def candidates(self, section: str) -> list[tuple[int, float]]:
        scored = [(i, self.score(section, i)) for i in range(len(self.segments))]
        scored = [p for p in scored if p[1] >= MIN_SCORE]
        scored.sort(key=lambda p: (-p[1], p[0]))
        return scored[:CANDIDATES]


def _pairs(toks: list[str]) -> list[tuple[str, str]]:
    return list(zip(toks, toks[1:], strict=False))


def align(options: list[list[tuple[int, float]]]) -> list[int | None]:
    """Pick one candidate (segment position, score) per section maximising the total
    score, where stepping back to an earlier segment than the previous section's costs
    ``BACKTRACK_PENALTY``. Sections without candidates get None and do not constrain."""
    picked: list[int | None] = [None] * len(options)
    chain = [i for i, opts in enumerate(options) if opts]
    if not chain:
        return picked
    # best[k][j]: best total for chain[:k+1] ending with option j of section chain[k]
    best: list[list[float]] = []
    back: list[list[int]] = []
    for k, sec in enumerate(chain):
        row, ptr = [], []
        for pos, score in options[sec]:
            if k == 0:
                row.append(score)
                ptr.append(-1)
                continue
            prev = options[chain[k - 1]]
            totals = [best[k - 1][j] - (BACKTRACK_PENALTY if pos < prev[j][0] else 0.0)
                      for j in range(len(prev))]
            j = max(range(len(prev)), key=lambda j: totals[j])
            row.append(totals[j] + score)
            ptr.append(j)
        best.append(row)
        back.append(ptr)
    j = max(range(len(best[-1])), key=lambda j: best[-1][j])
    for k in range(len(chain) - 1, -1, -1):
        picked[chain[k]] = options[chain[k]][j][0]
        j = back[k][j]
    return picked


def _text_match(segments: list[Segment], sections: list[dict[str, Any]]) -> None:
    matcher = TextMatcher(segments)
    options = [matcher.candidates(sec["text"]) for sec in sections]
    for sec, opts, pos in zip(sections, options, align(options), strict=True):
        score = dict(opts).get(pos, 0.0) if pos is not None else 0.0
        sec["citations"] = ([] if pos is None else
                            [segment_citation(segments[pos], "text-match", score=score)])


def cite_answer(ctx: AppContext, raw: str) -> dict[str, Any]:
    """Citations for every section of an answer, a flat de-duplicated list, the method
    used, and the dropped ids (see the module docstring)."""
    answer = parse_answer(raw)
    sections = [dict(s) for s in answer.sections]
    asked = list(dict.fromkeys(i for s in sections for i in s["source_ids"]))
    dropped: list[dict[str, Any]] = []
    app_id = ctx.app_id
    with ctx.engine.connect() as conn:
        found = _by_ids(conn, app_id, asked) if asked else {}
        method = "id" if found else "text-match"
        if method == "id":
            for n, sec in enumerate(sections):
                sec["citations"] = [found[i] for i in sec["source_ids"] if i in found]
                dropped += [{"section": n, "source_id": i, "reason": "not in application"}
                            for i in sec["source_ids"] if i not in found]
        else:
            dropped = [{"section": n, "source_id": i, "reason": "not in application"}
                       for n, sec in enumerate(sections) for i in sec["source_ids"]]
            _text_match(load_segments(conn, app_id), sections)
    flat: dict[str, dict[str, Any]] = {}
    for sec in sections:
        for c in sec["citations"]:
            flat.setdefault(c["segment_id"], c)
    return {"method": method, "valid_json": answer.valid_json, "sections": sections,
            "citations": list(flat.values()), "dropped_ids": dropped}


def context_block(segment: Segment) -> str:
    """A segment as it goes into an LLM context: ``[SEG={doc}:{index}] <text>``."""
    return f"[SEG={segment.segment_id}] {segment.content}"


def render_segments(segments: Sequence[Segment]) -> str:
    return "\n\n".join(context_block(s) for s in segments)

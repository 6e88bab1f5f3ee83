"""Ranking from the graph and the file tree, after the signals are fused.

Each boost is additive, in units of the best fused score among the query's candidates,
so it means the same for every query and mode, and weighted by the query's profile
(:mod:`graphrag.retrieval.search.profiles`); each is a named signal that
``SearchOptions.disabled`` switches off (CLI ``--no-signal NAME``):

- ``definitions``: a chunk of a node that *defines* a queried name
  (:mod:`graphrag.retrieval.search.definitions`) gains the profile's ``definitions`` weight
  (3 for a symbol query, 1 for a name inside a question or a qualified name inside a
  topic, none inside a description),
  times ``STEM_FACTOR`` when its file is named after the symbol
  (``routing/APIRouter.kt``; ``zod/types.ts`` for ``ZodType`` does not count), times the
  definition's share (in a question, a name's overloads in k files 1/k each:
  :func:`graphrag.retrieval.search.definitions.split_overloads`);
- ``entry-points``: when a question or topic asks where the program starts (its entry
  point, command line, startup: :attr:`QueryIntent.entry`), each chunk holding a line
  the parser marked as an entry point (:mod:`graphrag.parsing.entrypoints`: Ruby's
  top-level ``ARGV`` and ``at_exit``, Python's ``__main__`` guard, a ``main`` function)
  gains the profile's ``entry_points`` weight, in the ``BOOSTED_ENTRY_FILES`` files that
  match the question best (tests, examples, benchmarks left out unless asked for); when
  the query names only the command line (no entry point, startup or main: in a
  command-line library that is its domain) the weight is scaled by the file's best
  candidate score over the best candidate's (at least ``ENTRY_FLOOR``). The code rarely
  uses the question's words;
- ``path-words``: a chunk whose file name or folder shares words with the query gains
  the profile's ``path_words`` weight times the share of query words matched (``dependency`` matches
  ``dependencies/``, ``quantize`` matches ``quantization.py``, ``Tokenizer`` matches
  ``tokenizer/``; see :func:`words_match`);
- ``neighbours`` (questions and topics): a chunk gains the ``neighbours`` weight times the
  best score among the candidates of its file next to it (another node's chunk ending or
  starting within ``NEIGHBOUR_GAP`` lines, in its scope: a sibling, its parent or member,
  the file's own code) or inside it (a class's method, a file's function): the behaviour
  a question asks about often spans a few adjacent small methods (a DSL's ``before``,
  ``after`` and ``add_filter``; ``compile!`` and ``compile``), and the method in the
  middle of such a run beats a lone match of one word elsewhere in a large class. The
  member of a nested type beside it answers for that type, not for its neighbour (a
  struct's field lifts the struct, not the alias declared after the struct). A
  statement wants one function, whose siblings are its rivals: none;
- ``see-also`` (questions and topics): a file or symbol the doc comment of one of the
  ``VALUE_VOTERS`` best candidates (with their definitions boost) sends the reader to
  with *see* (:mod:`graphrag.retrieval.search.seealso`; abseil's ``absl_log.h``, which
  defines ``ABSL_LOG``: "For full documentation, see comments in `log.h`") gains the
  ``see_also`` weight times that candidate's score (the best such candidate's);
- ``value-types`` (questions and topics): the type a documented value among the
  ``VALUE_VOTERS`` best candidates is declared with
  (:mod:`graphrag.retrieval.search.valuetypes`) gains the ``value_types`` weight times
  that value's fused score (the best such value's, when several name one type): the
  question that matches the doc of ``def sequential: F ~> M`` ("Natural Transformation
  from ...") asks about the type ``F ~> M`` stands for;
- ``coherence``: the best chunk of each file gains the ``coherence`` weight times the file's
  summed candidate scores over the best file's: an architecture question is answered by
  the file where several strong members live together.
"""

from __future__ import annotations

import functools
import heapq
import os
import re
from bisect import bisect_left, bisect_right
from collections.abc import Collection, Mapping, Sequence
from pathlib import PurePosixPath

from graphrag.kinds import DOCUMENT_KINDS
from graphrag.retrieval.search.definitions import Definition
from graphrag.retrieval.search.intent import QueryIntent, simple_name
from graphrag.retrieval.search.model import Candidate
from graphrag.retrieval.search.profiles import Profile, definition_weight, profile

STEM_FACTOR = 1.5
MIN_PREFIX = 3
SHARED_PREFIX = 0.75
MAX_QUERY_WORDS = 64
# Lines between two chunks that still make them neighbours: a blank line and a doc
# comment of a few lines between two methods.
NEIGHBOUR_GAP = 10
# Entry-point files boosted for a question about where the program starts (those whose
# candidates match it best), and the share of the boost a file gets whose code matches
# nothing of the question (``entry-points``).
BOOSTED_ENTRY_FILES = 3
ENTRY_FLOOR = 0.1
# The best candidates whose declared types (``value-types``) and doc references
# (``see-also``) are lifted.
VALUE_VOTERS = 10
# Nodes whose chunks are their file's own code, around and between its declarations.
_FILE_KINDS = frozenset({"FILE", "MODULE"})

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*")
_PARTS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_STOP = frozenset({
    "a", "an", "and", "are", "as", "at", "be", "by", "can", "do", "does", "for", "from",
    "get", "gets", "has", "have", "how", "if", "in", "into", "is", "it", "its", "not", "of",
    "on", "or", "the", "then", "this", "to", "use", "used", "uses", "using", "was", "what",
    "when", "where", "which", "who", "why", "with", "work", "works", "code", "find",
    "implementation", "implemented", "handle", "handling",
})


def wants_definitions(intent: QueryIntent, weights: Profile) -> bool:
    """Whether the definitions of the names the query mentions would gain anything."""
    return any(definition_weight(weights, name) > 0 for name in intent.names)


@functools.lru_cache(maxsize=65536)
def words_of_path(path: str | None) -> frozenset[str]:
    """Lower-case words of a file's name (without extension) and of its folder."""
    if not path:
        return frozenset()
    parts = path.rstrip("/").rsplit("/", 2)
    stem = parts[-1].split(".", 1)[0]
    folder = parts[-2] if len(parts) > 1 else ""
    return frozenset(w.lower() for w in _PARTS.findall(stem) + _PARTS.findall(folder))


def query_words(query: str) -> set[str]:
    """The query's content words (lower case, 3 letters or more, stop words dropped; the
    first ``MAX_QUERY_WORDS`` words: a file name says little about a long text)."""
    out = set()
    for word in _WORD.findall(query)[:MAX_QUERY_WORDS]:
        for part in [word, *_PARTS.findall(word)]:
            low = part.lower()
            if len(low) >= MIN_PREFIX and low not in _STOP:
                out.add(low)
    return out


def words_match(a: str, b: str) -> bool:
    """Whether two words are forms of one (``dependency``/``dependencies``,
    ``quantize``/``quantization``, ``token``/``tokenizer``): one starts the other, or
    they share a prefix of at least ``SHARED_PREFIX`` of the shorter one."""
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    if len(short) < MIN_PREFIX or short[:MIN_PREFIX] != long_[:MIN_PREFIX]:
        return False  # both rules need the first MIN_PREFIX letters shared
    if long_.startswith(short):
        return True
    n = len(os.path.commonprefix([short, long_]))
    return n >= MIN_PREFIX + 1 and n >= SHARED_PREFIX * len(short)


def _word_hits(words: set[str], parts: frozenset[str]) -> int:
    heads = {part[:MIN_PREFIX] for part in parts}
    return sum(1 for word in words
               if word[:MIN_PREFIX] in heads and any(words_match(word, p) for p in parts))


def _stem_names_symbol(path: str | None, name: str) -> bool:
    if not path:
        return False
    stem = PurePosixPath(path).name.split(".", 1)[0].lower()
    target = simple_name(name).lower()
    norm = stem.replace("_", "").replace("-", "")
    return target in (stem, norm, stem.rstrip("s"), norm.rstrip("s"))


def boost(scores: dict[int, float], details: Mapping[int, Candidate], query: str,
          intent: QueryIntent, defined: Mapping[int, Definition],
          disabled: Sequence[str] = (), weights: Profile | None = None,
          typed: Mapping[int, Definition] | None = None,
          entries: Collection[int] = (),
          beside: Mapping[int, float] | None = None,
          referenced: Mapping[int, Sequence[Definition]] | None = None) -> dict[int, float]:
    """The candidates' scores with the boosts (see the module docstring) weighted by the
    query's profile (``weights``; by default its kind's); chunks in ``defined`` (and the
    types of ``typed``, candidate chunk id -> the type its value is declared with, and
    the files and symbols of ``referenced``, candidate chunk id -> what its doc comment
    sends the reader to) and the entry-point chunks ``entries`` that are not in
    ``scores`` join with their boost alone (a search scores them as candidates first,
    :func:`graphrag.retrieval.search.beside.joined_scores`); ``beside``: fused scores of
    chunks next to candidates
    that are no candidates themselves (their rows in ``details``), read by the
    neighbours signal only."""
    weights = weights or profile(intent.kind)
    out = dict(scores)
    top = max(out.values(), default=0.0)
    unit = top if top > 0 else 1.0
    if "value-types" not in disabled and typed and weights.value_types:
        lend_scores(out, scores, details, {i: (d,) for i, d in typed.items()},
                    weights.value_types)
    if "definitions" not in disabled and defined:
        # A symbol query is answered by the declaration: the node's first chunk. A
        # sentence naming the symbol by the part of a long node that matched it best.
        best_of_node = best_chunk_of_node(scores, details)
        for chunk_id, definition in defined.items():
            weight = definition_weight(weights, definition.name)
            if weight <= 0:
                continue
            cand = definition.candidate
            target = chunk_id if intent.symbol else best_of_node.get(
                (cand.app, cand.node_id), chunk_id)
            factor = STEM_FACTOR if _stem_names_symbol(cand.file_path, definition.name) else 1.0
            out[target] = out.get(target, 0.0) + unit * weight * factor * definition.share
    if "see-also" not in disabled and referenced and weights.see_also:
        # after the definitions: the declaration of a queried name that says where it is
        # documented sends its boost there too
        lend_scores(out, dict(out), details, referenced, weights.see_also)
    if "entry-points" not in disabled and weights.entry_points and entries:
        entry_point_boost(out, scores, details, entries, unit * weights.entry_points,
                          1.0 if intent.start else ENTRY_FLOOR)
    if "path-words" not in disabled:
        words = query_words(query)
        if words:
            cache: dict[str | None, float] = {}
            for chunk_id in scores:
                path = details[chunk_id].file_path
                if path not in cache:
                    cache[path] = _word_hits(words, words_of_path(path)) / len(words)
                out[chunk_id] += unit * weights.path_words * cache[path]
    if "neighbours" not in disabled and weights.neighbours:
        neighbourhood(out, scores, details, weights.neighbours, beside=beside)
    if "coherence" not in disabled:
        coherence(out, details, weights.coherence)
    return out


def best_chunk_of_node(scores: Mapping[int, float], details: Mapping[int, Candidate]
                       ) -> dict[tuple[str, int], int]:
    """(application, node) -> the best-scored of that node's chunks among ``scores``."""
    best: dict[tuple[str, int], int] = {}
    for chunk_id, score in scores.items():
        key = (details[chunk_id].app, details[chunk_id].node_id)
        if key not in best or score > scores[best[key]]:
            best[key] = chunk_id
    return best


def entry_point_boost(out: dict[int, float], scores: Mapping[int, float],
                      details: Mapping[int, Candidate], entries: Collection[int],
                      weight: float, floor: float = ENTRY_FLOOR,
                      files: int = BOOSTED_ENTRY_FILES) -> None:
    """Add to each entry-point chunk of ``entries`` (their rows in ``details``) in the
    ``files`` files whose best candidate scores highest ``weight`` x that score over the
    best candidate's (at least ``floor``): in a command-line library the question's
    "command line" is the library's domain, and its many scripts with a ``main`` must not
    bury the module that answers it. A question naming the start itself (``floor`` 1)
    gets its few best entry files at full weight: their code rarely says "startup"."""
    top = max(scores.values(), default=0.0)
    best: dict[tuple[str, str | None], float] = {}
    for chunk_id, score in scores.items():
        cand = details[chunk_id]
        key = (cand.app, cand.file_path)
        best[key] = max(best.get(key, 0.0), score)
    by_file: dict[tuple[str, str | None], list[int]] = {}
    for chunk_id in entries:
        cand = details[chunk_id]
        by_file.setdefault((cand.app, cand.file_path), []).append(chunk_id)
    chosen = sorted(by_file, key=lambda k: (-best.get(k, 0.0), min(by_file[k])))[:files]
    for key in chosen:
        share = max(floor, best.get(key, 0.0) / top) if top > 0 else floor
        for chunk_id in by_file[key]:
            out[chunk_id] = out.get(chunk_id, 0.0) + weight * share


def lend_scores(out: dict[int, float], scores: Mapping[int, float],
                details: Mapping[int, Candidate], links: Mapping[int, Sequence[Definition]],
                weight: float, voters: int = VALUE_VOTERS) -> None:
    """Add to the best chunk of each node a candidate among the ``voters`` best of
    ``scores`` links to (``links``: the type a value is declared with, the file a doc
    comment refers to) ``weight`` x that candidate's score, the best candidate's when
    several link to one node (in place in ``out``)."""
    best = heapq.nlargest(voters, scores, key=lambda i: (scores[i], -i))
    gains: dict[tuple[str, int], tuple[float, int]] = {}
    for chunk_id in best:
        for definition in links.get(chunk_id, ()):
            cand = definition.candidate
            key = (cand.app, cand.node_id)
            gain = weight * max(scores[chunk_id], 0.0)
            if gain > gains.get(key, (0.0, 0))[0]:
                gains[key] = (gain, cand.id)
    if not gains:
        return
    best_of_node = best_chunk_of_node(scores, details)
    for key, (gain, chunk_id) in gains.items():
        target = best_of_node.get(key, chunk_id)
        out[target] = out.get(target, 0.0) + gain


# A span of a candidate for ``neighbours``: start, end, node, parent node, whether the
# node is its file's own code (a window of a file or module), and the fused score.
_Span = tuple[int, int, int, int | None, bool, float]


def _related(a: _Span, b: _Span) -> bool:
    """Whether two nodes beside each other are members of one scope: siblings (one
    parent), parent and member (a Go struct and its method after it), or one is its
    file's own code; or the graph does not say (no parent). A member of a sibling type
    is not: it answers for its own type."""
    if a[4] or b[4] or a[3] is None or b[3] is None:
        return True
    return a[3] == b[3] or a[3] == b[2] or b[3] == a[2]


def _best_near(span: _Span, by_start: list[_Span], starts: list[int], by_end: list[_Span],
               ends: list[int], gap: int) -> float:
    """The best score among the spans (:data:`_Span`) of other nodes that start inside
    ``span`` and end inside it, or that are related to it (:func:`_related`) and start at
    most ``gap`` lines after it or end at most ``gap`` lines before it.
    ``by_start``/``by_end``: the file's spans sorted by start/end, ``starts``/``ends``
    their keys (for bisection)."""
    lo, hi, node = span[0], span[1], span[2]
    best = 0.0
    for other in by_start[bisect_left(starts, lo):bisect_right(starts, hi + gap)]:
        b_lo, b_hi, b_node = other[0], other[1], other[2]
        if b_node != node and (b_hi <= hi or (b_lo > hi and _related(span, other))):
            best = max(best, other[5])
    for other in by_end[bisect_left(ends, lo - gap):bisect_left(ends, lo)]:
        if other[2] != node and _related(span, other):
            best = max(best, other[5])
    return best


def neighbourhood(out: dict[int, float], scores: Mapping[int, float],
                  details: Mapping[int, Candidate], weight: float,
                  gap: int = NEIGHBOUR_GAP, beside: Mapping[int, float] | None = None
                  ) -> None:
    """Add to each code chunk ``weight`` x the best fused score (``scores``, before any
    boost) among the candidates of other nodes in its file that lie inside it or beside
    it (at most ``gap`` lines before or after) in its scope (in place in ``out``; see the
    module docstring). Only chunks the query matches count: the candidates, and
    ``beside``, the scored chunks next to them that were no candidates (they gain
    nothing)."""
    by_file: dict[tuple[str, str], dict[int, _Span]] = {}
    for chunk_id, score in [*scores.items(), *(beside or {}).items()]:
        cand = details[chunk_id]
        lo, hi = cand.chunk_line_start, cand.chunk_line_end
        if cand.file_path is None or cand.kind in DOCUMENT_KINDS or lo is None or hi is None:
            continue
        by_file.setdefault((cand.app, cand.file_path), {})[chunk_id] = (
            lo, hi, cand.node_id, cand.parent_id, cand.kind in _FILE_KINDS, max(score, 0.0))
    for spans in by_file.values():
        by_start = sorted(spans.values(), key=lambda s: s[0])
        by_end = sorted(spans.values(), key=lambda s: s[1])
        starts, ends = [s[0] for s in by_start], [s[1] for s in by_end]
        for chunk_id, span in spans.items():
            if chunk_id in scores:
                out[chunk_id] += weight * _best_near(span, by_start, starts, by_end, ends,
                                                     gap)


def coherence(scores: dict[int, float], details: Mapping[int, Candidate],
              weight: float) -> None:
    """Add to each file's best chunk ``weight`` x the file's summed score over the best
    file's, in units of the best score (in place)."""
    if not scores:
        return
    top = max(scores.values())
    if top <= 0:
        return
    total: dict[tuple[str, str | None], float] = {}
    best: dict[tuple[str, str | None], int] = {}
    for chunk_id, score in scores.items():
        cand = details[chunk_id]
        if cand.file_path is None or cand.kind in DOCUMENT_KINDS:
            continue  # a document's pages and sections are answers of their own
        key = (cand.app, cand.file_path)
        total[key] = total.get(key, 0.0) + max(score, 0.0)
        if key not in best or score > scores[best[key]]:
            best[key] = chunk_id
    if not total:
        return
    most = max(total.values()) or 1.0
    for key, chunk_id in best.items():
        scores[chunk_id] += top * weight * total[key] / most

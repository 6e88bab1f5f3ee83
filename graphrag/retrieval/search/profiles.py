"""How hybrid search ranks each kind of query (:mod:`graphrag.retrieval.search.intent`).

One table, so that what differs between a symbol, a question and a description of code
is in one place:

- a **symbol** (``APIRouter``) is matched lexically (its words are identifiers, which
  BM25 and the name signal match exactly and an embedding of one word barely places);
  the node that defines it leads; its kind says nothing against it; its hits come from
  several files;
- a **question** ("how does dependency injection work", "where is the route decided")
  is answered by the class or module where the behaviour lives as often as by one
  function (no kind priors), by the definitions of the names it asks about, by a run of
  adjacent methods as much as by one of them (each chunk is read with its neighbours),
  and across files;
- a **topic**, a phrase naming an area of the code ("boolean conversion and parsing
  helpers", "websocket endpoint implementation"), is answered by the files where it
  lives: no kind priors, chunks read with their neighbours, hits from several files;
  the identifiers it holds are mostly member names shared by many classes
  (``toString``, ``hashCode``), so they are not looked up, unless written qualified
  (``absl::StrSplit``, ``fmt::printf``): such a name points at one definition, as a
  name in a question does;
- a question or topic about where the program starts ("application startup and command
  line entrypoint") is answered by the code the parser marked as an entry point
  (:mod:`graphrag.parsing.entrypoints`), as a name is by its definition; a statement
  ("Parse the command line.") describes one function and gets none;
- a **statement** of what code does, as a doc comment says it ("Returns the content
  length of the request.", "BasicAuth returns a middleware") wants one function:
  members rank above whole types and files (kind priors), the names it mentions are
  usually its neighbours (a parameter's type, the function it wraps), not the answer,
  and its siblings in one file are its closest rivals, so a file may show five hits
  before the per-file decay and no chunk is lifted by its neighbours.

The weights were chosen on semble's benchmark (``benchmarks/semble.py``: symbols,
questions and short descriptions) and held against the docstring benchmark
(``benchmarks/retrieval.py``: long descriptions), whose macro MRR@10 may not drop by more
than 0.01; ``benchmarks/RESULTS.md`` has both.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Profile:
    """The weights of one kind of query. ``vector`` .. ``name``: the fused signals
    (:func:`graphrag.retrieval.search.fusion.score_fusion`); ``kind_priors``: whether the node
    kind priors apply (:mod:`graphrag.retrieval.search.priors`); ``definitions``,
    ``path_words``, ``coherence``: the boosts in units of the best score, ``neighbours``:
    in units of the best neighbour's score, ``value_types``: in units of a documented
    value's score, for the type it is declared with, ``see_also``: in units of a
    candidate's score, for what its doc comment refers to
    (:mod:`graphrag.retrieval.search.boosts`),
    ``qualified_definitions`` instead of ``definitions`` for a name written qualified
    when ``definitions`` is 0; ``entry_points``: the boost of a program's entry points
    when the query asks where the program starts;
    ``per_file``: hits of one file before the per-file decay
    (:func:`graphrag.retrieval.search.fusion.select`)."""

    vector: float = 1.0
    text: float = 1.0
    title: float = 1.3
    name: float = 0.5
    kind_priors: bool = True
    definitions: float = 0.0
    qualified_definitions: float = 0.0
    path_words: float = 0.5
    coherence: float = 0.2
    neighbours: float = 0.0
    entry_points: float = 0.0
    value_types: float = 0.0
    see_also: float = 0.0
    per_file: int = 5


DESCRIPTION = Profile()
PROFILES: dict[str, Profile] = {
    "symbol": Profile(vector=0.5, text=1.5, name=1.0, kind_priors=False, definitions=3.0,
                      per_file=1),
    "question": Profile(kind_priors=False, definitions=1.0, neighbours=0.2, value_types=0.5,
                        see_also=0.5, entry_points=2.0, per_file=1),
    "topic": Profile(kind_priors=False, qualified_definitions=1.0, neighbours=0.2,
                     value_types=0.5, see_also=0.5, entry_points=2.0, per_file=1),
    "text": DESCRIPTION,
}


def definition_weight(weights: Profile, name: str) -> float:
    """The definitions boost of a queried ``name`` (normalised: qualified names hold a
    dot) under ``weights``."""
    if weights.definitions > 0:
        return weights.definitions
    return weights.qualified_definitions if "." in name else 0.0


def profile(kind: str, intent_on: bool = True) -> Profile:
    """The profile of a kind of query (``symbol``, ``question``, ``topic``, ``text``);
    with the ``intent`` signal off every query is ranked as a statement (``text``)."""
    return PROFILES[kind] if intent_on else DESCRIPTION

"""Ranking priors: what kind of answer a code search usually wants.

A hit's score is multiplied by the prior of its node kind, by ``TEST_PRIOR`` when its
file is test code, by the prior of each other role its path has (examples, benchmarks,
vendored, generated, compatibility shims, declarations, hidden folders:
:mod:`graphrag.parsing.pathroles`) and by ``DOCUMENT_PRIOR`` when it is a document:

- members (functions, methods, constructors, endpoints) are what people ask about: 1.0;
- types (class, interface, enum, object) compete with their own members: a whole-class
  chunk rarely answers a description of one behaviour;
- fields, files and modules hold declarations and imports rather than behaviour;
- test code exercises the function asked about and repeats its words, so it must not
  outrank it, unless the query or the ``--path`` filter asks for tests (likewise for the
  other roles);
- a document explains code, in a code search the code is the answer.

The kind priors were chosen on ``benchmarks/retrieval.py`` (doc-comment sentences as
queries; werkzeug, click and gin, strict MRR@10 macro: 0.561 with no priors, 0.627 with
types at 0.85 and fields/files at 0.7, 0.639 with the values here). Symbol queries and
questions keep no kind prior (:mod:`graphrag.retrieval.search.profiles`); that, the test,
document and role priors were chosen on semble's benchmark (``benchmarks/semble.py``; see
``benchmarks/RESULTS.md``). ``SearchOptions`` ``priors=False`` (CLI ``--no-priors``)
switches all of them off.
"""

from __future__ import annotations

from graphrag.kinds import DOCUMENT_KINDS
from graphrag.parsing import pathroles
from graphrag.parsing.pathroles import asked_roles, is_package_front, path_roles
from graphrag.retrieval.search.model import Candidate, SearchOptions

KIND_PRIORS: dict[str, float] = {
    "FUNCTION": 1.0, "METHOD": 1.0, "CONSTRUCTOR": 1.0, "ENDPOINT": 1.0,
    "CLASS": 0.6, "INTERFACE": 0.6, "ENUM": 0.6, "OBJECT": 0.6,
    "FIELD": 0.4, "FILE": 0.4, "MODULE": 0.4, "PACKAGE": 0.4, "REPOSITORY": 0.4,
}
TEST_PRIOR = 0.3
DOCUMENT_PRIOR = 0.5
# Code that is not the library itself (signal ``paths``; roles in
# graphrag.parsing.pathroles): a question is answered where the behaviour is implemented,
# not where it is shown, measured, copied or generated.
ROLE_PRIORS: dict[str, float] = {
    pathroles.EXAMPLE: 0.3, pathroles.BENCHMARK: 0.5, pathroles.VENDORED: 0.3,
    pathroles.GENERATED: 0.3, pathroles.COMPAT: 0.5, pathroles.DECLARATION: 0.7,
    pathroles.HIDDEN: 0.3,
}
# A package front file's own chunk (its imports and re-exports, not a symbol defined in
# it: those keep their prior).
FRONT_FILE_PRIOR = 0.5
_FILE_KINDS = frozenset({"FILE", "MODULE", "PACKAGE"})
# A file's documentation chunk (a Rust module's ``//!`` docs) describes what the whole
# module does, as a type's does: ranked like a type, not like a file's imports.
MODULE_DOC_PRIOR = KIND_PRIORS["CLASS"]


def wanted_roles(query: str, options: SearchOptions) -> frozenset[str]:
    """The path roles the query or the path filter asks for: not demoted."""
    wanted = asked_roles(query)
    if options.path:
        wanted |= asked_roles(options.path.replace("*", " "))
        wanted |= path_roles(options.path.replace("**", "x"))
    return wanted


def wants_tests(query: str, options: SearchOptions) -> bool:
    """Whether the query or the path filter asks for test code."""
    return pathroles.TEST in wanted_roles(query, options)


def left_out(candidate: Candidate, options: SearchOptions, wanted: frozenset[str]) -> bool:
    """Whether a default search leaves the candidate out: a document (not code) in a
    hidden tool folder (``.github/``, ``.agents/``) or a vendored tree, unless a source
    is named (``doc`` or ``all``) or the query or path filter asks for such paths."""
    if options.source is not None or candidate.kind not in DOCUMENT_KINDS:
        return False
    roles = path_roles(candidate.file_path) - wanted
    return pathroles.HIDDEN in roles or pathroles.VENDORED in roles


def prior(candidate: Candidate, wanted: frozenset[str] | bool = frozenset(),
          paths: bool = True, kinds: bool = True,
          superseded: frozenset[str] = frozenset(), defines: bool = False) -> float:
    """The multiplier of one candidate's score (1.0 = neutral). ``wanted``: the roles
    asked for (:func:`wanted_roles`; a bool says whether tests are); ``paths``: apply
    the role priors beside the kind and test priors; ``kinds``: apply the kind priors
    (the query's profile says, :mod:`graphrag.retrieval.search.profiles`); ``superseded``:
    version folders a newer sibling replaces (``src/v3/`` beside ``src/v4/``, see
    :func:`graphrag.parsing.pathroles.superseded_versions`), ranked as compatibility
    code; ``defines``: the candidate is a chunk of a node defining a name the query asks
    for (a front file publishing it keeps its score: there the name is found)."""
    if isinstance(wanted, bool):
        wanted = frozenset({pathroles.TEST}) if wanted else frozenset()
    module_doc = candidate.kind in _FILE_KINDS and candidate.source == "doc"
    factor = (MODULE_DOC_PRIOR if module_doc else KIND_PRIORS.get(candidate.kind, 1.0)) \
        if kinds else 1.0
    if candidate.kind in DOCUMENT_KINDS:
        return factor * DOCUMENT_PRIOR
    roles = path_roles(candidate.file_path) - wanted
    if pathroles.TEST in roles:
        factor *= TEST_PRIOR
    if paths:
        for role in roles:
            factor *= ROLE_PRIORS.get(role, 1.0)
        if candidate.kind in _FILE_KINDS and not module_doc and not defines \
                and is_package_front(candidate.file_path):
            factor *= FRONT_FILE_PRIOR
        if (superseded and pathroles.COMPAT not in wanted and candidate.file_path
                and candidate.file_path.startswith(tuple(superseded))):
            factor *= ROLE_PRIORS[pathroles.COMPAT]
    return factor

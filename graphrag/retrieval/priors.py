"""Ranking priors: what kind of answer a code search usually wants.

A hit's score is multiplied by the prior of its node kind and by ``TEST_PRIOR`` when its
file is test code. The values were chosen on ``benchmarks/retrieval.py`` (real code
bases, natural-language queries; see the README):

- members (functions, methods, constructors, endpoints) are what people ask about: 1.0;
- types (class, interface, enum, object) compete with their own members: a whole-class
  chunk rarely answers a question about one behaviour;
- fields, files and modules hold declarations and imports rather than behaviour;
- test code exercises the function asked about and repeats its words, so it must not
  outrank it, unless the query or the ``--path`` filter asks for tests.

On the benchmark's werkzeug, click and gin (strict MRR@10, macro) the hybrid mode scores
0.561 with no priors, 0.627 with types at 0.85 and fields/files at 0.7, and 0.639 with
the values here; the test prior is not measured there (the benchmark's copies hold no
tests). Documents (DOCUMENT, PAGE, SECTION) and kinds not listed keep 1.0. ``SearchOptions``
``priors=False`` (CLI ``--no-priors``) switches all of them off.
"""

from __future__ import annotations

import re

from graphrag.parsing.testpaths import is_test_path
from graphrag.retrieval.model import Candidate, SearchOptions

KIND_PRIORS: dict[str, float] = {
    "FUNCTION": 1.0, "METHOD": 1.0, "CONSTRUCTOR": 1.0, "ENDPOINT": 1.0,
    "CLASS": 0.6, "INTERFACE": 0.6, "ENUM": 0.6, "OBJECT": 0.6,
    "FIELD": 0.4, "FILE": 0.4, "MODULE": 0.4, "PACKAGE": 0.4, "REPOSITORY": 0.4,
}
TEST_PRIOR = 0.7

_ASKS_FOR_TESTS = re.compile(r"\b(tests?|testing|tested|unit ?tests?|spec|specs|fixtures?)\b",
                             re.IGNORECASE)


def wants_tests(query: str, options: SearchOptions) -> bool:
    """Whether the query or the path filter asks for test code."""
    if _ASKS_FOR_TESTS.search(query):
        return True
    return bool(options.path) and is_test_path(options.path.replace("**", "x"))


def prior(candidate: Candidate, tests_wanted: bool) -> float:
    """The multiplier of one candidate's score (1.0 = neutral)."""
    factor = KIND_PRIORS.get(candidate.kind, 1.0)
    if not tests_wanted and candidate.source == "code" and is_test_path(candidate.file_path):
        factor *= TEST_PRIOR
    return factor

"""A query of the form "X for Y" seeks X; Y says what X is for ("case-insensitive hash for
request params" wants the hash, not ``Request#params``). A symbol whose name the query
uses only in its purpose clause gets half the name signal
(:func:`graphrag.retrieval.search.intent.subject`)."""

from __future__ import annotations

import os

import pytest
from sqlalchemy import text

from graphrag.retrieval.search.engine import search
from graphrag.retrieval.search.intent import subject
from graphrag.retrieval.search.model import SearchOptions
from graphrag.retrieval.search.signals import PURPOSE_WEIGHT, candidate_signals
from tests.conftest import indexed_folder, scope_of

FOLDED = '''
class FoldedKeyDict(dict):
    """A case-insensitive dict: its keys compare without regard to case, so that
    "Content-Type" and "content-type" are one key. Used for the headers of a request,
    whose names HTTP does not distinguish by case."""

    def __getitem__(self, key):
        """The value of a key, whatever the case it is written in."""
        return super().__getitem__(key.lower())

    def __setitem__(self, key, value):
        """Store a value under the key folded to lower case."""
        super().__setitem__(key.lower(), value)

    def __contains__(self, key):
        """Whether the dict holds the key in any case."""
        return super().__contains__(key.lower())
'''
REQUEST = '''
class Request:
    """An incoming HTTP request: its method, path, query string and body."""

    def __init__(self, environ):
        self.environ = environ

    def headers(self):
        """The headers of this request, as the server received them."""
        return {k[5:]: v for k, v in self.environ.items() if k.startswith("HTTP_")}
'''
# Other modules of the package, so that the signals are scaled over a realistic spread.
OTHER = '''
def read_{topic}(environ):
    """Read the {topic} of a request from its WSGI environment."""
    return environ.get("{topic}")
'''
QUERY = "case-insensitive dict for request headers"


@pytest.mark.parametrize("query, expected", [
    ("case-insensitive hash for request params", "case-insensitive hash"),
    ("WebSocket adapter for real-time subscriptions", "WebSocket adapter"),
    ("how validators are plugged in for struct binding", "how validators are plugged in"),
    ("request logging middleware", "request logging middleware"),
    ("for loops over ranges", "for loops over ranges"),  # nothing sought before "for"
    ("url_for", "url_for"),
    ("Return the URL for the endpoint.", "Return the URL"),
])
def test_the_subject_is_what_comes_before_for(query: str, expected: str) -> None:
    assert subject(query) == expected


@pytest.fixture(scope="module")
def purpose_app(tmp_path_factory: pytest.TempPathFactory, db_url, models_dir):
    root = tmp_path_factory.mktemp("purpose")
    (root / "web").mkdir()
    (root / "web" / "folded.py").write_text(FOLDED)
    (root / "web" / "request.py").write_text(REQUEST)
    for topic in ("cookies", "sessions", "routing", "templates", "uploads", "logging"):
        (root / "web" / f"{topic}.py").write_text(OTHER.format(topic=topic))
    with indexed_folder(root, f"purpose{os.getpid()}", db_url, models_dir) as name:
        yield name


def _name_match(engine, app: str, fqn: str, query: str, embedder) -> float:
    scope = scope_of(engine, app)
    with engine.connect() as conn:
        ids = conn.execute(text(
            "SELECT c.id FROM chunks c JOIN nodes n ON n.id = c.node_id"
            " WHERE n.fqn = :f AND c.source = 'code' AND c.application_id = ANY(:a)"),
            {"f": fqn, "a": list(scope.app_ids)}).scalars().all()
        assert ids, fqn
        signals = candidate_signals(conn, scope.app_ids, ids, query,
                                    embedder.encode([query])[0])
    return max(signals.name_match[i] for i in ids)


def test_a_name_used_only_in_the_purpose_counts_half(engine, purpose_app, embedder) -> None:
    headers = "web.request.Request.headers"
    assert PURPOSE_WEIGHT < 1.0
    assert _name_match(engine, purpose_app, headers, QUERY, embedder) == \
        pytest.approx(PURPOSE_WEIGHT)
    # The same words as what is sought count in full.
    assert _name_match(engine, purpose_app, headers, "request headers", embedder) == 1.0
    assert _name_match(engine, purpose_app, headers,
                       "request headers for a case-insensitive dict", embedder) == 1.0


def test_what_is_sought_outranks_the_member_named_like_its_purpose(
        engine, purpose_app, embedder) -> None:
    hits = search(scope_of(engine, purpose_app), QUERY, SearchOptions(), embedder).hits
    assert hits[0]["fqn"].startswith("web.folded.FoldedKeyDict"), \
        [h["fqn"] for h in hits]

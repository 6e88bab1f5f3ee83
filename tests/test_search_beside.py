"""The neighbours signal reads the chunks beside the candidates, not only the candidates:
they are found in the index, scored with the candidates' scaling, and never become hits."""

from __future__ import annotations

from dataclasses import replace

import pytest
from sqlalchemy import text

from graphrag.retrieval.search.beside import beside_candidates
from graphrag.retrieval.search.boosts import NEIGHBOUR_GAP, boost
from graphrag.retrieval.search.fusion import score_fusion
from graphrag.retrieval.search.intent import understand
from graphrag.retrieval.search.model import SearchOptions
from graphrag.retrieval.search.profiles import PROFILES
from graphrag.retrieval.search.rows import load_candidates
from graphrag.retrieval.search.signals import candidate_signals
from tests.search_seed import seed_app
from tests.test_search_ranking import _cand


def test_a_chunk_is_lifted_by_a_neighbour_that_is_no_candidate() -> None:
    # `build` matches best; `new`, just above it, matches too but was not among the
    # candidates; `use`, far away, is no neighbour. Only candidates come out.
    build = _cand(1, "base.rb", kind="METHOD", lines=(1670, 1676))
    rival = _cand(2, "base.rb", kind="METHOD", lines=(1819, 1828))
    beside = {3: _cand(3, "base.rb", kind="METHOD", lines=(1662, 1665), score=0.5),
              4: _cand(4, "base.rb", kind="METHOD", lines=(1584, 1587), score=0.9)}
    details = {1: build, 2: rival, **beside}
    scores = {1: 1.0, 2: 1.05}
    query = "how the middleware stack is assembled"
    only = ("path-words", "coherence")
    boosted = boost(scores, details, query, understand(query), {}, disabled=only,
                    beside={i: c.score for i, c in beside.items()})
    assert set(boosted) == {1, 2}
    assert boosted[1] == pytest.approx(1.0 + 0.2 * 0.5) and boosted[1] > boosted[2]
    assert boosted[2] == scores[2]
    assert boost(scores, details, query, understand(query), {}, disabled=only) == scores


def test_extra_chunks_are_scaled_by_the_candidates_range_and_move_none_of_them() -> None:
    keys = ["a", "b"]
    sim = {"a": 0.8, "b": 0.5, "x": 0.65, "y": 0.1}
    bm25 = {"a": 4.0, "b": 0.0, "x": 2.0}
    title = {"a": 0.7, "b": 0.4, "x": 0.9, "y": 0.2}
    names = {"x": 1.0}
    alone = score_fusion(keys, sim, bm25, title, names)
    both = score_fusion(keys, sim, bm25, title, names, extra=["x", "y"])
    assert {k: both[k] for k in keys} == alone  # the candidates' scores do not move
    # x: half the candidates' vector and BM25 ranges, a title above their best (clipped)
    assert both["x"] == pytest.approx(0.5 + 0.5 + 1.3 * 1.0 + 0.5 * 1.0 + 1e-3)
    assert both["y"] == pytest.approx(1e-3)  # below every range: nothing, not less


def test_beside_candidates_are_the_chunks_next_to_a_candidate(engine, app_name,
                                                              embedder) -> None:
    seeded = seed_app(engine, app_name)
    apps = {seeded.app_id: app_name}
    query = "remove a user account"
    vector = embedder.encode([query])[0]
    plans = {seeded.chunks[k]: k for k in ("delete_user:code:snippet",
                                           "get_user:code:snippet:0",
                                           "get_user:code:snippet:1",
                                           "repo_find:code:snippet")}
    with engine.begin() as conn:
        ids = dict(conn.execute(text("SELECT plan_id, id FROM chunks WHERE plan_id = ANY(:p)"),
                                {"p": list(plans)}).all())
        key = {plans[p]: i for p, i in ids.items()}
        # The only candidate: delete_user (lines 20-30 of app/users.py).
        details = load_candidates(conn, apps, [key["delete_user:code:snippet"]])
        signals = candidate_signals(conn, [seeded.app_id], list(details), query, vector)
        signals = replace(signals, profile=PROFILES["question"])
        found = beside_candidates(conn, apps, query, vector, details, signals, list(details),
                                  SearchOptions(), NEIGHBOUR_GAP)
        filtered = beside_candidates(conn, apps, query, vector, details, signals,
                                     list(details), SearchOptions(path="app/api/**"),
                                     NEIGHBOUR_GAP)
    # get_user's two parts end at line 18, within the gap before 20; find_by_id is in
    # another file; the class around both is no neighbour and the candidate is not its own.
    assert set(found) == {key["get_user:code:snippet:0"], key["get_user:code:snippet:1"]}
    assert all(c.score > 0 and c.file_path == "app/users.py" for c in found.values())
    assert filtered == {}  # the search's filters hold for neighbours too


def test_a_neighbour_is_read_in_the_candidates_own_application(engine, app_name,
                                                               embedder) -> None:
    """Two applications of one search hold the same file: the chunks beside a
    candidate of the first are the first's only."""
    first = seed_app(engine, app_name)
    other = f"{app_name}_twin"
    second = seed_app(engine, other)
    try:
        apps = {first.app_id: app_name, second.app_id: other}
        query = "remove a user account"
        vector = embedder.encode([query])[0]
        with engine.begin() as conn:
            ids = dict(conn.execute(text(
                "SELECT plan_id, id FROM chunks WHERE plan_id = ANY(:p)"),
                {"p": [first.chunks["delete_user:code:snippet"],
                       first.chunks["get_user:code:snippet:0"],
                       first.chunks["get_user:code:snippet:1"]]}).all())
            details = load_candidates(conn, apps, [ids[first.chunks["delete_user:code:snippet"]]])
            signals = candidate_signals(conn, list(apps), list(details), query, vector)
            signals = replace(signals, profile=PROFILES["question"])
            found = beside_candidates(conn, apps, query, vector, details, signals,
                                      list(details), SearchOptions(), NEIGHBOUR_GAP)
        assert set(found) == {ids[first.chunks["get_user:code:snippet:0"]],
                              ids[first.chunks["get_user:code:snippet:1"]]}
        assert {c.app for c in found.values()} == {app_name}
    finally:
        with engine.begin() as conn:
            conn.execute(text("DELETE FROM applications WHERE name = :n"), {"n": other})

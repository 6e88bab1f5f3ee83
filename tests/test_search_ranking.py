"""Search ranking from what the graph and the file tree know: a symbol query finds the
node that defines the name first (also when neither ranked list found it), library code
ranks above examples, benchmarks and front files, one file cannot fill the page, and
Markdown in hidden tool folders stays out of code search unless asked for."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from sqlalchemy import text

from graphrag.config import load_settings
from graphrag.parsing.pathroles import superseded_versions
from graphrag.retrieval.search.boosts import boost, words_match
from graphrag.retrieval.search.definitions import (
    SUPERTYPE_SHARE,
    Definition,
    definitions,
    spellings,
)
from graphrag.retrieval.search.engine import (
    rank_candidates,
    search,
    set_ef_search,
    text_candidates,
    vector_candidates,
)
from graphrag.retrieval.search.fusion import select
from graphrag.retrieval.search.intent import QueryIntent, understand
from graphrag.retrieval.search.model import SIGNALS, Candidate, SearchOptions
from graphrag.retrieval.search.priors import left_out, prior, wanted_roles
from tests.conftest import run_cli, scope_of


def _cand(i: int, path: str, kind: str = "FUNCTION", node: int | None = None,
          score: float = 0.0, lines: tuple[int, int] = (1, 5)) -> Candidate:
    return Candidate(id=i, plan_id=f"p{i}", node_id=node if node is not None else i, app="a",
                     fqn=f"f{i}", kind=kind, source="code", chunk_kind="snippet",
                     file_path=path, line_start=lines[0], line_end=lines[1],
                     page_number=None, rank_boost=1.0, content="", explain_md=None,
                     score=score, chunk_line_start=lines[0], chunk_line_end=lines[1])


# --- query intent ------------------------------------------------------------------------

@pytest.mark.parametrize("query, names", [
    ("APIRouter", ("APIRouter",)),
    ("click.Context.invoke", ("click.Context.invoke",)),
    ("Sinatra::Base", ("Sinatra.Base",)),
    ("field_validator", ("field_validator",)),
    ("__init__", ("__init__",)),
    ("URL", ("URL",)),
    ("safeParse()", ("safeParse",)),
])
def test_a_bare_or_qualified_identifier_is_a_symbol_query(query, names) -> None:
    intent = understand(query)
    assert intent.symbol and intent.kind == "symbol" and intent.names == names


@pytest.mark.parametrize("query, names, kind", [
    ("session", (), "topic"),
    ("boolean conversion and parsing helpers", (), "topic"),
    ("parse the multipart body", (), "topic"),
    ("Parse the multipart body.", (), "text"),
    ("Returns the content length of the request", (), "text"),
    ("BasicAuth returns a Basic HTTP Authorization middleware",
     ("BasicAuth", "Basic", "Authorization"), "text"),
    ("how Monad composes effects with flatMap?", ("flatMap", "Monad"), "question"),
    ("Sessions: how Sinatra::Application configures Base", ("Sinatra.Application", "Base"),
     "topic"),
    ("how does dependency injection work", (), "question"),
    ("how does safeParse report errors", ("safeParse",), "question"),
    ("where is HTTPException turned into a response", ("HTTPException",), "question"),
    ("add_api_route copies the dependencies of a ZodType", ("add_api_route", "ZodType"),
     "text"),
    ("is the pool shared between threads?", (), "question"),
])
def test_a_sentence_is_a_question_a_statement_or_a_topic(query, names, kind) -> None:
    intent = understand(query)
    assert not intent.symbol and intent.kind == kind and intent.names == names


def test_runs_longer_than_an_identifier_are_not_taken_for_names() -> None:
    hostile = "aA" * 5000 + "!"  # a pattern with a split point per capital
    assert understand(hostile) == QueryIntent(False, (), question=False, statement=False)
    long_name = "getUser" + "Name" * 60  # 247 characters: longer than any identifier
    assert not understand(long_name).symbol and understand(long_name).names == ()
    assert understand(f"where is {long_name} set").names == ()
    assert understand("fooBar " * 1500).names == ("fooBar",)


def test_a_name_is_also_looked_up_in_its_internal_dollar_spelling() -> None:
    assert spellings("ZodType") == ("ZodType", "$ZodType")
    assert spellings("$constructor") == ("$constructor",)


# --- ranking, pure ------------------------------------------------------------------------

def test_the_defining_node_leads_even_when_no_ranked_list_found_it() -> None:
    users = [_cand(i, f"app/use_{i}.py") for i in range(1, 6)]
    details = {c.id: c for c in users}
    vec = [(c.id, 0.9 - c.id / 100) for c in users]
    txt = [(c.id, 9.0 - c.id / 10) for c in users]
    definition = _cand(99, "lib/registry.py", kind="CLASS")
    defined = {99: Definition(definition, "WidgetRegistry")}
    ranked = rank_candidates("hybrid", vec, txt, dict(details), "WidgetRegistry",
                             SearchOptions(), None, defined)
    assert ranked[0].id == 99
    off = rank_candidates("hybrid", vec, txt, dict(details), "WidgetRegistry",
                          SearchOptions(disabled=("definitions",)), None, defined)
    assert 99 not in [c.id for c in off]


def test_further_chunks_of_one_file_are_decayed() -> None:
    a = [_cand(i, "a.py", score=s, lines=(i * 10, i * 10 + 5))
         for i, s in ((1, 1.0), (2, 0.9), (3, 0.8))]
    b = _cand(4, "b.py", score=0.6)
    order = [c.id for c in select([*a, b], limit=4, per_file=1)]
    assert order == [1, 4, 2, 3]  # 0.9 * 0.5 = 0.45 < 0.6
    assert [c.id for c in select([*a, b], limit=4, per_file=2)] == [1, 2, 4, 3]
    assert [c.id for c in select([*a, b], limit=4, per_file=0)] == [1, 2, 3, 4]


def test_path_words_lift_the_file_named_like_the_query() -> None:
    a, b = _cand(1, "model2vec/model.py"), _cand(2, "model2vec/quantization.py")
    details = {1: a, 2: b}
    scores = {1: 1.0, 2: 0.9}
    boosted = boost(scores, details, "quantize", understand("quantize"), {},
                    disabled=("coherence",))
    assert boosted[2] > boosted[1]
    plain = boost(scores, details, "quantize", understand("quantize"), {},
                  disabled=("coherence", "path-words"))
    assert plain == scores
    assert words_match("dependency", "dependencies") and words_match("token", "tokenizer")
    assert not words_match("route", "router_group") or words_match("route", "router")
    assert not words_match("model", "module")


def test_coherence_lifts_the_file_with_several_strong_members() -> None:
    members = [_cand(i, "routing.py", node=i) for i in (1, 2, 3)]
    single = _cand(4, "applications.py")
    details = {c.id: c for c in [*members, single]}
    scores = {1: 0.8, 2: 0.7, 3: 0.7, 4: 0.85}
    boosted = boost(scores, details, "how are routes registered",
                    understand("how are routes registered"), {},
                    disabled=("path-words", "neighbours"))
    assert boosted[1] > boosted[4]  # routing.py's best member now leads
    assert boosted[2] == scores[2]  # only a file's best chunk gains


def test_a_run_of_adjacent_matching_methods_outranks_a_lone_match() -> None:
    # A large class of small methods: `before`, `after` and `add_filter` sit together
    # and all match "before and after filter hooks"; `filter!`, 400 lines up, matches
    # best alone.
    lone = _cand(1, "base.rb", kind="METHOD", lines=(1055, 1061))
    run = [_cand(i, "base.rb", kind="METHOD", lines=lines)
           for i, lines in ((2, (1486, 1488)), (3, (1493, 1495)), (4, (1498, 1500)))]
    far = _cand(5, "base.rb", kind="METHOD", lines=(1700, 1710))
    other = _cand(6, "other.rb", kind="METHOD", lines=(1490, 1492))
    details = {c.id: c for c in [lone, *run, far, other]}
    scores = {1: 1.0, 2: 0.9, 3: 0.85, 4: 0.8, 5: 0.95, 6: 0.95}
    query = "before and after filter hooks"
    only = ("path-words", "coherence")
    boosted = boost(scores, details, query, understand(query), {}, disabled=only)
    assert boosted[2] > boosted[1]  # the run's best member now leads
    assert boosted[3] > boosted[4] > scores[4]  # each gains its best neighbour's share
    assert boosted[1] == scores[1]  # nothing matching beside it
    assert boosted[6] == scores[6]  # another file's lines are no neighbours
    off = boost(scores, details, query, understand(query), {},
                disabled=(*only, "neighbours"))
    assert off == scores
    # A statement of what one function does: its siblings are its rivals, not support.
    statement = "Runs the before and after filters of the class."
    assert boost(scores, details, statement, understand(statement), {},
                 disabled=only) == scores


def test_a_class_gains_from_its_best_member_but_not_from_its_own_parts() -> None:
    cls = _cand(1, "logger.rb", kind="CLASS", node=1, lines=(7, 19))
    member = _cand(2, "logger.rb", kind="METHOD", node=2, lines=(12, 18))
    part = _cand(3, "logger.rb", kind="CLASS", node=1, lines=(7, 11))
    doc = _cand(4, "logger.rb", kind="SECTION", lines=(1, 30))
    details = {c.id: c for c in [cls, member, part, doc]}
    scores = {1: 0.7, 2: 0.9, 3: 0.6, 4: 0.8}
    query = "request logging middleware"
    boosted = boost(scores, details, query, understand(query), {},
                    disabled=("path-words", "coherence"))
    assert boosted[1] > scores[1]  # its method inside it
    assert boosted[3] == scores[3] + 0.2 * scores[2]  # beside the method, not part of it
    assert boosted[4] == scores[4]  # a document's sections are answers of their own


def test_neighbours_beside_a_chunk_count_only_in_its_scope() -> None:
    # struct HashSelect { struct Probe { ... bool value; }; using Apply = ...; };
    # `value` matches the question best; it answers for `Probe`, its own type, not for
    # the alias after it. `Probe` itself, a sibling of `Apply`, still lifts it; a Go
    # struct gains from its method after it (parent and member).
    def member(i: int, kind: str, lines: tuple[int, int], parent: int, path: str = "hash.h"
               ) -> Candidate:
        cand = _cand(i, path, kind=kind, lines=lines)
        cand.parent_id = parent
        return cand

    probe = member(11, "CLASS", (1355, 1366), parent=10)
    value = member(12, "FIELD", (1364, 1364), parent=11)
    alias = member(13, "CLASS", (1370, 1377), parent=10)
    struct = member(21, "CLASS", (10, 14), parent=20, path="mux.go")
    method = member(22, "METHOD", (16, 30), parent=21, path="mux.go")
    details = {c.id: c for c in [probe, value, alias, struct, method]}
    query = "how are hashes probed"
    only = ("path-words", "coherence")
    scores = {12: 0.9, 13: 0.8, 21: 0.5, 22: 0.9}
    boosted = boost(scores, details, query, understand(query), {}, disabled=only)
    assert boosted[13] == scores[13]  # a member of the sibling type Probe
    assert boosted[21] == scores[21] + 0.2 * scores[22]  # its method beside it
    with_probe = boost({**scores, 11: 0.6}, details, query, understand(query), {},
                       disabled=only)
    assert with_probe[13] == scores[13] + 0.2 * 0.6  # the sibling type itself
    assert with_probe[11] == 0.6 + 0.2 * scores[12]  # its own field inside it


def test_an_interfaces_implementations_share_its_definition_boost() -> None:
    iface, impl, other = (_cand(1, "chi.go", kind="INTERFACE"), _cand(2, "mux.go", kind="CLASS"),
                          _cand(3, "tree.go"))
    details = {3: other}
    defined = {1: Definition(iface, "Router"), 2: Definition(impl, "Router", 0.5)}
    boosted = boost({3: 1.0}, details, "Router", understand("Router"), defined,
                    disabled=("coherence", "path-words"))
    assert boosted[1] > boosted[2] > boosted[3]


@pytest.mark.parametrize("path", ["examples/basic.py", "docs_src/tutorial/app.py",
                                  "benchmarks/bench_parse.py", "vendor/lib/x.go",
                                  "src/_compat.py", "types/index.d.ts", "api_pb2.py",
                                  "tests/test_app.py", "src/app_test.go"])
def test_library_code_outranks_tests_examples_benchmarks_vendored_generated(path) -> None:
    assert prior(_cand(1, path), wanted_roles("parse the header", SearchOptions())) \
        < prior(_cand(2, "src/app/parser.py"), frozenset()) == 1.0


def test_an_older_version_folder_ranks_below_its_newer_sibling() -> None:
    old, new = (_cand(1, "src/v3/types.ts", kind="CLASS"),
                _cand(2, "src/v4/schemas.ts", kind="CLASS"))
    assert superseded_versions(["src/v3/types.ts", "src/v4/schemas.ts", "api/v1/x.go"]) \
        == frozenset({"src/v3/"})
    gone = superseded_versions([old.file_path, new.file_path])
    assert prior(old, frozenset(), superseded=gone) < prior(new, frozenset(), superseded=gone)
    # Asked for ("the v3 compatibility layer"), the old version is not demoted.
    assert prior(old, wanted_roles("v3 compatibility errors", SearchOptions()),
                 superseded=gone) == prior(new, frozenset(), superseded=gone)


def test_a_role_the_query_or_path_filter_asks_for_is_not_demoted() -> None:
    example = _cand(1, "examples/basic.py")
    assert prior(example, wanted_roles("an example of a basic app", SearchOptions())) == 1.0
    assert prior(example, wanted_roles("basic app", SearchOptions(path="examples/**"))) == 1.0
    assert prior(example, wanted_roles("basic app", SearchOptions()), paths=False) == 1.0


def test_a_front_files_own_chunk_is_demoted_not_what_it_defines() -> None:
    wanted = frozenset()
    assert prior(_cand(1, "pkg/__init__.py", kind="MODULE"), wanted) \
        < prior(_cand(2, "pkg/core.py", kind="MODULE"), wanted)
    assert prior(_cand(3, "pkg/__init__.py"), wanted) == 1.0


def test_hidden_and_vendored_documents_are_left_out_unless_asked_for() -> None:
    doc = _cand(1, ".agents/skills/di.md", kind="SECTION")
    assert left_out(doc, SearchOptions(), frozenset())
    assert not left_out(doc, SearchOptions(source="all"), frozenset())
    assert not left_out(doc, SearchOptions(source="doc"), frozenset())
    assert not left_out(_cand(2, "docs/di.md", kind="SECTION"), SearchOptions(), frozenset())
    assert not left_out(_cand(3, ".github/scripts/x.py"), SearchOptions(), frozenset())


# --- against the database, on a repository indexed end to end --------------------------

USES = 100
REGISTRY = '''
from lib.base import Versioned
from other.sized import Sized


class WidgetRegistry(Versioned, Sized):
    """Keeps the named components of a screen in insertion order: lookups by key,
    replacement of an entry, removal, iteration over entries, and a count of entries,
    for layouts that are rebuilt after every resize of the window."""

    def __init__(self):
        self.entries = {}
        self.order = []
'''
BASE = '''
class Versioned:
    """Holds a version number that grows by one on every change."""

    def bump(self):
        self.version = getattr(self, "version", 0) + 1
'''
SIZED = '''
class Sized:
    """Something with a length."""
'''
USER = '''
from lib.core import WidgetRegistry


def use_widget_registry_{i}(widget_registry: WidgetRegistry) -> WidgetRegistry:
    """Fill a WidgetRegistry: WidgetRegistry WidgetRegistry WidgetRegistry."""
    first = WidgetRegistry()
    second = WidgetRegistry()
    return widget_registry or first or second
'''
INJECTION = '''
def solve_dependencies(request, dependant):
    """Resolve the dependencies a path operation declares, calling each dependency and
    injecting its result into the endpoint's parameters."""
    return {{name: call(request) for name, call in dependant.items()}}
'''
LEDGER = '''
class Ledger:
    """Keeps the balances of the accounts in the order they were opened."""

    def __init__(self):
        self.balances = {}
'''
LEDGER_USE = '''
def ledger_records_entries_{i}(entries):
    """How a ledger records entries: records entries, entries recorded, ledger entries."""
    return [entry for entry in entries if entry]
'''
HIDDEN_DOC = """# How dependency injection works

Dependency injection resolves the dependencies each endpoint declares: dependency
injection calls every dependency and injects the result. Dependency injection works by
resolving dependencies, injecting dependencies, dependency injection everywhere.
"""


@pytest.fixture(scope="module")
def ranked_app(db_url, models_dir):
    from graphrag.db.engine import get_engine

    root = Path(tempfile.mkdtemp(prefix="graphrag-rank-"))
    (root / "lib").mkdir()
    (root / "lib" / "core.py").write_text(REGISTRY)
    (root / "lib" / "base.py").write_text(BASE)
    (root / "other").mkdir()
    (root / "other" / "sized.py").write_text(SIZED)
    (root / "lib" / "dependencies.py").write_text(INJECTION.format())
    (root / "examples").mkdir()
    (root / "examples" / "dependencies_demo.py").write_text(
        INJECTION.format().replace("solve_dependencies", "demo_solve_dependencies"))
    (root / "uses").mkdir()
    # More uses than a ranked list holds (40), each naming the class more often than
    # its definition does: BM25 and the vectors rank the uses first.
    for i in range(USES):
        (root / "uses" / f"use_{i}.py").write_text(USER.format(i=i))
    (root / "lib" / "ledger.py").write_text(LEDGER)
    for i in range(12):
        (root / "uses" / f"ledger_use_{i}.py").write_text(LEDGER_USE.format(i=i))
    (root / ".agents" / "skills").mkdir(parents=True)
    (root / ".agents" / "skills" / "di.md").write_text(HIDDEN_DOC)
    env = {"GRAPHRAG_DATABASE_URL": db_url, "GRAPHRAG_HOME": str(root / ".home"),
           "GRAPHRAG_MODELS_DIR": str(models_dir)}
    name = f"rank{os.getpid()}"
    proc = run_cli("index", str(root), "--app", name, "--exclude", ".home/**", env=env)
    assert proc.returncode == 0, proc.stderr
    yield name
    engine = get_engine(load_settings().with_overrides(database_url=db_url))
    with engine.begin() as conn:
        conn.execute(text("DELETE FROM applications WHERE name = :n"), {"n": name})


def test_a_symbol_query_finds_its_definition_outside_the_candidates(engine, ranked_app,
                                                                    embedder) -> None:
    query, fqn = "WidgetRegistry", "lib.core.WidgetRegistry"
    options = SearchOptions()
    with engine.begin() as conn:
        apps = scope_of(engine, ranked_app).app_ids
        set_ef_search(conn, options)
        vector = embedder.encode([query])[0]
        listed = {i for i, _ in vector_candidates(conn, list(apps), vector, options)}
        listed |= {i for i, _ in text_candidates(conn, list(apps), query, options)}
        defining = conn.execute(text(
            "SELECT c.id FROM chunks c JOIN nodes n ON n.id = c.node_id"
            " WHERE n.fqn = :f AND c.application_id = ANY(:a)"),
            {"f": fqn, "a": list(apps)}).scalars().all()
    # The uses fill both ranked lists: neither holds a chunk of the definition.
    assert defining and not listed & set(defining)
    hits = search(scope_of(engine, ranked_app), query, options, embedder).hits
    assert hits[0]["fqn"] == fqn
    off = search(scope_of(engine, ranked_app), query, SearchOptions(disabled=("definitions",)),
                 embedder).hits
    assert fqn not in [h["fqn"] for h in off]


def test_a_capitalised_word_in_a_question_finds_the_type_it_names(engine, ranked_app,
                                                                   embedder) -> None:
    query = "how Ledger records entries"
    hits = search(scope_of(engine, ranked_app), query, SearchOptions(), embedder).hits
    assert hits[0]["fqn"] == "lib.ledger.Ledger"
    off = search(scope_of(engine, ranked_app), query,
                 SearchOptions(disabled=("definitions",)), embedder).hits
    assert off[0]["fqn"] != "lib.ledger.Ledger"


def test_a_question_naming_a_type_also_looks_up_the_types_it_extends(engine, ranked_app
                                                                     ) -> None:
    # WidgetRegistry extends Versioned (its folder) and Sized (another folder): a
    # question naming it also boosts Versioned, by a share of the boost; a bare symbol
    # query wants the declaration alone.
    scope = scope_of(engine, ranked_app)
    apps = dict.fromkeys(scope.app_ids, ranked_app)

    def found(query: str) -> dict[str, float]:
        with engine.connect() as conn:
            defined = definitions(conn, apps, understand(query), SearchOptions())
        return {d.candidate.fqn: d.share for d in defined.values()}

    question = found("how WidgetRegistry keeps named components in insertion order")
    assert question["lib.core.WidgetRegistry"] == 1.0
    assert question["lib.base.Versioned"] == SUPERTYPE_SHARE < 1.0
    assert "other.sized.Sized" not in question
    assert "lib.base.Versioned" not in found("WidgetRegistry")


def test_library_code_ranks_above_its_example_copy(engine, ranked_app, embedder) -> None:
    query = "resolve the dependencies a path operation declares"
    hits = search(scope_of(engine, ranked_app), query, SearchOptions(), embedder).hits
    paths = [h["file_path"] for h in hits]
    assert paths.index("lib/dependencies.py") < paths.index("examples/dependencies_demo.py")


def test_hidden_markdown_is_searched_only_when_asked(engine, ranked_app, embedder) -> None:
    query = "how does dependency injection work"

    def paths(options: SearchOptions) -> list[str]:
        return [h["file_path"] for h in search(scope_of(engine, ranked_app), query, options,
                                               embedder).hits]

    assert not any(p.startswith(".agents/") for p in paths(SearchOptions()))
    assert any(p.startswith(".agents/") for p in paths(SearchOptions(source="all")))
    assert any(p.startswith(".agents/") for p in paths(SearchOptions(source="doc")))


def test_cli_per_file_and_signals_are_validated(engine, ranked_app) -> None:
    proc = run_cli("search", "WidgetRegistry", "--app", ranked_app, "--per-file", "-1")
    assert proc.returncode == 2 and "per-file" in proc.stderr
    proc = run_cli("search", "WidgetRegistry", "--app", ranked_app, "--no-signal", "nope")
    assert proc.returncode == 2 and "nope" in proc.stderr
    proc = run_cli("search", "WidgetRegistry", "--app", ranked_app, "--json",
                   "--per-file", "0", "--no-signal", "coherence")
    assert proc.returncode == 0, proc.stderr
    assert set(SIGNALS) >= {"definitions", "diversity"}

"""Context by member on a real indexed repository (tests/context_repo.py): the
implementation, not a stub; class contents; split members re-joined; name lookup with
re-exports and suggestions; MENTIONS only for unambiguous names."""

from __future__ import annotations

import ast
import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, event, text

from graphrag.config import load_settings
from graphrag.db.apps import get_app
from graphrag.db.engine import get_engine
from graphrag.documents.mentions import SymbolIndex, mentions_in
from graphrag.embedding import count_tokens, get_tokenizer
from graphrag.errors import InvalidInput, UnknownSymbol
from graphrag.graph.lookup import resolve_name
from graphrag.graph.queries import details as node_details
from graphrag.indexing import index_repository
from graphrag.retrieval.context import build_context
from graphrag.retrieval.context.members import CodeChunk, chunk_lines, implementation, outdent
from tests.conftest import context_of, run_cli
from tests.context_repo import write_repo

FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.S | re.M)


@pytest.fixture(scope="module")
def indexed(db_url: str, tmp_path_factory) -> Iterator[tuple[Engine, str, Path]]:
    """The repository indexed once for the module (graph, chunks, every stage)."""
    home = tmp_path_factory.mktemp("home")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("GRAPHRAG_HOME", str(home))
        mp.setenv("GRAPHRAG_DATABASE_URL", db_url)
        settings = load_settings()
        engine = get_engine(settings)
        root = write_repo(tmp_path_factory.mktemp("repo"))
        name = "ctx_members"
        result = index_repository(engine, settings, root, name)
        assert result["pipeline"]["failed"] == 0
        yield engine, name, root
    with engine.begin() as conn:
        conn.execute(text("DELETE FROM applications WHERE name = :n"), {"n": name})


@pytest.fixture(scope="module")
def tokens():
    tok = get_tokenizer(load_settings())
    return lambda s: count_tokens(tok, [s])[0]


def _context(indexed, tokens, fqn: str, **kw):
    engine, name, _ = indexed
    return build_context(context_of(engine, name), fqn=fqn, count_tokens=tokens, **kw)


def _blocks_by_fqn(ctx) -> dict[str, list]:
    out: dict[str, list] = {}
    for b in ctx.blocks:
        out.setdefault(b.fqn, []).append(b)
    return out


# --- pure ---------------------------------------------------------------------------------

def test_chunk_lines_and_implementation_rejoin_elided_bodies() -> None:
    parent = CodeChunk(10, 16, "def outer():\n    def inner():\n        ...\n    return 1\n",
                       elide=((11, 14),))
    child = CodeChunk(11, 14, "    def inner():\n        a = 1\n        b = 2\n"
                              "        return a + b\n")
    lines = chunk_lines(parent)
    assert lines == {10: "def outer():", 11: "    def inner():", 15: "    return 1"}
    code, missing = implementation(10, 15, {**chunk_lines(child), **lines})
    assert missing == 0
    assert code.splitlines() == ["def outer():", "    def inner():", "        a = 1",
                                 "        b = 2", "        return a + b", "    return 1"]
    # without the child's chunk the gap is said, not invented
    code, missing = implementation(10, 15, lines)
    assert missing == 3 and "        ..." in code.splitlines()


def test_outdent_keeps_column_zero_comments_and_parses() -> None:
    lines = ["    def f(self):", "        if a:", "            x = 1",
             "# column 0", "        else:", "            x = 2"]
    out = outdent(lines)
    assert out[0] == "def f(self):" and out[3] == "# column 0" and out[4] == "    else:"
    ast.parse("\n".join(out))


def test_mentions_need_an_unambiguous_name() -> None:
    class T:
        def __init__(self, id_: int, name: str, fqn: str) -> None:
            self.id, self.name, self.fqn = id_, name, fqn

    index = SymbolIndex([T(1, "invoke", "pkg.core.Command.invoke"),
                         T(2, "invoke", "pkg.runner.Runner.invoke"),
                         T(3, "LedgerService", "app.LedgerService"),
                         T(4, "parse", "a.B.parse(int)"), T(5, "parse", "a.B.parse(String)")])
    body = ("Call `invoke(x)` or self.invoke() or runner.invoke(); see Runner.invoke and"
            " the LedgerService; parse() is overloaded.")
    assert mentions_in(body, index) == {2: "qualified-name", 3: "unique-name",
                                        4: "unique-name", 5: "unique-name"}
    assert mentions_in("def invoke(x):\n    return x\ninvoke(1)", index) == {}


# --- item 1: the implementation, not a stub ---------------------------------------------

def test_overloaded_function_shows_the_implementation_and_lists_the_stubs(indexed,
                                                                          tokens) -> None:
    ctx = _context(indexed, tokens, "pkg.core.Command.convert")
    seed = ctx.blocks[0]
    assert seed.fqn == "pkg.core.Command.convert" and seed.seed
    (code,) = [c for _, c in FENCE.findall(seed.text)]
    assert code.startswith("def convert(self, value):") and "return value" in code
    assert ": ..." not in code  # never a stub's body as the code
    assert "- `def convert(self, value: int) -> int`" in seed.text
    assert "- `def convert(self, value: str) -> str`" in seed.text
    assert "pkg.core.use_it" in seed.text  # the caller attached to the implementation
    engine, name, _ = indexed
    with engine.connect() as conn:
        (node,) = node_details(conn, get_app(conn, name).id, "pkg.core.Command.convert")
    assert node["line_start"] == 50 and [c["fqn"] for c in node["callers"]] == [
        "pkg.core.use_it"]
    assert len(node["meta"]["overloads"]) == 2


def test_type_checking_definition_gives_way_to_the_runtime_one(indexed, tokens) -> None:
    engine, name, _ = indexed
    with engine.connect() as conn:
        (node,) = node_details(conn, get_app(conn, name).id, "pkg.helper")
    assert node["fqn"] == "pkg.core.helper" and node["signature"] == "def helper(x)"
    assert node["meta"]["overloads"] == ["def helper(x: int) -> str"]
    assert [c["fqn"] for c in node["callers"]] == ["pkg.core.use_it"]
    ctx = _context(indexed, tokens, "pkg.core.helper")
    assert 'return str(x)' in ctx.blocks[0].text


# --- item 2: members, classes, formats ---------------------------------------------------

def test_class_context_has_doc_constructor_members_bases_and_subclasses(indexed,
                                                                        tokens) -> None:
    ctx = _context(indexed, tokens, "pkg.core.Command")
    cls = ctx.blocks[0]
    assert cls.fqn == "pkg.core.Command" and cls.kind == "CLASS"
    t = cls.text
    assert "`class Command(Base)`" in t and "It keeps a name and a number of retries." in t
    assert "Bases: `pkg.core.Base`" in t and "Subclasses: `pkg.core.SubCommand`" in t
    assert "**Constructor**" in t and "self.retries = retries" in t
    assert "- `def run(self, args: list[str]) -> int` (method): Run the command with its" \
           " arguments." in t
    assert "- `def convert(self, value)` (method)" in t and "_private" not in t
    # the members' bodies follow, each once, the constructor not again
    fqns = [b.fqn for b in ctx.blocks]
    assert "pkg.core.Command.run" in fqns and "pkg.core.Command.__init__" not in fqns
    assert len(fqns) == len(set(fqns))
    # every list once in the whole context
    for heading in ("Subclasses:", "**Mentioned in**", "**Members**"):
        assert ctx.text.count(heading) == 1, heading


def test_split_member_is_rejoined_fenced_and_parses(indexed, tokens) -> None:
    engine, name, root = indexed
    with engine.connect() as conn:
        parts = conn.execute(text(
            "SELECT count(*) FROM chunks c JOIN nodes n ON n.id = c.node_id"
            " WHERE n.fqn = 'pkg.core.long_handler' AND c.source = 'code'"
            " AND c.application_id = n.application_id")).scalar_one()
    assert parts > 1  # the method really is split into several chunks
    ctx = _context(indexed, tokens, "pkg.core.long_handler", budget=8000)
    seed = ctx.blocks[0]
    assert seed.seg.endswith(":code:snippet") and len(seed.chunks) == parts + 1
    ((lang, code),) = FENCE.findall(seed.text)
    assert lang == "python"
    source = (root / "pkg/core.py").read_text().splitlines()
    start = source.index("def long_handler(mode: str) -> int:")
    assert code.splitlines() == source[start:start + len(code.splitlines())]
    assert code.rstrip().endswith("return total")
    assert "# a comment at column 0, above an indented else" in code.splitlines()
    ast.parse(code)
    assert seed.text.count("Handle a mode in many steps.") == 1  # the docstring once


def test_callers_in_tests_are_counted_unless_asked(indexed, tokens) -> None:
    ctx = _context(indexed, tokens, "pkg.core.Command.run")
    seed = ctx.blocks[0].text
    assert "- `pkg.core.Command.invoke`" in seed
    assert "- 2 callers in tests and examples (not listed)" in seed
    assert "tests.test_core" not in seed
    listed = _context(indexed, tokens, "pkg.core.Command.run", test_callers=True)
    assert "**Called by tests and examples**" in listed.blocks[0].text
    assert "tests.test_core.test_run_twice" in listed.blocks[0].text


def test_budget_never_cuts_a_block_and_names_what_was_left_out(indexed, tokens) -> None:
    full = _context(indexed, tokens, "pkg.core.long_handler", budget=8000)
    for budget in (200, 500, 1000):
        got = [_context(indexed, tokens, "pkg.core.long_handler", budget=budget, fmt=fmt)
               for fmt in ("markdown", "xml", "json")]
        assert all(c.tokens <= budget for c in got)
        assert [b.seg for b in got[0].blocks] == [b.seg for b in got[1].blocks] \
            == [b.seg for b in got[2].blocks]
        assert len(ET.fromstring(got[1].text).findall("record")) == len(got[1].blocks)
        for b in got[0].blocks:  # whole or short, never a cut version of the whole
            whole = next(x for x in full.blocks if x.seg == b.seg)
            assert b.text == whole.text or b.shortened
        seed = got[0].blocks[0] if got[0].blocks else None
        if seed is None or seed.shortened:
            assert "Left out for the budget: the code of `pkg.core.long_handler`" in \
                got[0].text or "`pkg.core.long_handler`" in got[0].text
            assert json.loads(got[2].text)["left_out"]


# --- item 4: name lookup ----------------------------------------------------------------

@pytest.mark.parametrize(("name", "fqn"), [
    ("pkg.core.Command", "pkg.core.Command"),
    ("pkg.Command", "pkg.core.Command"),  # re-exported by pkg/__init__.py
    ("pkg.Command.run", "pkg.core.Command.run"),
    ("pkg.Runner", "pkg.runner.Runner"),
    ("OrderService", "com.acme.OrderService"),  # a Java simple class name
    ("OrderService.total", "com.acme.OrderService.total"),
    ("web:formatName", "web/helper:formatName"),  # a TypeScript barrel export
    ("Command.convert", "pkg.core.Command.convert"),
])
def test_lookup_finds_what_users_write(indexed, name, fqn) -> None:
    engine, app, _ = indexed
    with engine.connect() as conn:
        ids = resolve_name(conn, get_app(conn, app).id, name)
        found = conn.execute(text("SELECT fqn FROM nodes WHERE id = ANY(:i)"),
                             {"i": ids}).scalars().all()
    assert found == [fqn]


def test_lookup_errors_list_the_closest_names(indexed) -> None:
    engine, app, _ = indexed
    with engine.connect() as conn:
        app_id = get_app(conn, app).id
        with pytest.raises(UnknownSymbol) as err:
            resolve_name(conn, app_id, "pkg.Comand")
        assert "pkg.core.Command" in err.value.suggestions
        with pytest.raises(UnknownSymbol, match="ambiguous") as err:
            resolve_name(conn, app_id, "invoke")
        assert set(err.value.suggestions) == {"pkg.core.Command.invoke",
                                              "pkg.runner.Runner.invoke"}
    for argv in (["context", "pkg.Comand"], ["graph", "node", "pkg.Comand"]):
        proc = run_cli(*argv, "--app", app)
        assert proc.returncode == 1
        assert proc.stderr.count("\n") == 1 and "closest: pkg.core.Command" in proc.stderr
    proc = run_cli("context", "pkg.Command", "--app", app, "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["segments"][0].endswith(":code:snippet")


def test_lookup_is_bounded_and_set_based(indexed) -> None:
    """A query per dot-prefix once made a 4,000-part name take 9 s; now the
    prefixes are looked up together and a name over the bounds is a one-line error."""
    engine, app, _ = indexed
    statements: list[str] = []

    def count(_conn, _cursor, statement, *_args) -> None:
        statements.append(statement)

    with engine.connect() as conn:
        app_id = get_app(conn, app).id
        event.listen(conn, "before_cursor_execute", count)
        with pytest.raises(UnknownSymbol):
            resolve_name(conn, app_id, ".".join(["pkg", "Command"] + ["x"] * 150))
        assert resolve_name(conn, app_id, "pkg.Command.run")  # a published member still
        event.remove(conn, "before_cursor_execute", count)
        assert len(statements) <= 14, len(statements)
        with pytest.raises(InvalidInput, match=r"too many parts: 1000 \(at most 200\)"):
            resolve_name(conn, app_id, ".".join(["a"] * 1000))
        with pytest.raises(InvalidInput, match="name too long: 1000000 characters"):
            resolve_name(conn, app_id, "a" * 1_000_000)
    proc = run_cli("graph", "node", ".".join(["a"] * 4000), "--app", app)
    assert proc.returncode == 1
    assert proc.stderr.count("\n") == 1 and "too many parts" in proc.stderr


# --- item 3: mentions in the indexed README ---------------------------------------------

def test_readme_mentions_only_unambiguous_names(indexed) -> None:
    engine, app, _ = indexed
    with engine.connect() as conn:
        rows = conn.execute(text(
            "SELECT t.fqn, e.resolution FROM edges e JOIN nodes s ON s.id = e.src_id"
            " JOIN nodes t ON t.id = e.dst_id WHERE e.kind = 'MENTIONS'"
            " AND e.application_id = :a ORDER BY 1"), {"a": get_app(conn, app).id}).all()
    # the example's local `invoke` names two methods: no mention of either
    assert [tuple(r) for r in rows] == [("pkg.core.Command", "unique-name"),
                                        ("pkg.core.long_handler", "unique-name"),
                                        ("pkg.runner.Runner.invoke", "qualified-name")]

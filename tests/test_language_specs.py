"""The language registry: every language's spec is complete, the graph step reads
language traits from the specs (a language registered at run time is parsed and resolved
with no change to ``graph/``), and specs of one namespace must agree."""

from __future__ import annotations

from dataclasses import replace
from importlib import metadata

import pytest

from graphrag.errors import ConfigurationError, UnknownName
from graphrag.graph.resolve import build_graph
from graphrag.graph.scan import parse_languages
from graphrag.graph.types import clean_type
from graphrag.parsing import registry
from graphrag.parsing.extract import parse_file
from graphrag.parsing.registry import RepoContext


@pytest.fixture
def restore_languages():
    """Undo registrations a test makes."""
    before = registry.languages()
    yield
    reg = registry.registry()
    for name in registry.languages():
        if name not in before:
            reg.unregister(name)
    for spec in before.values():
        registry.register(spec)


def test_every_language_has_a_grammar_queries_and_an_installed_grammar_wheel() -> None:
    for name, spec in registry.languages().items():
        assert registry.parser(name) is not None
        assert registry.extractor(name) is not None
        assert metadata.version(spec.grammar_dist), name
        # the extractor produces a result of its own language
        result = parse_file(b"", "empty" + spec.extensions[0], RepoContext())
        assert result is not None and result.lang == name


def test_aliases_select_languages_and_typescript_selects_tsx() -> None:
    assert parse_languages("py, golang") == {"python", "go"}
    assert parse_languages("ts") == {"typescript", "tsx"}
    assert parse_languages("tsx") == {"tsx"}
    with pytest.raises(UnknownName, match="unknown language: 'cobol'.*golang"):
        parse_languages("cobol")


def test_namespaces_and_key_families_come_from_the_specs() -> None:
    assert registry.namespaces() == ("python", "jvm", "js", "go", "csharp", "rust", "cfamily",
                                     "php", "ruby", "swift", "scala")
    assert {registry.namespace(n) for n in ("c", "cpp")} == {"cfamily"}  # C++ calls C
    assert registry.package_namespaces() == ("jvm", "go", "csharp", "php", "ruby",
                                                 "swift", "scala")
    assert {registry.namespace(n) for n in ("java", "kotlin")} == {"jvm"}
    assert registry.key_family("java") == "java"  # keys stay per language in the JVM
    assert {registry.key_family(n) for n in ("typescript", "tsx", "javascript")} == {"js"}


@pytest.mark.parametrize(("text", "lang", "expected"), [
    ("Optional[User]", "python", "User"),
    ("typing.Optional[User]", "python", "User"),
    ("User | None", "python", "User"),
    ("(*Store, error)", "go", "Store"),
    ("[]*Product", "go", ""),
    ("(Repo | null)", "typescript", "Repo"),
    ("Map<String, User>", "java", "Map"),
    ("suspend Repo", "kotlin", "Repo"),
    ("User?", "kotlin", "User"),
])
def test_type_reduction_uses_the_language_prepass(text: str, lang: str, expected: str) -> None:
    assert clean_type(text, lang) == expected


def test_a_namespace_refuses_a_language_with_other_traits(restore_languages) -> None:
    java = registry.spec("java")
    odd = replace(java, name="groovy", extensions=(".groovy",), implicit_this=False)
    with pytest.raises(ConfigurationError, match="groovy.*jvm.*implicit_this"):
        registry.register(odd)
    assert "groovy" not in registry.languages()


def test_a_language_registered_at_run_time_is_parsed_and_resolved(restore_languages) -> None:
    """A new language is one spec: its files are parsed by its extractor and the graph
    step resolves them by the spec's traits (here a Python dialect under its own name:
    its own key family, its own namespace, Python's traits)."""
    python = registry.spec("python")
    registry.register(replace(python, name="pydialect", extensions=(".pyd2",),
                              aliases=("pyd",), grammar_dist="tree-sitter-python"))
    assert parse_languages("pyd") == {"pydialect"}
    source = b"class Repo:\n    def get(self):\n        return 1\n\n" \
             b"def main():\n    r = Repo()\n    r.get()\n"
    result = parse_file(source, "app/main.pyd2", RepoContext())
    assert result is not None
    # the python extractor labels its results "python"; the registry decides by extension
    result.lang = "pydialect"
    graph = build_graph([result])
    by_key = graph.node_by_key()
    calls = {(by_key[e.src_key].fqn, by_key[e.dst_key].fqn) for e in graph.edges
             if e.kind == "CALLS"}
    assert calls == {("app.main.pyd2.main", "app.main.pyd2.Repo.get")}
    assert all(n.key.startswith("sym:pydialect:") for n in graph.nodes
               if n.kind in ("CLASS", "FUNCTION", "METHOD"))

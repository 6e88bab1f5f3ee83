"""The language contract: everything a language contributes is declared by its
``LanguageSpec`` (and extractor) in ``parsing/``; the graph step's code names no
language and holds none of a language's words. Checked on the source of ``graph/``
against what the registered specs declare, so a word moved back into ``graph/`` (a
``"hashCode"``, a ``"go.mod"``, a ``"self"`` receiver) fails here."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import graphrag.graph
from graphrag.graph.edges import CONFIDENCE
from graphrag.parsing import registry
from graphrag.parsing.registry import LanguageSpec

GRAPH = Path(graphrag.graph.__file__).parent

# The graph step's own terms that some language also uses as a word: resolution labels
# (an edge found through `self`, a `super` call), lookup modes (`call`, `type`, `value`)
# and call kinds (`new`, `ref`).
# the graph step's own words, whichever language also uses them (`routes` is Play's config
# file and the graph step's route table)
OWN_TERMS = frozenset(CONFIDENCE) | {"call", "type", "value", "new", "ref", "routes"}


def _marked_words(spec: LanguageSpec) -> set[str]:
    """Words of ``spec`` that are never the graph step's own: one is enough."""
    found = {*spec.self_names, *spec.super_names, *spec.constructor_names,
             *spec.null_words, *spec.config_files, *spec.conversions.top,
             *spec.conversions.boxes}
    found.update(w for w in (spec.iterator_method, spec.class_receiver) if w)
    return found - OWN_TERMS


def _library_words(spec: LanguageSpec) -> set[str]:
    """Names of ``spec``'s library (common calls, container reads, value types): plain
    words (`get`, `name`, `int`) the graph step may use for itself, so only a collection
    of two or more of them is a language's vocabulary."""
    return {*spec.common_calls, *spec.item_reads, *spec.conversions.canonical} - OWN_TERMS


def _words() -> tuple[set[str], set[str], set[str]]:
    """(marked words, library words, language names) of every registered language."""
    specs = registry.languages().values()
    return (set().union(*(_marked_words(s) for s in specs)),
            set().union(*(_library_words(s) for s in specs)),
            # a one-letter language name (C) is every loop variable `c`: not a mention
            {name.lower() for name in registry.languages() if len(name) > 1})


def _strings(tree: ast.AST) -> list[tuple[int, str]]:
    """String constants of a module that are not docstrings, with their lines."""
    docs = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef,
                             ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docs.add(id(first.value))
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and id(node) not in docs]


def _identifiers(tree: ast.AST) -> list[tuple[int, str]]:
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            out.append((node.lineno, node.id))
        elif isinstance(node, ast.Attribute):
            out.append((node.lineno, node.attr))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.append((node.lineno, node.name))
        elif isinstance(node, ast.arg):
            out.append((node.lineno, node.arg))
    return out


def _collections(tree: ast.AST, library: set[str]) -> list[tuple[int, list[str]]]:
    """String items of every literal set, tuple, list or dict (keys), and the words of a
    string that lists them (``"get set add"``), with their lines."""
    out: list[tuple[int, list[str]]] = []
    for node in ast.walk(tree):
        items = node.keys if isinstance(node, ast.Dict) else \
            node.elts if isinstance(node, (ast.Set, ast.Tuple, ast.List)) else None
        if items is not None:
            out.append((node.lineno, [i.value for i in items if isinstance(i, ast.Constant)
                                      and isinstance(i.value, str)]))
    # a word list, not a sentence: mostly library names
    out.extend((line, text.split()) for line, text in _strings(tree) if " " in text.strip()
               and len(set(text.split()) & library) * 2 >= len(text.split()))
    return out


def language_mentions(source: str, words: tuple[set[str], set[str], set[str]]
                      ) -> list[str]:
    """Where ``source`` (a module of graph/) names a language (a string constant or an
    identifier holding a language's name as a word: ``"go.mod"``, ``go_modules``), holds
    one of a language's own words (``"self"``, ``"tsconfig.json"``) or a collection of its
    library's names (``{"hashCode", "println"}``)."""
    marked, library, languages = words
    tree = ast.parse(source)
    found: list[str] = []
    for line, text in _strings(tree):
        if text in marked:
            found.append(f"{line}: word {text!r}")
        if {w.lower() for w in re.findall(r"[A-Za-z]+", text)} & languages:
            found.append(f"{line}: language in {text!r}")
    for line, items in _collections(tree, library):
        hits = sorted(set(items) & library)
        if len(hits) >= 2:
            found.append(f"{line}: library names {hits[:5]}")
    for line, name in _identifiers(tree):
        if {w.lower() for w in name.split("_")} & languages:
            found.append(f"{line}: language in identifier {name!r}")
    return found


def _prose(source: str) -> list[tuple[int, str]]:
    """Comments and docstrings of a module, with their lines."""
    found = [(tok.start[0], tok.string) for tok in
             tokenize.generate_tokens(io.StringIO(source).readline)
             if tok.type == tokenize.COMMENT]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef,
                             ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                found.append((node.body[0].lineno, doc))
    return found


def _language_spellings() -> tuple[set[str], set[str]]:
    """(names matched in any case: the longer names and aliases of every language;
    spellings matched as written: short names and aliases in capitals, ``Go``, and the
    shared namespaces, ``JVM``), so that the verb "go" is no language."""
    any_case, exact = set(), set()
    for name, spec in registry.languages().items():
        for word in (name, *spec.aliases, spec.namespace):
            if len(word) > 3:
                any_case.add(word.lower())
            elif len(word) > 1:  # one letter (`c`) is no word to look for in prose
                exact.update({word.upper(), word.capitalize()} - {"Ts", "Js", "Cs", "Py"})
    exact.update({"C++", "C#"})  # spellings of names the registry writes `cpp`, `csharp`
    any_case.update({"typescript", "javascript"})
    return any_case, exact


def prose_mentions(source: str) -> list[str]:
    """Where a comment or docstring of ``source`` names a language."""
    any_case, exact = _language_spellings()
    found = []
    for line, text in _prose(source):
        for word in re.findall(r"[A-Za-z][A-Za-z#+]*", text):
            if word.lower() in any_case or word in exact:
                found.append(f"{line}: {word!r} in prose")
    return found


def test_graph_prose_names_no_language() -> None:
    """Comments and docstrings of graph/ speak of traits (``structural_typing``), not of
    the languages that have them: a new language then needs no word changed there."""
    problems = [f"graph/{path.name}:{where}" for path in sorted(GRAPH.glob("*.py"))
                for where in prose_mentions(path.read_text())]
    assert not problems, "languages named in graph/:\n" + "\n".join(problems)
    assert prose_mentions('# Go methods may live in another file\n')
    assert prose_mentions('def f():\n    """A Kotlin companion."""\n')
    assert not prose_mentions('# the rows of deleted files go with them\n')


def test_graph_names_no_language_and_holds_no_vocabulary() -> None:
    words = _words()
    problems = []
    for path in sorted(GRAPH.glob("*.py")):
        for where in language_mentions(path.read_text(), words):
            problems.append(f"graph/{path.name}:{where}")
    assert not problems, "language knowledge outside parsing/:\n" + "\n".join(problems)


def test_the_check_sees_a_language_word_moved_back_into_graph() -> None:
    words = _words()
    assert language_mentions('COMMON = {"hashCode", "setTimeout"}\n', words)
    assert language_mentions('COMMON = """get put println"""\n', words)
    assert language_mentions('if head in ("self", "this"):\n    pass\n', words)
    assert language_mentions('NAMES = ("go.mod",)\n', words)
    assert language_mentions('def f(ctx):\n    return ctx.go_modules\n', words)
    assert not language_mentions('MODES = ("call", "value")\nx = d.get("name")\n', words)


def test_every_word_the_old_graph_step_held_is_declared_by_some_language() -> None:
    """The common call names, receivers and conversions moved from graph/ stay known: a
    call to ``hashCode`` is never linked by its name alone, ``self``/``this`` name the
    instance, JVM boxing is declared."""
    specs = registry.languages()
    assert {"hashCode", "setTimeout", "isinstance", "Println"} <= registry.common_calls()
    assert "self" in specs["python"].self_names and "this" in specs["java"].self_names
    assert specs["java"].conversions.canonical["Integer"] == "int"
    assert specs["kotlin"].conversions == specs["java"].conversions
    assert {"go.mod", "tsconfig.json", "jsconfig.json"} <= registry.config_files()


def test_repository_facts_come_from_the_hooks_and_their_change_shows_in_the_digest(
        tmp_path: Path) -> None:
    """A language's config file is scanned though it is no source, its hook's facts
    reach the extractor, and editing it changes the digest that re-parses the files."""
    from graphrag.graph.scan import scan_repository
    from graphrag.parsing.extract import parse_file, repo_context

    (tmp_path / "svc").mkdir()
    (tmp_path / "svc" / "go.mod").write_text("module example.com/svc\n")
    (tmp_path / "svc" / "main.go").write_text("package main\n\nfunc Run() {}\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "mod.py").write_text("def f():\n    return 1\n")
    scanned = {f.rel_path: f.lang for f in scan_repository(tmp_path)}
    assert scanned["svc/go.mod"] is None and scanned["svc/main.go"] == "go"
    ctx = repo_context(tmp_path, list(scanned))
    assert ctx.of("go") == {"svc": "example.com/svc"}
    assert ctx.of("python") == {"pkg"}
    go = parse_file((tmp_path / "svc" / "main.go").read_bytes(), "svc/main.go", ctx)
    assert go is not None and go.symbols[0].fqn == "example.com/svc.Run"

    (tmp_path / "svc" / "go.mod").write_text("module example.com/other\n")
    changed = repo_context(tmp_path, list(scanned))
    assert changed.digest() != ctx.digest()
    assert repo_context(tmp_path, list(scanned)).digest() == changed.digest()

"""Language registry: every language-specific fact the later steps need, one
:class:`LanguageSpec` per language.

Grammars come from the official per-language wheels; parsers and compiled queries
are created once per process (lazily) and reused for every file. The graph step is
language-neutral: where resolution differs between languages (a package scope, an
implicit ``this``, ``module:name`` import targets, Go's structural interfaces, how a
type as written reduces to a name), it reads the spec's attributes and hooks, never a
language name. A plugin package adds a language through the ``graphrag.languages``
entry point group (see :mod:`graphrag.plugins` and CONTRIBUTING.md).
"""

from __future__ import annotations

import importlib
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any, Literal

from tree_sitter import Language, Parser, Query

from graphrag.errors import ConfigurationError, UnknownName
from graphrag.parsing import vocabulary
from graphrag.parsing.model import ParseResult
from graphrag.parsing.nesting import BoundedParser
from graphrag.parsing.vocabulary import NO_CONVERSIONS, Conversions
from graphrag.plugins import LANGUAGES_GROUP, Registry


@dataclass(frozen=True)
class RepoContext:
    """Repository-wide facts an extractor may need, by language: what the language's
    ``repo_facts`` hook read from the repository (module paths of ``go.mod`` files, the
    regular packages, ``tsconfig.json`` aliases...). Picklable: it goes to the parse
    workers."""

    facts: Mapping[str, Any] = field(default_factory=dict)

    def of(self, lang: str, default: Any = None) -> Any:
        """What the ``repo_facts`` hook of ``lang`` returned (``default`` when none)."""
        found = self.facts.get(lang)
        return default if found is None else found

    def digest(self) -> str:
        """The facts as canonical JSON: a change re-parses the repository."""
        return json.dumps(self.facts, sort_keys=True, default=_jsonable)


def _jsonable(value: object) -> object:
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    raise TypeError(f"repository facts must be JSON data, not {type(value).__name__}")


Extractor = Callable[[bytes, str, RepoContext], ParseResult]
# How an import target names a member: ``pkg.mod.Name`` (dotted) or ``src/mod:Name``
# (module-member: a path-like module, ``:`` then the exported name; ``index`` modules).
TargetStyle = Literal["dotted", "module-member"]


@dataclass(frozen=True)
class LanguageSpec:
    """Everything language-specific about one language.

    Identity and parsing: ``name`` (the value of ``nodes.lang``), file ``extensions``,
    the extractor ``module`` (a module under ``graphrag.parsing.languages`` or a full
    dotted path, exposing ``extract(source, rel_path, ctx)``), ``grammar`` (returns the
    tree-sitter capsule), ``grammar_dist`` (the grammar wheel, part of the parser
    version), ``queries`` (the package holding its ``*.scm``), ``aliases`` accepted by
    ``--languages``/``--lang``, and ``part_of`` (selecting that language selects this
    one too: TSX is part of TypeScript).

    Resolution traits (shared by every language of one ``namespace``; checked when a
    language joins a namespace): see the field comments.
    """

    name: str
    extensions: tuple[str, ...]
    module: str
    grammar: Callable[[], object]
    grammar_dist: str = ""
    queries: str = "graphrag.parsing.queries"
    aliases: tuple[str, ...] = ()
    part_of: str | None = None
    # file names (regular expressions, no `/`) that hold tests by the language's
    # conventions; search ranks them below the code they test
    test_files: tuple[str, ...] = ()
    # fqns of languages in one namespace refer to each other (Java and Kotlin: "jvm")
    namespace: str = ""
    # symbol keys are `sym:<key_family>:<fqn>`; TS/TSX/JS share "js" (keys must not
    # change when a file is renamed from .js to .ts)
    key_family: str = ""
    # separator of module path segments (`a.b.c`, `src/a/b`)
    separator: str = "."
    # files declare a package: PACKAGE nodes, names resolve package-wide
    packages: bool = False
    # import targets are `pkg.Name` or `module:Name`
    target_style: TargetStyle = "dotted"
    # a bare call inside a class sees the class's (and companion's) methods
    implicit_this: bool = False
    # `super(...)` / `this(...)` call constructors
    constructor_calls: bool = False
    # overloads carry their parameter list in the fqn: `a.B.m(int,String)`
    overloads_in_fqn: bool = False
    # a name bound to the enclosing class in a class method (`cls` in Python)
    class_receiver: str | None = None
    # a type implements an interface whose method set it covers (Go)
    structural_typing: bool = False
    # what marks a member private: a leading `_` (Python, dunders stay public) or a
    # `private` modifier / `#name` (everything else)
    private_names: Literal["underscore", "keyword"] = "keyword"
    # mounting a router concatenates paths: `/api` + `/` is `/api/` (FastAPI, Flask)
    route_keep_slash: bool = False
    # language forms a type as written takes before the shared reduction to a name
    # (`Optional[X]`, Go `(T, error)`): "module:function" taking and returning text
    type_prepass: str | None = None
    # calling a value or an object calls its method of this name (Scala's `apply`)
    apply_method: str | None = None
    # a bare name not declared in the file is the one function of that name in the
    # repository (C and C++: one namespace of the linker); file-local (``static``)
    # functions of other files are not seen
    global_names: bool = False

    # --- The language's words the resolver reads (graph/ holds no vocabulary) ---------
    # standard library calls too common to link by their name alone
    common_calls: frozenset[str] = frozenset()
    # receivers naming the current instance (`self`, `this`) and its superclass view
    self_names: tuple[str, ...] = ()
    super_names: tuple[str, ...] = ()
    # how a call through the superclass names the constructor (`super().__init__()`)
    constructor_names: tuple[str, ...] = ()
    # container methods reading one item by key or index (`d.get(k)`, `xs.at(0)`)
    item_reads: frozenset[str] = frozenset()
    # the method through which iterating an instance of a class goes (`__iter__`)
    iterator_method: str | None = None
    # the words of a declared union meaning "no value" (`A | None`, `A | undefined`)
    null_words: frozenset[str] = frozenset()
    # value type conversions of overload choice (widening, boxing)
    conversions: Conversions = NO_CONVERSIONS
    # overload choice prefers the overload whose generic arity matches the call's type
    # arguments, then the one that needs no default or varargs (C#'s better-member rule)
    exact_arity_first: bool = False
    # "module:function" choosing a call's overload by the language's own rules (Swift:
    # argument labels, trailing closures, literals, then its ranking), or None when the
    # call cannot be told to mean one of them: (candidates, call, arg_types, match,
    # type_members) -> the chosen candidate or None; ``match(arg, param)`` scores a type
    # as the shared rule does (3 exact, 2 subtype, 1 catch-all, 0 unknown, None
    # incompatible), ``type_members(type)`` names a repository type's members (None:
    # no repository type)
    overload_choice: str | None = None
    # "module:function" (extension's receiver type, receiver's outside type name) -> bool:
    # whether a package-wide extension may apply to a receiver of that outside type
    extension_receiver: str | None = None
    # --- Repository-wide facts ---------------------------------------------------------
    # file names (no directory) the `repo_facts` hook reads besides the language's own
    # files: the scan tracks them so that a change is seen
    config_files: tuple[str, ...] = ()
    # "module:function" taking :class:`~graphrag.parsing.repofacts.RepoFiles` and
    # returning JSON data (sets allowed) the extractor reads with `ctx.of(lang)`
    repo_facts: str | None = None

    @property
    def ns(self) -> str:
        """Resolution namespace (the language's own name unless shared)."""
        return self.namespace or self.name

    @property
    def family(self) -> str:
        """Symbol key family (the language's own name unless shared)."""
        return self.key_family or self.name


# Traits every language of one namespace must agree on.
_NAMESPACE_TRAITS = ("separator", "packages", "target_style", "implicit_this",
                     "constructor_calls", "overloads_in_fqn", "class_receiver", "global_names")


def _register_builtins(register: Callable[[str, LanguageSpec], LanguageSpec]) -> None:
    for spec in _BUILTINS:
        register(spec.name, spec)


def _joined(name: str, spec: LanguageSpec | None) -> None:
    """A language was registered (or removed): it must agree with the namespace it
    joins; the derived lookups are rebuilt."""
    _derived.cache_clear()
    type_prepass.cache_clear()
    hook.cache_clear()
    for cache_of_name in (ts_language, parser, query, extractor):
        cache_of_name.cache_clear()
    if spec is None:
        return
    for other in _LANGUAGES:
        if other.ns == spec.ns and other.name != spec.name:
            for trait in _NAMESPACE_TRAITS:
                if getattr(other, trait) != getattr(spec, trait):
                    raise ConfigurationError(
                        f"language {spec.name!r} joins namespace {spec.ns!r} of "
                        f"{other.name!r} with a different {trait}")


_LANGUAGES: Registry[LanguageSpec] = Registry("language", LANGUAGES_GROUP, _register_builtins,
                                              _joined)


def register(spec: LanguageSpec) -> None:
    """Add (or replace) a language; it must agree with the namespace it joins."""
    _LANGUAGES.register(spec.name, spec)


def registry() -> Registry[LanguageSpec]:
    """The language registry itself (for :meth:`~graphrag.plugins.Registry.reload`)."""
    return _LANGUAGES


def languages() -> dict[str, LanguageSpec]:
    """Every registered language by name, built-ins first."""
    return _LANGUAGES.items()


def spec(name: str) -> LanguageSpec:
    """The spec of language ``name``; :class:`UnknownName` lists the valid ones."""
    return _LANGUAGES.get(name)


def spec_for_path(path: str) -> LanguageSpec | None:
    return path_matcher()(path)


def path_matcher() -> Callable[[str], LanguageSpec | None]:
    """:func:`spec_for_path` over the languages registered now: for a walk that asks
    for thousands of paths (going through the registry for each cost a tenth of a scan)."""
    specs = [(candidate.extensions, candidate) for candidate in _LANGUAGES]

    def match(path: str) -> LanguageSpec | None:
        lower = path.lower()
        for extensions, candidate in specs:
            if lower.endswith(extensions):
                return candidate
        return None

    return match


@dataclass(frozen=True)
class _Derived:
    """Lookups derived from the registry, rebuilt when a language is registered."""

    namespace_of: dict[str, str]       # language -> namespace
    family_of: dict[str, str]          # language -> key family
    by_namespace: dict[str, LanguageSpec]  # namespace -> its first language (traits)
    aliases: dict[str, str]            # alias or name -> language
    order: tuple[str, ...]             # namespaces in registration order
    package_scoped: tuple[str, ...]    # namespaces whose files declare packages
    test_files: re.Pattern[str] | None  # any language's test file name, at a path's end
    common_calls: frozenset[str]       # every language's common library call names
    config_files: frozenset[str]       # every language's config file names


@cache
def _derived() -> _Derived:
    namespace_of, family_of, by_ns, aliases = {}, {}, {}, {}
    for s in _LANGUAGES:
        namespace_of[s.name] = s.ns
        family_of[s.name] = s.family
        by_ns.setdefault(s.ns, s)
        aliases.setdefault(s.name, s.name)
        for alias in s.aliases:
            aliases[alias] = s.name
    patterns = list(dict.fromkeys(p for s in _LANGUAGES for p in s.test_files))
    test_files = re.compile(r"(^|/)(" + "|".join(patterns) + r")$") if patterns else None
    return _Derived(namespace_of, family_of, by_ns, aliases, tuple(by_ns),
                    tuple(ns for ns, s in by_ns.items() if s.packages), test_files,
                    frozenset().union(*(s.common_calls for s in _LANGUAGES)),
                    frozenset(n for s in _LANGUAGES for n in s.config_files))


def namespace(lang: str) -> str:
    """Namespace in which fqns of ``lang`` are looked up (Java and Kotlin share one)."""
    return _derived().namespace_of.get(lang, lang)


def key_family(lang: str) -> str:
    """Key family of a language: TS/TSX/JS share ``js``; others are themselves."""
    return _derived().family_of.get(lang, lang)


def find(lang: str | None) -> LanguageSpec | None:
    """The spec of ``lang``, or None (a document node, an unregistered language)."""
    return _LANGUAGES.find(lang) if lang else None


def namespaces() -> tuple[str, ...]:
    """Every resolution namespace, in registration order."""
    return _derived().order


def test_file_pattern() -> re.Pattern[str] | None:
    """One expression matching a test file of any registered language (``test_files``)."""
    return _derived().test_files


def package_namespaces() -> tuple[str, ...]:
    """The namespaces whose files declare packages (spec ``packages``)."""
    return _derived().package_scoped


def common_calls() -> frozenset[str]:
    """Every registered language's common library call names (``common_calls``)."""
    return _derived().common_calls


def config_files() -> frozenset[str]:
    """File names some language's ``repo_facts`` hook reads (``config_files``)."""
    return _derived().config_files


def namespace_spec(ns: str) -> LanguageSpec:
    """The traits of namespace ``ns`` (its first language's spec)."""
    return _derived().by_namespace[ns]


def aliases() -> dict[str, str]:
    """Every name ``--languages``/``--lang`` accept -> the language it means."""
    return dict(_derived().aliases)


def select_languages(names: list[str]) -> frozenset[str]:
    """Languages named by aliases (``["py", "ts"]``), with the languages that are part
    of a selected one (TypeScript selects TSX); unknown names are a user error."""
    known = _derived().aliases
    chosen: set[str] = set()
    for raw in names:
        key = raw.strip().lower()
        if not key:
            continue
        if key not in known:
            raise UnknownName("language", raw.strip(), sorted(known))
        chosen.add(known[key])
    chosen.update(s.name for s in _LANGUAGES if s.part_of in chosen)
    return frozenset(chosen)


def grammar_distributions() -> tuple[str, ...]:
    """The distributions whose versions shape a parse: tree-sitter and every grammar."""
    dists = [s.grammar_dist for s in _LANGUAGES if s.grammar_dist]
    return ("tree-sitter", *dict.fromkeys(dists))


def query_packages() -> tuple[str, ...]:
    """Packages holding the languages' tree-sitter queries."""
    return tuple(dict.fromkeys(s.queries for s in _LANGUAGES))


@cache
def type_prepass(lang: str) -> Callable[[str], str] | None:
    """The language's own step before the shared reduction of a type to a name."""
    target = _LANGUAGES.find(lang)
    if target is None or target.type_prepass is None:
        return None
    return hook(target.type_prepass)


@cache
def hook(target: str) -> Callable[..., Any]:
    """The function a spec names as ``"module:function"`` (a module under
    ``graphrag.parsing.languages`` or a full dotted path)."""
    module, _, func = target.partition(":")
    return getattr(importlib.import_module(_module_path(module)), func)


@cache
def ts_language(name: str) -> Language:
    return Language(_LANGUAGES.get(name).grammar())


@cache
def parser(name: str) -> BoundedParser:
    """The parser of language ``name``; its trees respect the nesting bound."""
    return BoundedParser(Parser(ts_language(name)))


@cache
def query(lang: str, qname: str) -> Query:
    """Compile ``<queries package>/<qname>.scm`` for ``lang`` once per process."""
    return Query(ts_language(lang), query_text(_LANGUAGES.get(lang).queries, qname))


_INHERITS = "; inherits:"


def query_text(package: str, qname: str) -> str:
    """The text of ``<package>/<qname>.scm`` after the files it inherits: a first line
    ``; inherits: a, b`` puts ``a.scm`` and ``b.scm`` (and what they inherit) before it,
    as nvim-treesitter's queries do, so grammars that share node types (JavaScript and
    TypeScript) share their patterns."""
    text = resources.files(package).joinpath(f"{qname}.scm").read_text()
    first = text.partition("\n")[0]
    if not first.startswith(_INHERITS):
        return text
    parents = [p.strip() for p in first.removeprefix(_INHERITS).split(",") if p.strip()]
    return "\n".join([*(query_text(package, p) for p in parents), text])


@cache
def extractor(name: str) -> Extractor:
    mod = importlib.import_module(_module_path(_LANGUAGES.get(name).module))
    return mod.extract


def _module_path(module: str) -> str:
    return module if "." in module else f"graphrag.parsing.languages.{module}"


def grammar(module: str, attr: str = "language") -> Callable[[], object]:
    """A loader of the grammar capsule ``module.attr()`` (imported on first use)."""
    def load() -> object:
        return getattr(importlib.import_module(module), attr)()
    return load


_JVM_WORDS = dict(
    common_calls=vocabulary.JVM_COMMON, self_names=("this",), super_names=("super",),
    constructor_names=("<init>", "super"), conversions=vocabulary.JVM_CONVERSIONS,
    item_reads=vocabulary.words("""get getOrDefault getValue remove elementAt first last
                                    peek poll getFirst getLast pop"""),
)
_JS_WORDS = dict(
    common_calls=vocabulary.JS_COMMON, self_names=("this", "self"), super_names=("super",),
    constructor_names=("constructor",), item_reads=vocabulary.words("get at pop"),
    null_words=vocabulary.words("null undefined void"),
    config_files=("tsconfig.json", "jsconfig.json"),
    repo_facts="graphrag.parsing.tsconfig:repo_facts",
)

_C_FAMILY = dict(
    separator="::", implicit_this=True, overloads_in_fqn=True, global_names=True,
    type_prepass="c:nominal", common_calls=vocabulary.C_COMMON, self_names=("this",),
    item_reads=vocabulary.words("at front back"), null_words=vocabulary.words("nullptr NULL"),
    repo_facts="c:repo_facts",
)

_BUILTINS = (
    LanguageSpec("python", (".py",), "python", grammar("tree_sitter_python"),
                 grammar_dist="tree-sitter-python", aliases=("py",),
                 test_files=(r"test_[^/]*\.py", r"[^/]*_test\.py", r"conftest\.py"),
                 class_receiver="cls", route_keep_slash=True, private_names="underscore",
                 type_prepass="python:unwrap_optional",
                 common_calls=vocabulary.PYTHON_COMMON, self_names=("self",),
                 super_names=("super",), constructor_names=("__init__",),
                 item_reads=vocabulary.words("get pop setdefault"),
                 iterator_method="__iter__", null_words=frozenset({"None"}),
                 repo_facts="python:repo_facts"),
    LanguageSpec("java", (".java",), "java", grammar("tree_sitter_java"),
                 grammar_dist="tree-sitter-java", test_files=(r"[^/]*(Test|Tests|IT)\.java",),
                 namespace="jvm", packages=True,
                 implicit_this=True, constructor_calls=True, overloads_in_fqn=True,
                 **_JVM_WORDS),
    LanguageSpec("kotlin", (".kt", ".kts"), "kotlin", grammar("tree_sitter_kotlin"),
                 grammar_dist="tree-sitter-kotlin", aliases=("kt",),
                 test_files=(r"[^/]*(Test|Tests|IT)\.kt",), namespace="jvm",
                 packages=True, implicit_this=True, constructor_calls=True,
                 overloads_in_fqn=True, **_JVM_WORDS),
    LanguageSpec("typescript", (".ts", ".mts", ".cts"), "typescript",
                 grammar("tree_sitter_typescript", "language_typescript"),
                 grammar_dist="tree-sitter-typescript", aliases=("ts",), namespace="js",
                 test_files=(r"[^/]*\.(test|spec)\.ts",),
                 key_family="js", separator="/", target_style="module-member",
                 type_prepass="typescript:unwrap_parenthesized", **_JS_WORDS),
    LanguageSpec("tsx", (".tsx",), "typescript",
                 grammar("tree_sitter_typescript", "language_tsx"),
                 grammar_dist="tree-sitter-typescript", part_of="typescript",
                 test_files=(r"[^/]*\.(test|spec)\.tsx",),
                 namespace="js", key_family="js", separator="/",
                 target_style="module-member",
                 type_prepass="typescript:unwrap_parenthesized", **_JS_WORDS),
    LanguageSpec("javascript", (".js", ".jsx", ".mjs", ".cjs"), "javascript",
                 grammar("tree_sitter_javascript"), grammar_dist="tree-sitter-javascript",
                 aliases=("js", "jsx"), namespace="js", key_family="js", separator="/",
                 test_files=(r"[^/]*\.(test|spec)\.(js|jsx|mjs|cjs)",),
                 target_style="module-member",
                 type_prepass="typescript:unwrap_parenthesized", **_JS_WORDS),
    LanguageSpec("go", (".go",), "go", grammar("tree_sitter_go"),
                 grammar_dist="tree-sitter-go", aliases=("golang",), packages=True,
                 test_files=(r"[^/]*_test\.go",),
                 structural_typing=True, type_prepass="go:first_result",
                 common_calls=vocabulary.GO_COMMON, config_files=("go.mod",),
                 repo_facts="go:repo_facts"),
    LanguageSpec("csharp", (".cs",), "csharp", grammar("tree_sitter_c_sharp"),
                 grammar_dist="tree-sitter-c-sharp", aliases=("cs", "c#"),
                 test_files=(r"[^/]*Tests?\.cs",), packages=True, implicit_this=True,
                 constructor_calls=True, overloads_in_fqn=True,
                 type_prepass="csharp:unwrap_task",
                 extension_receiver="csharp:extension_applies", exact_arity_first=True,
                 common_calls=vocabulary.CSHARP_COMMON, self_names=("this",),
                 super_names=("base",), conversions=vocabulary.CSHARP_CONVERSIONS,
                 item_reads=vocabulary.words("""ElementAt ElementAtOrDefault First
                     FirstOrDefault Last LastOrDefault Single SingleOrDefault Peek Pop
                     Dequeue GetValueOrDefault""")),
    LanguageSpec("rust", (".rs",), "rust", grammar("tree_sitter_rust"),
                 grammar_dist="tree-sitter-rust", aliases=("rs",),
                 test_files=(r"tests/[^/]*\.rs", r"[^/]*_tests?\.rs", r"tests\.rs"),
                 common_calls=vocabulary.RUST_COMMON, self_names=("self",),
                 item_reads=vocabulary.words("get get_mut first last pop remove"),
                 config_files=("Cargo.toml",), repo_facts="rust:repo_facts"),
    # C and C++ call each other and share headers: one namespace
    LanguageSpec("c", (".c", ".h"), "c", grammar("tree_sitter_c"),
                 grammar_dist="tree-sitter-c", namespace="cfamily",
                 test_files=(r"test_[^/]*\.c", r"[^/]*_test\.c"), **_C_FAMILY),
    LanguageSpec("cpp", (".cc", ".cpp", ".cxx", ".c++", ".hpp", ".hh", ".hxx"), "cpp",
                 grammar("tree_sitter_cpp"), grammar_dist="tree-sitter-cpp",
                 aliases=("c++", "cxx"), namespace="cfamily",
                 test_files=(r"[^/]*_(test|unittest)\.(cc|cpp|cxx)",
                             r"test_[^/]*\.(cc|cpp|cxx)"), **_C_FAMILY),
    LanguageSpec("php", (".php",), "php", grammar("tree_sitter_php", "language_php"),
                 grammar_dist="tree-sitter-php",
                 test_files=(r"[^/]*Test\.php",), packages=True,
                 common_calls=vocabulary.PHP_COMMON, self_names=("this", "self"),
                 super_names=("super",), constructor_names=("__construct",),
                 null_words=frozenset({"null"}), config_files=("composer.json",),
                 repo_facts="php:repo_facts"),
    LanguageSpec("ruby", (".rb",), "ruby", grammar("tree_sitter_ruby"),
                 grammar_dist="tree-sitter-ruby", aliases=("rb",),
                 test_files=(r"[^/]*_(test|spec)\.rb", r"test_[^/]*\.rb"), packages=True,
                 common_calls=vocabulary.RUBY_COMMON,
                 self_names=("self",), super_names=("super",),
                 constructor_names=("initialize",), null_words=frozenset({"nil"}),
                 repo_facts="ruby:repo_facts"),
    LanguageSpec("swift", (".swift",), "swift", grammar("tree_sitter_swift"),
                 grammar_dist="tree-sitter-swift",
                 test_files=(r"[^/]*Tests?\.swift",), packages=True, implicit_this=True,
                 overloads_in_fqn=True, overload_choice="swift_overloads:choose",
                 common_calls=vocabulary.SWIFT_COMMON, self_names=("self",),
                 super_names=("super",), constructor_names=("init",),
                 null_words=frozenset({"nil"}),
                 item_reads=vocabulary.words("first last popLast removeFirst removeLast")),
    LanguageSpec("scala", (".scala", ".sc"), "scala", grammar("tree_sitter_scala"),
                 grammar_dist="tree-sitter-scala",
                 test_files=(r"[^/]*(Test|Tests|Spec|Suite)\.scala",), packages=True,
                 implicit_this=True, overloads_in_fqn=True, apply_method="apply",
                 common_calls=vocabulary.SCALA_COMMON, conversions=vocabulary.JVM_CONVERSIONS,
                 self_names=("this",), super_names=("super",),
                 item_reads=vocabulary.words("apply get getOrElse head last headOption"),
                 config_files=("routes",), repo_facts="scala:repo_facts",
                 type_prepass="scala:infix_operator"),
)

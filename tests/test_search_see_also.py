"""A doc comment that sends the reader elsewhere ("For full documentation, see comments in
`log.h`") says where its subject is documented: a question matching that comment finds
the file it names, whose own words may differ. Only references introduced by *see*
count (:mod:`graphrag.parsing.docrefs`)."""

from __future__ import annotations

import os

import pytest

from graphrag.parsing.docrefs import DocReference, doc_references
from graphrag.retrieval.search.engine import search
from graphrag.retrieval.search.model import SearchOptions
from tests.conftest import indexed_folder, scope_of

LOG_H = """// File: log/log.h
//
// This header declares a family of LOG macros.
//
//   LOG(INFO) << "Found " << num_cookies << " cookies";
//
// Most LOG macros take a severity level argument: INFO, WARNING, ERROR or
// FATAL. A FATAL message terminates the program after it is written.
// VLOG(n) writes verbose messages only when verbosity n is enabled;
// LOG_IF(severity, condition) writes only when the condition holds.

#define LOG(severity) MYLIB_LOG_INTERNAL_LOG_IMPL(_##severity)
#define VLOG(verbosity) MYLIB_LOG_INTERNAL_VLOG_IMPL(verbosity)
#define LOG_IF(severity, condition) MYLIB_LOG_INTERNAL_LOG_IF_IMPL(_##severity, condition)
"""
PREFIXED_H = """// File: log/prefixed_log.h
//
// This header declares a family of `MYLIB_LOG` macros as alternative spellings
// for the macros in `log.h`, for code that must not define a macro named LOG.
//
// For full documentation, see comments in `log.h`, which has an identical set
// of macros without the MYLIB_ prefix.

#define MYLIB_LOG(severity) MYLIB_LOG_INTERNAL_LOG_IMPL(_##severity)
#define MYLIB_VLOG(verbosity) MYLIB_LOG_INTERNAL_VLOG_IMPL(verbosity)
"""
IMPL_H = """// MYLIB_LOG_INTERNAL_LOG_IMPL: the statement a logging macro expands to.
#define MYLIB_LOG_INTERNAL_LOG_IMPL(severity) ::mylib::LogMessage(severity).stream()
#define MYLIB_LOG_INTERNAL_VLOG_IMPL(verbosity) if (::mylib::VLogIsOn(verbosity)) LOG(INFO)
#define MYLIB_LOG_INTERNAL_LOG_IF_IMPL(severity, condition) if (condition) LOG(severity)
"""
# Headers that name the macros without documenting them: the candidate lists fill with
# them, so the documented header is no candidate of its own.
SINK_H = """// File: log/sink_{i}.h
//
// Sink number {i}: receives each MYLIB_LOG message and stores its text.
namespace mylib {{
// Stores one MYLIB_LOG message in sink {i}.
void Sink{i}Send(const char* message);
}}
"""
QUESTION = "alternative spellings of the logging macros"


@pytest.fixture(scope="module")
def log_app(tmp_path_factory: pytest.TempPathFactory, db_url, models_dir):
    root = tmp_path_factory.mktemp("see-also")
    (root / "log" / "internal").mkdir(parents=True)
    (root / "log" / "log.h").write_text(LOG_H)
    (root / "log" / "prefixed_log.h").write_text(PREFIXED_H)
    (root / "log" / "internal" / "log_impl.h").write_text(IMPL_H)
    for i in range(30):
        (root / "log" / f"sink_{i}.h").write_text(SINK_H.format(i=i))
    with indexed_folder(root, f"seealso{os.getpid()}", db_url, models_dir) as name:
        yield name


def test_the_file_a_doc_comment_refers_to_is_found(engine, log_app, embedder) -> None:
    scope = scope_of(engine, log_app)
    for top_k in (10, 40):  # the referenced file ranks by what it matches, as a candidate
        hits = search(scope, QUESTION, SearchOptions(top_k=top_k), embedder).hits
        assert [h["file_path"] for h in hits[:2]] == ["log/log.h", "log/prefixed_log.h"], \
            (top_k, [h["file_path"] for h in hits])
    off = search(scope, QUESTION, SearchOptions(disabled=("see-also",)), embedder).hits
    assert off[0]["file_path"] == "log/prefixed_log.h"
    # a statement of what one function does is not sent elsewhere
    statement = "Declares alternative spellings of the logging macros."
    said = search(scope, statement, SearchOptions(), embedder).hits
    unsent = search(scope, statement, SearchOptions(disabled=("see-also",)), embedder).hits
    assert [(h["chunk_id"], h["score"]) for h in said] == \
        [(h["chunk_id"], h["score"]) for h in unsent]


@pytest.mark.parametrize(("doc", "refs"), [
    ("For full documentation, see comments in `log.h`, which has", [("log.h", True)]),
    ("see absl/base/config.h for the flags", [("absl/base/config.h", True)]),
    ("Runs the parser. See also: parse_args() and friends.", [("parse_args", False)]),
    ("@see Foo#bar", [("Foo#bar", False)]),
    ("see the documentation of StrCat and `StrAppend`", [("StrCat", False)]),
    ("See `ZodType.parse` and `check.h`.", [("ZodType.parse", False)]),
    ("See below for details. See RFC 7230. We see that it works.", []),
    ("see symbolize, see https://example.com/x", []),
    ("Returns a {@link Foo} for [`Bar`]", []),
    (None, []),
])
def test_doc_references_are_the_targets_of_see(doc: str | None,
                                               refs: list[tuple[str, bool]]) -> None:
    assert doc_references(doc) == [DocReference(text, is_path) for text, is_path in refs]

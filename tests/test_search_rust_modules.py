"""Search over a Rust crate's module files: a trait another crate defines and this crate
publishes (``pub use other::FromRequest``) is found at the file that publishes it, and a
module's documentation (``//!``, an included Markdown file) describes its ``mod.rs``."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from sqlalchemy import text

from graphrag.retrieval.search.engine import search
from graphrag.retrieval.search.model import SearchOptions
from tests.conftest import indexed_folder, scope_of

EXTRACT_MOD = '''#![doc = include_str!("../docs/extract.md")]

pub mod json;

#[doc(inline)]
pub use core_crate::extract::{FromRequest, FromRequestParts, Request};

pub use self::json::Json;

pub(crate) fn has_content_type(headers: &str, expected: &str) -> bool {
    headers.contains(expected)
}
'''
EXTRACT_DOC = """Types and traits for extracting data from requests.

An extractor takes the request apart before the handler runs: its body, its headers,
its path parameters. A failed extraction is turned into an error response.
"""
# Implementations name the trait far more often than the file that publishes it: the
# ranked lists find them first.
IMPL = '''use core_crate::extract::{{FromRequest, FromRequestParts, Request}};

/// Extractor number {i}: FromRequest and FromRequestParts for Wrapper{i}.
pub struct Wrapper{i}(String);

impl<S> FromRequest<S> for Wrapper{i} {{
    // FromRequest FromRequest FromRequest FromRequestParts
    fn from_request(req: Request, state: &S) -> Self {{ Wrapper{i}(req.body()) }}
}}
'''
MIDDLEWARE_MOD = '''//! Utilities for writing middleware
//!
#![doc = include_str!("../docs/middleware.md")]

mod from_fn;

pub use self::from_fn::{from_fn, FromFn};
'''
MIDDLEWARE_DOC = """# Intro

This crate has no bespoke middleware system of its own and instead integrates with
tower: every tower layer works with it. Apply layers to entire routers with
Router::layer, to method routers, or to individual handlers.
"""
FROM_FN = '''/// Create a middleware from an async function.
pub fn from_fn<F>(f: F) -> FromFn<F> { FromFn { f } }

/// A middleware made from a function.
pub struct FromFn<F> { f: F }
'''


@pytest.fixture(scope="module")
def rust_app(db_url, models_dir):
    root = Path(tempfile.mkdtemp(prefix="graphrag-rust-mods-"))
    src = root / "web" / "src"
    for folder in ("extract", "middleware", "docs", "impls"):
        (src / folder).mkdir(parents=True)
    (root / "web" / "Cargo.toml").write_text('[package]\nname = "web"\n')
    (src / "lib.rs").write_text("pub mod extract;\npub mod middleware;\nmod impls;\n")
    (src / "extract" / "mod.rs").write_text(EXTRACT_MOD)
    (src / "extract" / "json.rs").write_text("pub struct Json<T>(pub T);\n")
    (src / "docs" / "extract.md").write_text(EXTRACT_DOC)
    (src / "docs" / "middleware.md").write_text(MIDDLEWARE_DOC)
    (src / "middleware" / "mod.rs").write_text(MIDDLEWARE_MOD)
    (src / "middleware" / "from_fn.rs").write_text(FROM_FN)
    (src / "impls" / "mod.rs").write_text(
        "".join(f"mod wrapper_{i};\n" for i in range(30)))
    for i in range(30):
        (src / "impls" / f"wrapper_{i}.rs").write_text(IMPL.format(i=i))
    with indexed_folder(src, f"rustmods{os.getpid()}", db_url, models_dir) as name:
        yield name


def test_a_trait_published_from_another_crate_is_found_where_it_is_published(
        engine, rust_app, embedder) -> None:
    with engine.connect() as conn:
        meta = conn.execute(text(
            "SELECT n.meta FROM nodes n JOIN applications a ON a.id = n.application_id"
            " WHERE a.name = :a AND n.kind = 'FILE' AND n.file_path = 'extract/mod.rs'"),
            {"a": rust_app}).scalar_one()
    # the names published from outside the indexed folder, at their line; a private or
    # in-repository name is not listed
    assert meta["external_exports"] == {"FromRequest": 6, "FromRequestParts": 6,
                                        "Request": 6}
    scope = scope_of(engine, rust_app)
    hits = search(scope, "FromRequest", SearchOptions(), embedder).hits
    first = hits[0]
    assert first["file_path"] == "extract/mod.rs"
    assert first["chunk_line_start"] <= 6 <= first["chunk_line_end"]
    off = search(scope, "FromRequest", SearchOptions(disabled=("definitions",)), embedder).hits
    assert off[0]["file_path"] != "extract/mod.rs"
    # a question naming the traits finds the module too, among their implementations,
    # however many hits are asked for: the front file keeps its score when the code chunk
    # publishing the names, not its documentation, is the module's best
    for top_k in (10, 30, 60):
        asked = search(scope, "how extractors implement FromRequest and FromRequestParts",
                       SearchOptions(top_k=top_k), embedder).hits
        assert asked[0]["file_path"] == "extract/mod.rs", \
            (top_k, [h["file_path"] for h in asked])
    # only a kind filter that admits files lets the published name through
    only_types = search(scope, "FromRequest", SearchOptions(kinds=("CLASS",)),
                        embedder).hits
    assert "extract/mod.rs" not in [h["file_path"] for h in only_types]


def test_a_modules_documentation_describes_its_mod_rs(engine, rust_app, embedder) -> None:
    with engine.connect() as conn:
        docs = dict(conn.execute(text(
            "SELECT n.file_path, n.doc_comment FROM nodes n JOIN applications a"
            " ON a.id = n.application_id WHERE a.name = :a AND n.kind = 'FILE'"
            " AND n.doc_comment IS NOT NULL"), {"a": rust_app}).all())
    assert set(docs) == {"extract/mod.rs", "middleware/mod.rs"}
    assert docs["middleware/mod.rs"].startswith(
        "Utilities for writing middleware\n\n# Intro\n\nThis crate has no bespoke")
    hits = search(scope_of(engine, rust_app), "how the crate maps tower middleware layers onto "
                  "the router", SearchOptions(), embedder).hits
    code = [h for h in hits if h["kind"] == "FILE" or h["file_path"].endswith(".rs")]
    assert code[0]["file_path"] == "middleware/mod.rs"


def test_a_module_doc_ranks_like_a_type_and_its_code_like_a_file() -> None:
    from graphrag.retrieval.search.model import Candidate
    from graphrag.retrieval.search.priors import KIND_PRIORS, prior

    def cand(source: str) -> Candidate:
        return Candidate(id=1, plan_id="p", node_id=1, app="a", fqn="middleware/mod.rs",
                         kind="FILE", source=source, chunk_kind="snippet",
                         file_path="middleware/mod.rs", line_start=1, line_end=30,
                         page_number=None, rank_boost=1.0, content="", explain_md=None)

    assert prior(cand("doc")) == KIND_PRIORS["CLASS"]
    assert prior(cand("code")) < KIND_PRIORS["FILE"]  # a front file's imports: demoted

"""What the embedding model reads: code chunks lead with the symbol's name in words and
the code, never the structural summary; documents keep title, section path, summary."""

from __future__ import annotations

from dataclasses import replace

from graphrag.pipeline.model import NodeInfo, WorkItem
from graphrag.pipeline.stages.embed import embed_input, first_sentence, title_input

STRUCTURAL = "Method getList of class MultiDict (java, a.java, lines 3-9). Called by: test_a"


def _item(source: str, kind: str, content: str, *, doc: str | None = None,
          quality: dict | None = None, parent: tuple[str, str] | None = ("CLASS", "p.MultiDict"),
          name: str = "getList", title: str = "p.MultiDict.getList",
          section: list[str] | None = None) -> WorkItem:
    node = NodeInfo(id=1, kind=kind, name=name, fqn=title, file_path="a.java", lang="java",
                    line_start=3, line_end=9, signature=None, doc_comment=doc,
                    content_hash=None, meta={}, parent_id=2 if parent else None,
                    parent_kind=parent[0] if parent else None,
                    parent_fqn=parent[1] if parent else None)
    row = {"source": source, "title": title, "section_path": section or [],
           "explain_md": STRUCTURAL, "explain_quality": quality or {"method": "structural"},
           "content": content}
    return WorkItem(id=1, row=row, node=node)


def test_code_chunk_has_header_in_words_then_code_and_no_structural_summary() -> None:
    text = embed_input(_item("code", "METHOD", "List<V> getList(K key) { ... }"))
    assert text.splitlines()[0] == "method MultiDict.getList (multi dict get list)"
    assert text.endswith("List<V> getList(K key) { ... }")
    assert "Called by" not in text and STRUCTURAL not in text


def test_code_chunk_gets_the_doc_comments_first_sentence() -> None:
    doc = "/**\n * Returns every value stored under the key. Never null.\n *\n * @param key k\n */"
    text = embed_input(_item("code", "METHOD", "code()", doc=doc))
    assert "Returns every value stored under the key." in text
    assert "Never null" not in text and "@param" not in text


def test_llm_summaries_are_embedded_structural_ones_are_not() -> None:
    item = _item("code", "FUNCTION", "def f(): ...", parent=None, name="f", title="m.f",
                 quality={"method": "llm", "model": "x"})
    item.row["explain_md"] = "Computes the invoice total."
    text = embed_input(item)
    assert text.splitlines()[0] == "function f (f)"
    assert "Computes the invoice total." in text


def test_documents_keep_title_section_summary_content() -> None:
    item = _item("doc", "SECTION", "Vacation days: 25.", parent=None, name="Leave",
                 title="handbook.md", section=["HR", "Leave"])
    item.row["explain_md"] = "About leave."
    assert embed_input(item) == "handbook.md\n\nHR > Leave\n\nAbout leave.\n\nVacation days: 25."


def test_first_sentence() -> None:
    assert first_sentence('"""Parse a header.\n\n    More text."""') == "Parse a header."
    assert first_sentence("// BasicAuth returns a middleware.\n// It checks users.") == \
        "BasicAuth returns a middleware."
    assert first_sentence(None) == ""


def test_title_of_a_code_chunk_is_name_owner_and_signature() -> None:
    item = _item("code", "METHOD", "@Override\n// note\nList<V> getList(K key) {\n  ...\n}")
    assert title_input(item) == "get list. multi dict. List<V> getList(K key) {"
    item.node = replace(item.node, signature="List<V> getList(K key)")
    assert title_input(item) == "get list. multi dict. List<V> getList(K key)"
    top = _item("code", "FUNCTION", "def f(x): ...", parent=None, name="parse_date",
                title="m.parse_date")
    assert title_input(top) == "parse date. def f(x): ..."


def test_title_of_a_documented_chunk_ends_with_its_docs_first_sentence() -> None:
    # a name like `build` says little of what it does; its doc comment says it plainly
    item = _item("code", "METHOD", "def build(app)\n  ...\nend", name="build",
                 parent=("CLASS", "s.Base"), title="s.Base.build",
                 doc="Creates a Rack::Builder instance with all the middleware set up\n"
                     "and the given +app+ as end point. Called once per app.")
    assert title_input(item) == ("build. base. def build(app). Creates a Rack::Builder "
                                 "instance with all the middleware set up and the given "
                                 "+app+ as end point.")


def test_documents_and_doc_chunks_have_no_title() -> None:
    section = _item("doc", "SECTION", "Vacation days: 25.", parent=None, name="Leave",
                    title="handbook.md", section=["HR", "Leave"])
    assert title_input(section) == ""
    assert title_input(_item("doc", "METHOD", "Explains getList.")) == ""

"""The one vocabulary of node, edge and document kinds, shared by every step.

The database stores kinds as text; these tuples are what the graph can hold, what the
CLI and the server accept in ``--kinds``/``include_kinds`` filters, and the groups the
steps reason about (a type, a callable, a document unit).
"""

from __future__ import annotations

# Every node kind the graph (code and documents) can hold, in a stable display order.
NODE_KINDS: tuple[str, ...] = (
    "REPOSITORY", "FILE", "MODULE", "PACKAGE", "CLASS", "INTERFACE", "ENUM", "OBJECT",
    "FUNCTION", "METHOD", "CONSTRUCTOR", "FIELD", "ENDPOINT", "DOCUMENT", "PAGE", "SECTION",
)
# Every edge kind.
EDGE_KINDS: tuple[str, ...] = (
    "CONTAINS", "CALLS", "IMPORTS", "EXTENDS", "IMPLEMENTS", "OVERRIDES", "MENTIONS", "NEXT",
)

# Declarations that own members.
TYPE_KINDS = frozenset({"CLASS", "INTERFACE", "ENUM", "OBJECT"})
# Declarations that run: what a CALLS edge starts or ends at.
CALLABLE_KINDS = frozenset({"FUNCTION", "METHOD", "CONSTRUCTOR", "ENDPOINT"})
# Symbols a parser extracts from a source file.
SYMBOL_KINDS: tuple[str, ...] = (
    "CLASS", "INTERFACE", "ENUM", "OBJECT", "FUNCTION", "METHOD", "CONSTRUCTOR",
    "FIELD", "ENDPOINT",
)
# Nodes whose text is source code.
CODE_KINDS = frozenset({"FILE", "MODULE", *SYMBOL_KINDS})
# Nodes of uploaded or repository documents (PDF, DOCX, Markdown).
DOCUMENT_KINDS: tuple[str, ...] = ("DOCUMENT", "PAGE", "SECTION")
# Document nodes that hold text of their own (a DOCUMENT only contains them).
DOCUMENT_UNIT_KINDS = frozenset({"PAGE", "SECTION"})

# Pipeline stage names: a chunk's plan lists the stages it runs by these names, and the
# stage state of each chunk is keyed by them (plugins add their own names).
EXTRACT_SNIPPET = "extract-snippet"
RENDER_DOC = "render-doc"
EXTRACT_PAGE = "extract-page"
SUMMARIZE = "summarize"
EMBED = "embed"
SPLIT_SENTENCES = "split-sentences"
LINK_EDGES = "link-edges"

# What a chunk is, for the stages (each stage declares which of these it applies to):
# a code snippet, a rendered doc comment, or a piece of a document's page or section.
CODE_CHUNKS = "code"
DOC_CHUNKS = "doc"
PAGE_CHUNKS = "page"
CHUNK_TARGETS: tuple[str, ...] = (CODE_CHUNKS, DOC_CHUNKS, PAGE_CHUNKS)

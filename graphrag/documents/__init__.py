"""Documents (PDF, DOCX, Markdown, text) as DOCUMENT/PAGE/SECTION nodes of the graph.

Extraction per format, validation, stored originals, graph nodes with MENTIONS links to
code, and the prepare / finalize / delete services. Chunking and the pipeline take the
nodes from there like any other node (see ``graphrag.ingesting``)."""

from graphrag.documents.model import DocumentError, Extracted, Unit
from graphrag.documents.service import (
    DocumentRequest,
    Prepared,
    delete_document,
    finalize_documents,
    list_documents,
    prepare_document,
)

__all__ = ["DocumentError", "DocumentRequest", "Extracted", "Prepared", "Unit",
           "delete_document", "finalize_documents", "list_documents", "prepare_document"]

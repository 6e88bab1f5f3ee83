"""Document question answering on top of search: segment ids of document chunks
(:mod:`~graphrag.retrieval.documents.segments`), adjacent pages
(:mod:`~graphrag.retrieval.documents.adjacent`), sentence-level search
(:mod:`~graphrag.retrieval.documents.sentences`), the document-aware search behind
``graphrag search`` (:mod:`~graphrag.retrieval.documents.search`) and citations of an
answer (:mod:`~graphrag.retrieval.documents.citations`); every statement in
:mod:`~graphrag.retrieval.documents.store`.
"""

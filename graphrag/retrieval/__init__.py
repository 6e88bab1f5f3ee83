"""Retrieval: the read side over the indexed graph and chunks, one subpackage per product,
each with its own store (the SQL it runs):

- :mod:`graphrag.retrieval.search`: ranked chunks for a query (vector, BM25, hybrid;
  search modes, ranking signals, ``--expand calls``), batch search and hit-test;
- :mod:`graphrag.retrieval.documents`: document question answering on top of search
  (sentence-level search, adjacent pages, segment ids, citations of an answer);
- :mod:`graphrag.retrieval.context`: context for agents and documentation generators
  (a node or a query's best hits, its neighbourhood ranked and packed into a budget).

``documents`` builds on ``search``, ``context`` on both; none imports a later one.
"""

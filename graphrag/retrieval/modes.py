"""The search mode registry under the path plugins were first written against; the
registry itself is :mod:`graphrag.retrieval.search.modes`."""

from graphrag.retrieval.search.modes import SearchMode, get_mode, mode_names, modes, register_mode

__all__ = ["SearchMode", "get_mode", "mode_names", "modes", "register_mode"]

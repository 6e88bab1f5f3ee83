"""Chunk strategy registry: ``get_strategy(name)``; built-ins registered like extensions."""

from __future__ import annotations

from collections.abc import Callable

from graphrag.chunking.strategies.base import ChunkStrategy
from graphrag.errors import UnknownName

# A factory receives the token budget override (None: the embedding model's default).
StrategyFactory = Callable[[int | None], ChunkStrategy]

_REGISTRY: dict[str, StrategyFactory] = {}


def register_strategy(name: str, factory: StrategyFactory) -> None:
    """Make a strategy available as ``graphrag chunk --strategy NAME``."""
    _REGISTRY[name] = factory


def unregister_strategy(name: str) -> None:
    _REGISTRY.pop(name, None)


def strategy_names() -> list[str]:
    return sorted(_REGISTRY)


def get_strategy(name: str, token_budget: int | None = None) -> ChunkStrategy:
    """A new instance of the strategy ``name``; :class:`UnknownName` lists the valid ones."""
    try:
        factory = _REGISTRY[name]
    except KeyError:
        raise UnknownName("strategy", name, strategy_names()) from None
    return factory(token_budget)


def _per_node(token_budget: int | None) -> ChunkStrategy:
    from graphrag.chunking.strategies.per_node import PerNodeChunkStrategy

    return PerNodeChunkStrategy()


def _ast(token_budget: int | None) -> ChunkStrategy:
    from graphrag.chunking.strategies.ast import AstChunkStrategy
    from graphrag.chunking.tokens import model_token_counter

    if token_budget is not None:
        return AstChunkStrategy(lambda: token_budget)
    return AstChunkStrategy(lambda: model_token_counter().default_budget)


def _page(token_budget: int | None) -> ChunkStrategy:
    from graphrag.chunking.strategies.page import PageChunkStrategy

    return PageChunkStrategy(code=_ast(token_budget))


register_strategy("per-node", _per_node)
register_strategy("ast", _ast)
register_strategy("page", _page)

__all__ = ["ChunkStrategy", "get_strategy", "register_strategy", "strategy_names",
           "unregister_strategy"]

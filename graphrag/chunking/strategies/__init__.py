"""Chunk strategy registry: ``get_strategy(name)``; built-ins registered like extensions
(one :class:`~graphrag.plugins.Registry`; plugins through the
``graphrag.chunk_strategies`` entry point group, whose hook receives
``register(name, factory)``)."""

from __future__ import annotations

from collections.abc import Callable

from graphrag.chunking.strategies.base import ChunkStrategy
from graphrag.config import Settings
from graphrag.plugins import CHUNK_STRATEGIES_GROUP, Registry

# A factory receives the token budget override (None: the embedding model's default) and
# the settings of the run (which embedding model counts the tokens; None: the
# environment's).
StrategyFactory = Callable[[int | None, Settings | None], ChunkStrategy]


def _builtins(register: Callable[[str, StrategyFactory], StrategyFactory]) -> None:
    register("per-node", _per_node)
    register("ast", _ast)
    register("page", _page)


_STRATEGIES: Registry[StrategyFactory] = Registry("strategy", CHUNK_STRATEGIES_GROUP, _builtins)


def register_strategy(name: str, factory: StrategyFactory) -> None:
    """Make a strategy available as ``graphrag chunk --strategy NAME``."""
    _STRATEGIES.register(name, factory)


def unregister_strategy(name: str) -> None:
    _STRATEGIES.unregister(name)


def strategy_names() -> list[str]:
    return sorted(_STRATEGIES.names())


def get_strategy(name: str, token_budget: int | None = None,
                 settings: Settings | None = None) -> ChunkStrategy:
    """A new instance of the strategy ``name``; :class:`UnknownName` lists the valid ones."""
    return _STRATEGIES.get(name)(token_budget, settings)


def strategies() -> Registry[StrategyFactory]:
    """The registry itself (``reload()`` after installing a plugin in this process)."""
    return _STRATEGIES


def _per_node(token_budget: int | None, settings: Settings | None) -> ChunkStrategy:
    from graphrag.chunking.strategies.per_node import PerNodeChunkStrategy

    return PerNodeChunkStrategy()


def _ast(token_budget: int | None, settings: Settings | None) -> ChunkStrategy:
    from graphrag.chunking.strategies.ast import AstChunkStrategy
    from graphrag.chunking.tokens import model_token_counter

    if token_budget is not None:
        return AstChunkStrategy(lambda: token_budget)
    return AstChunkStrategy(lambda: model_token_counter(settings).default_budget)


def _page(token_budget: int | None, settings: Settings | None) -> ChunkStrategy:
    from graphrag.chunking.strategies.page import PageChunkStrategy

    return PageChunkStrategy(code=_ast(token_budget, settings))


__all__ = ["ChunkStrategy", "get_strategy", "register_strategy", "strategies",
           "strategy_names", "unregister_strategy"]

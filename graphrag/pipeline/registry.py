"""The registry of pipeline stages, by name (one :class:`~graphrag.plugins.Registry`).

Built-in stages are registered the same way an extension registers its own::

    from graphrag.pipeline.registry import register
    register(MyStage())

or, from a plugin package, through the ``graphrag.stages`` entry point group, whose hook
receives ``register(name, stage)`` (see :mod:`graphrag.plugins`). A chunk's plan names
its stages (``pipeline.stages``); the runner looks each name up here. The stages' declared
facts (what they apply to, whether they read edges or write vectors) are read here too:
the plans' stage lists (:func:`stage_lists`), the stages a graph change re-runs
(:func:`edge_stages`) and those a model change re-runs (:func:`vector_stages`).
"""

from __future__ import annotations

from collections.abc import Callable

from graphrag.kinds import CHUNK_TARGETS
from graphrag.pipeline.model import BaseStage
from graphrag.plugins import STAGES_GROUP, Registry


def _builtins(register: Callable[[str, BaseStage], BaseStage]) -> None:
    from graphrag.pipeline.stages import BUILTIN_STAGES

    for cls in BUILTIN_STAGES:
        register(cls.name, cls())


_STAGES: Registry[BaseStage] = Registry("stage", STAGES_GROUP, _builtins)


def register(stage: BaseStage) -> BaseStage:
    """Add (or replace) a stage under its ``name``."""
    return _STAGES.register(stage.name, stage)


def unregister(name: str) -> None:
    """Remove the stage ``name`` (no error when absent)."""
    _STAGES.unregister(name)


def stage_names() -> list[str]:
    """Registered stage names, built-ins first in their canonical order."""
    return _STAGES.names()


def get_stage(name: str) -> BaseStage:
    """The stage called ``name``; :class:`UnknownName` lists the valid ones."""
    return _STAGES.get(name)


def has_stage(name: str) -> bool:
    return name in _STAGES


def stages() -> Registry[BaseStage]:
    """The registry itself (``reload()`` after installing a plugin in this process)."""
    return _STAGES


def _declared(fact: Callable[[BaseStage], bool]) -> tuple[str, ...]:
    return tuple(name for name in _STAGES.names() if fact(_STAGES.get(name)))


def stages_for(target: str) -> tuple[str, ...]:
    """The stages a chunk of ``target`` (``code``, ``doc``, ``page``) runs, in order."""
    return _declared(lambda stage: target in stage.applies_to)


def stage_lists() -> dict[str, tuple[str, ...]]:
    """Every chunk target's stage list: what chunk plans record as their stages."""
    return {target: stages_for(target) for target in CHUNK_TARGETS}


def edge_stages() -> tuple[str, ...]:
    """Stages whose output depends on a node's edges (run again when they change)."""
    return _declared(lambda stage: stage.reads_edges)


def vector_stages() -> tuple[str, ...]:
    """Stages that store vectors (run again when the embedding model changes)."""
    return _declared(lambda stage: stage.writes_vectors)

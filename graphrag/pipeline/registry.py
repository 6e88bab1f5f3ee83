"""The registry of pipeline stages, by name (one :class:`~graphrag.plugins.Registry`).

Built-in stages are registered the same way an extension registers its own::

    from graphrag.pipeline.registry import register
    register(MyStage())

or, from a plugin package, through the ``graphrag.stages`` entry point group, whose hook
receives ``register(name, stage)`` (see :mod:`graphrag.plugins`). A chunk's plan names
its stages (``pipeline.stages``); the runner looks each name up here.
"""

from __future__ import annotations

from collections.abc import Callable

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

"""Context a documentation generator can publish, on a small click-shaped repository
indexed in the test: a seed's direct callees and callers, the classes it constructs and
the method it overrides come before a busy helper two calls away; code in tests and
examples is counted, not shown; subclasses in tests are counted apart; a decorator's
callers are the decorated functions, not their files."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import Engine, text

from graphrag.config import load_settings
from graphrag.db.engine import get_engine
from graphrag.embedding import count_tokens, get_tokenizer
from graphrag.indexing import index_repository
from graphrag.retrieval.context import build_context
from tests.conftest import context_of

BUSY = "\n".join(f"    out = out + '{i}' * {i}  # a long line of work number {i} in echo"
                 for i in range(60))

FILES = {
    "clicky/__init__.py": "",
    "clicky/utils.py": f'''def echo(message: str) -> str:
    """Print a message (every command uses it)."""
    out = message
{BUSY}
    return out


def style(text: str) -> str:
    return echo(text)


def secho(text: str) -> str:
    return echo(style(text))
''',
    "clicky/core.py": '''from clicky.utils import echo


class Parameter:
    """A command parameter."""

    def __init__(self, name: str) -> None:
        self.name = name

    def add_to_parser(self, parser: list) -> None:
        parser.append(self.name)


class Option(Parameter):
    """An option on the command line."""

    def __init__(self, name: str) -> None:
        super().__init__(name.lstrip("-"))

    def add_to_parser(self, parser: list) -> None:
        """Add the option's flags."""
        parser.append("--" + self.name)


class Command:
    """A command."""

    def __init__(self, params: list[Parameter]) -> None:
        self.params = params

    def make_parser(self) -> list:
        parser: list = []
        for param in self.params:
            param.add_to_parser(parser)
        echo("parser made")
        return parser
''',
    "clicky/termui.py": '''from clicky.utils import echo


def _build_prompt(text: str, suffix: str) -> str:
    return text + suffix


def prompt(text: str) -> str:
    """Ask the user for a value."""
    echo("asking")
    return _build_prompt(text, ": ")


def confirm(text: str) -> str:
    """Ask yes or no."""
    return prompt(text + " [y/n]")
''',
    "clicky/decorators.py": '''from clicky.core import Option


def option(name: str):
    """Attach an option to a command."""
    def decorator(f):
        f.option = Option(name)
        return f
    return decorator


@option("--count")
def hello():
    return 1


@option("--name")
def greet():
    return 2
''',
    "tests/test_termui.py": '''from clicky.core import Option
from clicky.termui import prompt


class FakeOption(Option):
    pass


def test_prompt():
    assert prompt("x")
''',
    "examples/ask.py": '''from clicky.termui import prompt


def main():
    return prompt("name")
''',
}


@pytest.fixture(scope="module")
def indexed(db_url: str, tmp_path_factory) -> Iterator[tuple[Engine, str]]:
    home = tmp_path_factory.mktemp("home")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("GRAPHRAG_HOME", str(home))
        mp.setenv("GRAPHRAG_DATABASE_URL", db_url)
        settings = load_settings()
        engine = get_engine(settings)
        root = tmp_path_factory.mktemp("repo")
        for rel, body in FILES.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(body)
        name = "ctx_docs"
        result = index_repository(engine, settings, root, name)
        assert result["pipeline"]["failed"] == 0
        yield engine, name
    with engine.begin() as conn:
        conn.execute(text("DELETE FROM applications WHERE name = :n"), {"n": name})


@pytest.fixture(scope="module")
def tokens():
    tok = get_tokenizer(load_settings())
    return lambda s: count_tokens(tok, [s])[0]


def _fqns(ctx) -> list[str]:
    return list(dict.fromkeys(b.fqn for b in ctx.blocks))


def test_direct_neighbours_come_before_a_busy_node_two_calls_away(indexed, tokens) -> None:
    engine, name = indexed
    ctx = build_context(context_of(engine, name), fqn="clicky.termui.prompt", budget=1500,
                        count_tokens=tokens)
    fqns = _fqns(ctx)
    # the seed, its own caller and helper, then `echo` (a direct callee, but every
    # function calls it), then what is two calls away
    assert fqns[:4] == ["clicky.termui.prompt", "clicky.termui.confirm",
                        "clicky.termui._build_prompt", "clicky.utils.echo"], fqns
    assert "clicky.utils.style" not in fqns[:4]
    # tests and examples: counted in the seed's callers, never shown
    seed = ctx.blocks[0].text
    assert "- 2 callers in tests and examples (not listed)" in seed
    assert not any((b.file_path or "").startswith(("tests/", "examples/")) for b in ctx.blocks)
    shown = build_context(context_of(engine, name), fqn="clicky.termui.prompt", budget=4000,
                          count_tokens=tokens, test_callers=True)
    assert any((b.file_path or "").startswith("examples/") for b in shown.blocks)


def test_decorator_callers_are_functions_and_the_class_it_makes_is_shown(
        indexed, tokens) -> None:
    engine, name = indexed
    ctx = build_context(context_of(engine, name), fqn="clicky.decorators.option", budget=3000,
                        count_tokens=tokens)
    seed = ctx.blocks[0].text
    assert "`clicky.decorators.hello`" in seed and "`clicky.decorators.greet`" in seed
    assert "`clicky/decorators.py`" not in seed
    assert "clicky.core.Option" in _fqns(ctx)[:4]


def test_override_context_shows_callers_via_the_base_and_counts_test_subclasses(
        indexed, tokens) -> None:
    engine, name = indexed
    ctx = build_context(context_of(engine, name), fqn="clicky.core.Option.add_to_parser",
                        budget=3000, count_tokens=tokens)
    seed = ctx.blocks[0].text
    assert "`clicky.core.Command.make_parser`" in seed
    assert "via `clicky.core.Parameter.add_to_parser`" in seed
    assert "clicky.core.Parameter.add_to_parser" in _fqns(ctx)[:3]
    cls = build_context(context_of(engine, name), fqn="clicky.core.Option", budget=3000,
                        count_tokens=tokens)
    text_ = cls.blocks[0].text
    assert "Subclasses in tests and examples: 1 (not listed)" in text_
    assert "FakeOption" not in text_

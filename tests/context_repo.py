"""A small multi-language repository for the context, lookup and mention tests: Python
overloads and TYPE_CHECKING definitions, a class with a constructor, members and a
subclass, a method long enough to be split into several chunks, a package that
re-exports, tests that call the code, a TypeScript barrel, a Java class, a README."""

from __future__ import annotations

from pathlib import Path

LONG_BODY = "\n".join(
    f"        total += compute_step(mode, {i}) * {i + 3}  # step {i} of the long handler"
    for i in range(40))

FILES = {
    "pkg/__init__.py": "from .core import Command, helper\nfrom .runner import Runner\n",
    "pkg/core.py": f'''import typing as t
from typing import TYPE_CHECKING, overload

if TYPE_CHECKING:
    def helper(x: int) -> str: ...
else:
    def helper(x):
        """Turn x into text."""
        return str(x)


def compute_step(mode: str, i: int) -> int:
    return len(mode) + i


class Base:
    """The base of all commands."""

    def describe(self) -> str:
        return "base"


class Command(Base):
    """A command users run.

    It keeps a name and a number of retries.
    """

    def __init__(self, name: str, retries: int = 3) -> None:
        self.name = name
        self.retries = retries

    def run(self, args: list[str]) -> int:
        """Run the command with its arguments."""
        return len(args) + self.retries

    def invoke(self) -> int:
        """Invoke without arguments."""
        return self.run([])

    def _private(self) -> int:
        return 1

    @overload
    def convert(self, value: int) -> int: ...

    @overload
    def convert(self, value: str) -> str: ...

    def convert(self, value):
        """Convert a value to the command's type."""
        return value


class SubCommand(Command):
    """A command below another."""


def use_it() -> str:
    cmd = Command("x")
    cmd.convert(3)
    return helper(1)


def long_handler(mode: str) -> int:
    """Handle a mode in many steps."""
    total = 0
    if mode == "fast":
{LONG_BODY}
# a comment at column 0, above an indented else
    else:
        total -= 1
{LONG_BODY}
    return total
''',
    "pkg/runner.py": '''from pkg.core import Command


class Runner:
    """Runs commands in tests."""

    def invoke(self, cmd: Command) -> int:
        """Run cmd and capture its output."""
        return cmd.invoke()
''',
    "tests/test_core.py": '''from pkg.core import Command


def test_run() -> None:
    cmd = Command("a")
    assert cmd.run([]) == 3


def test_run_twice() -> None:
    cmd = Command("b")
    assert cmd.run(["x"]) == 4
''',
    "web/helper.ts": "export function formatName(n: string): string {\n  return n.trim();\n}\n",
    "web/index.ts": "export { formatName } from './helper';\n",
    "src/main/java/com/acme/OrderService.java": (
        "package com.acme;\n\npublic class OrderService {\n"
        "    public int total(int a) {\n        return a + 1;\n    }\n}\n"),
    "README.md": '''# Usage

Create a `Command` and hand it to `Runner.invoke` to run it; long work goes through
long_handler.

```python
def invoke(x):
    return x

invoke(1)
```
''',
}


def write_repo(root: Path) -> Path:
    for rel, body in FILES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body, encoding="utf-8")
    return root

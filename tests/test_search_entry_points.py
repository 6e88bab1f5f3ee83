"""A question about where a program starts finds the code the parser marked as its entry
point (``meta.entry_points`` of the FILE node), though that code never says "startup" or
"entry point"; a statement of what one function does is not steered to it."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from sqlalchemy import text

from graphrag.retrieval.search.engine import search
from graphrag.retrieval.search.model import SearchOptions
from tests.conftest import indexed_folder, scope_of

# The library names the question's words; the file that starts the program does not.
SERVER = '''module Shop
  # The application: its settings and the server it runs.
  class Application
    # Runs the application: loads the settings, then starts the server.
    def self.run!(settings)
      configure(settings)
      start_server
    end

    # Configures the application from a settings hash.
    def self.configure(settings)
      @settings = settings
    end

    # Starts the application's server on the configured port.
    def self.start_server
      Server.new(@settings[:port]).listen
    end

    # Runs a named command of the application.
    def self.command(name)
      send(name)
    end
  end
end
'''
MAIN = '''require 'optparse'
require 'shop/application'

options = { port: 8080 }
OptionParser.new do |op|
  op.on('-p PORT') { |v| options[:port] = Integer(v) }
end.parse!(ARGV.dup)

at_exit { Shop::Application.run!(options) }
'''
QUESTION = "application startup and command line entrypoint"

# A command-line library: "command line" is its domain, not a request for a ``main``. The
# module that parses options must come first, above example scripts and tools that each
# run as a program and talk about the command line too.
OPTIONS = '''"""Parsing of command line options into the parameters of a command."""


class Option:
    """One command line option: its flags and the parameter it fills."""

    def __init__(self, flags, param, default=None):
        self.flags = flags
        self.param = param
        self.default = default


def parse_options(options, argv):
    """Parse the command line options in argv into a dict of parameters."""
    params = {o.param: o.default for o in options}
    for i, word in enumerate(argv):
        for option in options:
            if word in option.flags:
                params[option.param] = argv[i + 1]
    return params
'''
EXAMPLE = '''"""Example {n}: a command line program built with clikit, greeting by name."""
import sys

from clikit.options import Option, parse_options


def main():
    params = parse_options([Option(["--name"], "name")], sys.argv[1:])
    print("hello", params["name"])


if __name__ == "__main__":
    main()
'''
TOOL = '''"""Release helper {n}: bumps the version number in the changelog."""
import sys


def bump(path):
    with open(path) as fh:
        return fh.read().replace("dev", "")


if __name__ == "__main__":
    bump(sys.argv[1])
'''
CLI_QUESTION = "how does clikit parse command line options into parameters"


@pytest.fixture(scope="module")
def shop_app(db_url, models_dir):
    root = Path(tempfile.mkdtemp(prefix="graphrag-entry-"))
    lib = root / "shop" / "lib"
    (lib / "shop").mkdir(parents=True)
    (lib / "shop" / "application.rb").write_text(SERVER)
    (lib / "shop" / "main.rb").write_text(MAIN)
    with indexed_folder(lib, f"entry{os.getpid()}", db_url, models_dir) as name:
        yield name


@pytest.fixture(scope="module")
def cli_library(db_url, models_dir):
    root = Path(tempfile.mkdtemp(prefix="graphrag-entry-cli-"))
    repo = root / "clikit"
    for rel, code in {"clikit/__init__.py": "", "clikit/options.py": OPTIONS,
                      **{f"examples/greet{n}.py": EXAMPLE.format(n=n) for n in range(6)},
                      **{f"tools/release{n}.py": TOOL.format(n=n) for n in range(4)}}.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(code)
    with indexed_folder(repo, f"entrycli{os.getpid()}", db_url, models_dir) as name:
        yield name


def test_a_startup_question_finds_the_programs_entry_point(engine, shop_app, embedder
                                                           ) -> None:
    with engine.connect() as conn:
        marked = dict(conn.execute(text(
            "SELECT n.file_path, n.meta -> 'entry_points' FROM nodes n"
            " JOIN applications a ON a.id = n.application_id"
            " WHERE a.name = :a AND n.kind = 'FILE'"), {"a": shop_app}).all())
    assert marked == {"shop/main.rb": [[5, "parses command-line options"],
                                       [7, "reads the command line"], [9, "runs at exit"]],
                      "shop/application.rb": None}
    scope = scope_of(engine, shop_app)
    hits = search(scope, QUESTION, SearchOptions(), embedder).hits
    assert hits[0]["file_path"] == "shop/main.rb", [(h["file_path"], h["fqn"]) for h in hits]
    # the boost is what puts it there: the library's names match the words
    off = search(scope, QUESTION, SearchOptions(disabled=("entry-points",)), embedder).hits
    assert off[0]["file_path"] == "shop/application.rb"
    # a statement describing one function is not steered to the entry point
    stated = search(scope, "Starts the application's server on the configured port.",
                    SearchOptions(), embedder).hits
    assert stated[0]["fqn"] == "Shop.Application.start_server"


def test_command_line_in_a_cli_librarys_question_does_not_bury_its_answer(
        engine, cli_library, embedder) -> None:
    scope = scope_of(engine, cli_library)
    hits = search(scope, CLI_QUESTION, SearchOptions(), embedder).hits
    assert hits[0]["file_path"] == "clikit/options.py", [
        (h["file_path"], h["fqn"]) for h in hits]
    # the examples' scripts start no program of the library's own: not lifted at all
    off = search(scope, CLI_QUESTION, SearchOptions(disabled=("entry-points",)),
                 embedder).hits

    def examples(found):
        return {(h["file_path"], h["fqn"]): h["score"] for h in found
                if h["file_path"].startswith("examples/")}
    on, without = examples(hits), examples(off)
    both = on.keys() & without.keys()
    assert both and {k: on[k] for k in both} == pytest.approx({k: without[k] for k in both})

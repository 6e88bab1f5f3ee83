"""A question about where a program starts finds the code the parser marked as its entry
point (``meta.entry_points`` of the FILE node), though that code never says "startup" or
"entry point"; a statement of what one function does is not steered to it."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from sqlalchemy import text

from graphrag.config import load_settings
from graphrag.embedding import get_embedder
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
def embedder():
    return get_embedder(load_settings())


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

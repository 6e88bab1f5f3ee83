"""Which lines make a file a program's entry point (``ParseResult.entry_points``, the
FILE node's ``meta.entry_points``): code run at load that reads the command line or
registers what runs at exit, a main guard, a ``main`` function, a proc-macro entry
point, a script's ``#!`` line; the same call inside a method or a comment is none."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from graphrag.parsing.entrypoints import MAX_MARKS, entry_points
from graphrag.parsing.extract import parse_file, repo_context
from graphrag.parsing.model import ParseResult, Symbol


def marks(rel: str, code: str, tmp_path: Path) -> list[list]:
    path = tmp_path / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(code)
    result = parse_file(code.encode(), rel, repo_context(tmp_path, [rel]))
    assert result is not None
    return result.entry_points


RUBY_MAIN = """module Tool
  OPTIONS = {}
  # ARGV is read below
  if ARGV.any?
    parser = OptionParser.new do |op|
      op.on('-p port') { |v| OPTIONS[:port] = v }
    end
  end

  class App
    def run!
      at_exit { stop! }   # a helper's hook, not the program's start
      ARGV.first
    end
  end

  at_exit { App.new.run! }
end
"""


def test_ruby_code_run_at_load_marks_the_file_and_method_bodies_do_not(tmp_path) -> None:
    assert marks("lib/tool/main.rb", RUBY_MAIN, tmp_path) == [
        [4, "reads the command line"], [5, "parses command-line options"],
        [17, "runs at exit"]]
    library = "class Server\n  def run!\n    at_exit { quit! }\n  end\nend\n"
    assert marks("lib/server.rb", library, tmp_path) == []
    guard = "def main\nend\n\nmain if __FILE__ == $0\n"
    assert marks("bin/tool.rb", guard, tmp_path) == [[4, "main guard"]]


@pytest.mark.parametrize(("rel", "code", "expected"), [
    ("tool.py", "import sys\n\ndef main():\n    return sys.argv[1:]\n\n\n"
     "if __name__ == '__main__':\n    main()\n", [[7, "main guard"]]),
    ("lib.py", "import sys\n\ndef args():\n    return sys.argv[1:]\n", []),
    ("pkg/__main__.py", "from pkg.cli import main\n\nmain()\n", [[1, "main module"]]),
    ("cmd/tool/main.go", "package main\n\nfunc main() {\n}\n", [[3, "main function"]]),
    ("src/App.java", "class App {\n  public static void main(String[] args) {}\n}\n",
     [[2, "main function"]]),
    ("derive/src/lib.rs", "#[proc_macro_derive(Serialize)]\n"
     "pub fn derive_serialize(input: TokenStream) -> TokenStream { input }\n",
     [[1, "procedural macro entry point"]]),
    ("src/lib.rs", "// fn main() is in the binary\npub fn helper() {}\n", []),
    ("bin/cli.js", "#!/usr/bin/env node\nconsole.log(1);\n", [[1, "script"]]),
    ("src/cli.ts", "if (require.main === module) {\n  run(process.argv);\n}\n",
     [[1, "main guard"], [2, "reads the command line"]]),
])
def test_each_languages_markers(tmp_path, rel, code, expected) -> None:
    assert marks(rel, code, tmp_path) == expected


def test_a_file_marked_on_every_line_says_so_a_bounded_number_of_times(tmp_path) -> None:
    top = "".join(f"x{i} = ARGV[{i}]\n" for i in range(5000))
    got = marks("lib/args.rb", top, tmp_path)
    assert got == [[i, "reads the command line"] for i in range(1, MAX_MARKS + 1)]
    inside = "".join(f"def m{i}\n  ARGV[{i}]\nend\n" for i in range(5000))
    assert marks("lib/methods.rb", inside, tmp_path) == []


def test_one_long_line_with_many_skipped_marks_is_read_at_once() -> None:
    # a minified bundle: one line reading `process.argv` again and again, inside a
    # function or commented out; each line's fate is decided once, not once per match
    line = b"process.argv;" * 150_000
    source = b"(function () {" + line + b"})();\n// " + line + b"\n"
    result = ParseResult(path="dist/app.js", lang="javascript", module="dist/app",
                         package=None, symbols=[Symbol(
                             kind="FUNCTION", name="f", fqn="f", parent=None, signature="",
                             meta={}, line_start=1, line_end=1, char_start=0, char_end=1)])
    started = time.perf_counter()
    assert entry_points(source, result) == []
    assert time.perf_counter() - started < 1.0

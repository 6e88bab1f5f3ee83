"""`python -m graphrag` runs the CLI."""

from graphrag.cli.main import main

main()

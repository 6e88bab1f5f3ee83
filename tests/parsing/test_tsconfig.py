"""tsconfig.json/jsconfig.json import aliases: ``paths`` and ``baseUrl``."""

from __future__ import annotations

from graphrag.parsing.extract import parse_file
from graphrag.parsing.registry import RepoContext
from graphrag.parsing.tsconfig import read_config, resolve_alias

FILES = ["web/tsconfig.json", "web/src/app.ts", "web/src/lib/money.ts", "web/src/api/index.ts",
         "tsconfig.json", "tools/build.ts"]


def test_paths_and_base_url_of_the_nearest_config() -> None:
    web = read_config('{\n // JSONC\n "compilerOptions": {"baseUrl": "./src", "paths": '
                      '{"@lib/*": ["lib/*", "vendor/*"], "#api": ["api/index.ts"],},}}',
                      "web/tsconfig.json", FILES)
    root = read_config('{"compilerOptions": {"paths": {"~/*": ["tools/*"]}}}',
                       "tsconfig.json", FILES)
    assert web is not None and root is not None
    assert (web.base_url, web.roots) == ("web/src", ("api", "app", "lib"))
    configs = (root, web)
    assert resolve_alias("@lib/money", "web/src/app.ts", configs) == "web/src/lib/money"
    assert resolve_alias("#api", "web/src/app.ts", configs) == "web/src/api/index.ts"
    assert resolve_alias("lib/money", "web/src/app.ts", configs) == "web/src/lib/money"
    # a package stays a package; the root config has no baseUrl: paths are relative to it
    assert resolve_alias("express", "web/src/app.ts", configs) is None
    assert resolve_alias("~/build", "tools/x.ts", configs) == "tools/build"
    assert resolve_alias("@lib/money", "tools/x.ts", configs) is None


def test_configs_without_aliases_or_not_json_are_ignored() -> None:
    assert read_config('{"compilerOptions": {"strict": true}}', "tsconfig.json", FILES) is None
    assert read_config("{ not json", "tsconfig.json", FILES) is None
    assert read_config("[]", "tsconfig.json", FILES) is None


def test_imports_resolve_through_the_alias() -> None:
    config = read_config('{"compilerOptions": {"baseUrl": "src", "paths": {"@/*": ["*"]}}}',
                         "web/tsconfig.json", FILES)
    ctx = RepoContext({"typescript": (config,)})
    result = parse_file(b"import { cents } from '@/lib/money';\nimport x from 'express';\n",
                        "web/src/app.ts", ctx)
    assert [(i.alias, i.target) for i in result.imports] == [
        ("cents", "web/src/lib/money:cents"), ("x", "express:default")]

"""The embedding package: ONNX export cache, backends against torch, batching, model
identity in the database (a backend change re-embeds, a query never mixes models), a
model of another dimension, and a search path that never imports torch."""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from graphrag.config import Settings, load_settings
from graphrag.db.engine import get_engine
from graphrag.db.vectors import column_dimension
from graphrag.embedding import (
    export,
    get_embedder,
    learned_format,
    load_embedder,
    model_spec,
    static_backend,
)
from graphrag.embedding.export_format import export_key
from graphrag.embedding.model_files import split_backend
from graphrag.embedding.onnx_backend import longest_first
from graphrag.errors import ModelMismatch, ModelUnavailable
from graphrag.pipeline import run_pipeline
from graphrag.pipeline.reembed import reembed
from graphrag.retrieval.search import SearchOptions, search
from tests.conftest import REPO_ROOT, context_of, run_cli, scope_of
from tests.pipeline_seed import seed_users_app
from tests.tiny_model import build_tiny_model

TEXTS = [
    "how is a user loaded by its id",
    "def get_user(self, user_id: int) -> User:\n    return self.repo.find_by_id(user_id)",
    "Sum the invoice line items and add the sales tax.",
    "public void cancelOrder(Order order) { payments.refund(order.getPaymentId()); }",
]


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory) -> Path:
    return build_tiny_model(tmp_path_factory.mktemp("models") / "tiny-32", dim=32)


def _cos(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (a * b).sum(axis=1)


# -- pure ---------------------------------------------------------------------------------

def test_longest_first_orders_by_decreasing_length_stably() -> None:
    assert longest_first([3, 9, 3, 12, 9]) == [3, 1, 4, 0, 2]
    assert longest_first([]) == []


def test_a_head_backend_name_splits_into_its_base_and_token_window() -> None:
    assert split_backend("onnx-head64") == ("onnx", 64)
    assert split_backend("onnx-int8-head128") == ("onnx-int8", 128)
    assert split_backend("onnx") == ("onnx", None)
    assert split_backend("model2vec-head64") == ("model2vec-head64", None)  # not an ONNX one


# -- backends and export cache -----------------------------------------------------------

def test_a_head_backend_reads_only_the_first_tokens_and_names_itself() -> None:
    settings = load_settings()
    full = get_embedder(settings.with_overrides(embed_backend="onnx"))
    head = get_embedder(settings.with_overrides(embed_backend="onnx-head16"))
    # the same export, another identity: a switch re-embeds like any backend change
    assert head.name == full.name.replace("/onnx@", "/onnx-head16@") != full.name
    assert head.dim == full.dim == 384
    start = "def get_user(self, user_id: int) -> User:\n    return self.repo.find(user_id)"
    texts = [start + "\n    # cached for an hour", start + "\n    # read from the replica",
             "how is a user loaded"]
    by_head, by_full = head.encode(texts), full.encode(texts)
    # past the window the texts differ only for the full backend; a short text is the same
    assert np.allclose(by_head[0], by_head[1], atol=1e-6)
    assert _cos(by_full[:1], by_full[1:2])[0] < 0.9999
    assert np.allclose(by_head[2], by_full[2], atol=1e-5)
    for bad in ("onnx-head4", "onnx-heads", "torch-head64"):
        with pytest.raises(ModelUnavailable, match="GRAPHRAG_EMBED_BACKEND"):
            model_spec(settings.with_overrides(embed_backend=bad))


def test_onnx_backends_agree_with_torch_on_the_shipped_model() -> None:
    settings = load_settings()
    vectors = {}
    for backend in ("torch", "onnx", "onnx-int8"):
        spec = model_spec(settings.with_overrides(embed_backend=backend))
        vectors[backend] = load_embedder(spec, settings).encode(TEXTS)
        assert vectors[backend].shape == (len(TEXTS), 384)
        assert np.allclose(np.linalg.norm(vectors[backend], axis=1), 1.0, atol=1e-5)
    assert _cos(vectors["onnx"], vectors["torch"]).min() > 0.999
    assert _cos(vectors["onnx-int8"], vectors["torch"]).min() > 0.99
    # a vector depends on its text alone, not on the other texts of the call (int8's
    # activation scales included): a batch search equals the same searches one by one
    for backend in ("onnx", "onnx-int8"):
        embedder = get_embedder(settings.with_overrides(embed_backend=backend))
        together = embedder.encode(TEXTS * 3)
        for i, text_ in enumerate(TEXTS):
            assert np.array_equal(embedder.encode([text_])[0], together[i])
            assert np.array_equal(together[i], together[i + len(TEXTS)])


@pytest.fixture
def counted_exports(tiny_model: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                    ) -> tuple[Settings, Path, list[Path]]:
    """Settings for the tiny model with a fresh export cache, and the list of exports
    made (the real export runs)."""
    models = tmp_path / "models"
    monkeypatch.setenv("GRAPHRAG_MODELS_DIR", str(models))
    settings = load_settings().with_overrides(model_path=str(tiny_model))
    exports: list[Path] = []
    real_export = export._export
    monkeypatch.setattr(export, "_export",
                        lambda spec, out: (exports.append(out), real_export(spec, out)))
    return settings, models, exports


def test_export_is_reused_and_a_changed_source_exports_again(
        tiny_model: Path, counted_exports: tuple[Settings, Path, list[Path]]) -> None:
    settings, models, exports = counted_exports

    spec = model_spec(settings)
    first = load_embedder(spec, settings)
    assert len(exports) == 1 and first.dim == 32
    folder = export.export_folder(spec, models)
    assert sorted(p.name for p in folder.iterdir()) == [
        "meta.json", "model.int8.onnx", "model.onnx", "tokenizer.json"]
    assert json.loads((folder / "meta.json").read_text())["max_seq_length"] == 128
    again = load_embedder(model_spec(settings), settings)  # a new process would do this
    assert len(exports) == 1 and again.name == first.name
    assert np.allclose(again.encode(TEXTS), first.encode(TEXTS))

    # the weights change (same folder): new hash, new export, new identity
    build_tiny_model(tiny_model, dim=32, seed=1)
    changed = model_spec(settings)
    assert changed.source_hash != spec.source_hash and changed.identity != spec.identity
    load_embedder(changed, settings)
    assert len(exports) == 2 and export.export_folder(changed, models) != folder


def test_two_concurrent_loads_export_once(
        counted_exports: tuple[Settings, Path, list[Path]]) -> None:
    settings, models, exports = counted_exports
    spec = model_spec(settings)
    with ThreadPoolExecutor(2) as pool:  # separate lock files handles, as two processes
        folders = list(pool.map(lambda _: export.ensure_export(spec, models), range(2)))
    assert len(exports) == 1 and folders[0] == folders[1] and export.is_exported(folders[0])
    assert [p.name for p in models.iterdir() if ".tmp-" in p.name] == []  # no leftovers


# -- the static (model2vec) backend --------------------------------------------------------

def test_a_distilled_static_model_round_trips(tiny_model: Path, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    models = tmp_path / "models"
    monkeypatch.setenv("GRAPHRAG_MODELS_DIR", str(models))
    settings = load_settings().with_overrides(model_path=str(tiny_model),
                                              embed_backend="model2vec")
    distills: list[Path] = []
    real_distill = static_backend._distill
    monkeypatch.setattr(static_backend, "_distill",
                        lambda spec, out: (distills.append(out), real_distill(spec, out)))

    spec = model_spec(settings)
    first = load_embedder(spec, settings)
    # dimensions follow the source model (PCA keeps its width), the identity names the
    # backend and the distillation's key
    assert len(distills) == 1 and first.dim == 32
    assert first.name == f"tiny-32/model2vec@{spec.export_key[:12]}"
    assert spec.export_key != export_key(spec.source_hash)
    folder = export.export_folder(spec, models)
    assert {"meta.json", "model.safetensors", "tokenizer.json", "config.json"} <= {
        p.name for p in folder.iterdir()}
    assert json.loads((folder / "meta.json").read_text())["dim"] == 32
    vectors = first.encode(TEXTS)
    assert vectors.shape == (len(TEXTS), 32) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert np.array_equal(first.encode(TEXTS[:1])[0], vectors[0])  # batch-independent
    assert _cos(vectors[:1], vectors[1:]).max() < 0.9999  # texts are told apart
    # a text without a known token still gets a unit vector (a zero one makes cosines NaN)
    assert np.allclose(np.linalg.norm(first.encode(["", "\U0001f642"]), axis=1), 1.0,
                       atol=1e-5)

    # a new process loads the cached model: no second distillation, the same vectors
    again = load_embedder(model_spec(settings), settings)
    assert len(distills) == 1 and again.name == first.name
    assert np.array_equal(again.encode(TEXTS), vectors)
    # the distilled folder is a model2vec model itself: used as it is, not distilled
    direct = settings.with_overrides(model_path=str(folder))
    as_is = load_embedder(model_spec(direct), direct)
    assert len(distills) == 1 and as_is.dim == 32
    assert np.allclose(as_is.encode(TEXTS), vectors, atol=1e-6)


# -- the learned static backend -----------------------------------------------------------

def test_the_learned_backend_lands_near_the_transformer_without_running_it() -> None:
    settings = load_settings()
    learned = get_embedder(settings.with_overrides(embed_backend="learned"))
    onnx = get_embedder(settings.with_overrides(embed_backend="onnx"))
    # the shipped correction's identity is its own: a switch re-embeds like any backend's
    assert learned.name.startswith("all-MiniLM-L6-v2/learned@") and learned.name != onnx.name
    assert learned.dim == onnx.dim == 384
    vectors = learned.encode(TEXTS)
    assert vectors.shape == (len(TEXTS), 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert np.array_equal(learned.encode(TEXTS[:1])[0], vectors[0])  # batch-independent
    # trained to reproduce the transformer: each text's vector is close to the
    # transformer's vector of the same text, closer than to the other texts'
    cross = vectors @ onnx.encode(TEXTS).T
    assert np.diag(cross).min() > 0.4
    assert (np.argmax(cross, axis=1) == np.arange(len(TEXTS))).all()
    assert np.allclose(np.linalg.norm(learned.encode(["", "\U0001f642"]), axis=1), 1.0,
                       atol=1e-5)


def test_a_learned_correction_round_trips_and_its_width_is_the_models(
        tiny_model: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRAPHRAG_MODELS_DIR", str(tmp_path / "models"))
    settings = load_settings().with_overrides(model_path=str(tiny_model),
                                              embed_backend="learned")
    # no correction was trained for this model: a one-line error naming the way out
    with pytest.raises(ModelUnavailable, match="no trained correction.*GRAPHRAG_EMBED_BACKEND"):
        load_embedder(model_spec(settings), settings)

    spec = model_spec(settings)
    rng = np.random.default_rng(0)
    parts = {"logw": rng.normal(size=30522) * 0.1, "map": rng.normal(size=(32, 32)),
             "u": rng.normal(size=(30522, 4)), "v": rng.normal(size=(4, 32))}
    shipped = tmp_path / "learned"
    shipped.mkdir()
    np.savez_compressed(shipped / "tiny-32.npz", source=np.array(spec.source_hash),
                        **{k: v.astype(np.float16) for k, v in parts.items()})
    monkeypatch.setattr(learned_format, "_ARTIFACTS", shipped)
    spec = model_spec(settings)
    embedder = load_embedder(spec, settings)
    assert embedder.dim == 32 and embedder.name == f"tiny-32/learned@{spec.export_key[:12]}"
    vectors = embedder.encode(TEXTS)
    assert vectors.shape == (len(TEXTS), 32)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    again = load_embedder(model_spec(settings), settings)
    assert again.name == embedder.name and np.array_equal(again.encode(TEXTS), vectors)

    # a retrained correction is another identity: the vectors are embedded again
    parts["map"] = parts["map"][::-1]
    np.savez_compressed(shipped / "tiny-32.npz", source=np.array(spec.source_hash),
                        **{k: v.astype(np.float16) for k, v in parts.items()})
    assert model_spec(settings).identity != spec.identity
    # a correction trained on other model files is refused, not silently misapplied
    build_tiny_model(tiny_model, dim=32, seed=7)  # seed 1 may already be there (module-wide model)
    with pytest.raises(ModelUnavailable, match="trained on other model files"):
        load_embedder(model_spec(settings), settings)


# -- model identity in the database -------------------------------------------------------

@pytest.fixture
def settings(db_url: str):
    return load_settings().with_overrides(database_url=db_url)


def test_a_backend_change_re_embeds_and_queries_never_mix(engine, settings, app_name,
                                                         tmp_path: Path) -> None:
    seed_users_app(engine, app_name, tmp_path / "repo")
    int8 = settings.with_overrides(embed_backend="onnx-int8")
    fp32 = settings.with_overrides(embed_backend="onnx")
    first = run_pipeline(context_of(engine, app_name, int8))
    embedded = first.stages["embed"]["done"]
    assert embedded > 0

    def models() -> set[str]:
        with engine.connect() as conn:
            return set(conn.execute(text(
                "SELECT embed_model FROM chunks c JOIN applications a"
                " ON a.id = c.application_id WHERE a.name = :n AND emb IS NOT NULL"),
                {"n": app_name}).scalars())

    assert models() == {get_embedder(int8).name}
    # unchanged settings: nothing to do
    assert run_pipeline(context_of(engine, app_name, int8)).stages.get("embed") is None

    # the fp32 process refuses to compare its query vectors with int8 vectors ...
    with pytest.raises(ModelMismatch, match=r"was embedded with .*onnx-int8.* reembed"):
        search(scope_of(engine, app_name), "load a user", SearchOptions(), get_embedder(fp32))
    # ... text search needs no vectors and still works
    assert search(scope_of(engine, app_name), "user", SearchOptions(mode="text")).hits

    # the next pipeline run under fp32 re-embeds every chunk, never mixing
    second = run_pipeline(context_of(engine, app_name, fp32))
    assert second.stages["embed"]["done"] == embedded
    assert models() == {get_embedder(fp32).name}
    hits = search(scope_of(engine, app_name), "load a user by id", SearchOptions(mode="vector"),
                  get_embedder(fp32)).hits
    assert hits
    with pytest.raises(ModelMismatch):
        search(scope_of(engine, app_name), "load a user", SearchOptions(), get_embedder(int8))


@pytest.fixture
def fresh_engine(db_url: str):
    """A database of its own: changing the vector dimension touches every application."""
    name = f"graphrag_dim_{abs(hash(db_url)) % 10_000}"
    admin = create_engine(make_url(db_url), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}"'))
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    url = make_url(db_url).set(database=name).render_as_string(hide_password=False)
    engine = get_engine(load_settings().with_overrides(database_url=url))
    yield engine, url
    engine.dispose()
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


def test_reembed_follows_a_model_of_another_dimension(fresh_engine, tiny_model: Path,
                                                      tmp_path: Path) -> None:
    engine, url = fresh_engine
    base = load_settings().with_overrides(database_url=url)
    seed_users_app(engine, "keep", tmp_path / "keep")
    seed_users_app(engine, "code", tmp_path / "code")
    run_pipeline(context_of(engine, "keep", base))
    run_pipeline(context_of(engine, "code", base))
    with engine.connect() as conn:
        assert column_dimension(conn) == 384 and column_dimension(conn, "sentences") == 384

    # the team's own model: 32-d; the CLI switches the columns and re-embeds `code`
    res = run_cli("reembed", "--app", "code", "--json",
                  env={"GRAPHRAG_DATABASE_URL": url, "GRAPHRAG_MODEL_PATH": str(tiny_model)})
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["dim"] == 32 and out["previous_dim"] == 384 and out["cleared_apps"] == ["keep"]
    assert out["pipeline"]["stages"]["embed"]["done"] == out["queued"] > 0
    assert res.stderr == ""  # --json: no notice, no progress

    with engine.connect() as conn:
        assert column_dimension(conn) == 32 and column_dimension(conn, "sentences") == 32
        per_app = dict(conn.execute(text(
            "SELECT a.name, count(c.emb) FROM applications a JOIN chunks c"
            " ON c.application_id = a.id GROUP BY a.name")).all())
        indexes = set(conn.execute(text(
            "SELECT indexname FROM pg_indexes WHERE indexdef LIKE '%hnsw%'")).scalars())
    assert per_app["code"] == out["queued"] and per_app["keep"] == 0
    assert indexes == {"ix_chunks_emb", "ix_sentences_emb"}

    tiny = base.with_overrides(model_path=str(tiny_model))
    hits = search(scope_of(engine, "code"), "user name", SearchOptions(mode="vector"),
                  get_embedder(tiny)).hits
    assert hits and all(h["score"] is not None for h in hits)
    # `keep` lost its vectors; its next pipeline run embeds it with the 32-d model
    assert run_pipeline(context_of(engine, "keep", tiny)).stages["embed"]["done"] == per_app["code"]
    # and the library call reports the switch the same way
    result = reembed(context_of(engine, "keep", base))
    assert (result.previous_dim, result.dim, result.cleared_apps) == (32, 384, ["code"])


def test_a_switch_to_the_static_backend_re_embeds_in_place(fresh_engine, tiny_model: Path,
                                                           tmp_path: Path) -> None:
    engine, url = fresh_engine
    onnx = load_settings().with_overrides(database_url=url, embed_backend="onnx")
    static = onnx.with_overrides(embed_backend="model2vec")
    seed_users_app(engine, "keep", tmp_path / "keep")
    seed_users_app(engine, "code", tmp_path / "code")
    embedded = run_pipeline(context_of(engine, "code", onnx)).stages["embed"]["done"]
    run_pipeline(context_of(engine, "keep", onnx))

    def models(app: str) -> set[str]:
        with engine.connect() as conn:
            return set(conn.execute(text(
                "SELECT embed_model FROM chunks c JOIN applications a ON a.id ="
                " c.application_id WHERE a.name = :n AND emb IS NOT NULL"),
                {"n": app}).scalars())

    # the distilled model keeps the shipped model's 384 dimensions: the next run
    # re-embeds every chunk of the application once, in place, with a progress bar, and
    # leaves every other application's vectors alone
    seen: list[tuple[str, int, int]] = []
    second = run_pipeline(context_of(engine, "code", static),
                          stage_progress=lambda *args: seen.append(args))
    assert second.stages["embed"]["done"] == embedded
    assert [(done, total) for stage, done, total in seen if stage == "embed"][-1] == (
        embedded, embedded)
    assert models("code") == {get_embedder(static).name}
    assert models("keep") == {get_embedder(onnx).name}
    with engine.connect() as conn:
        assert column_dimension(conn) == 384
    assert run_pipeline(context_of(engine, "code", static)).stages.get("embed") is None  # once
    with pytest.raises(ModelMismatch, match=r"was embedded with .*/onnx@"):
        search(scope_of(engine, "code"), "load a user", SearchOptions(), get_embedder(onnx))
    hits = search(scope_of(engine, "code"), "load a user by id", SearchOptions(),
                  get_embedder(static)).hits
    assert hits and all(h["score"] is not None for h in hits)

    # a static model distilled from a 32-d model makes 32-d vectors: the columns follow
    res = run_cli("reembed", "--app", "code", "--json",
                  env={"GRAPHRAG_DATABASE_URL": url, "GRAPHRAG_MODEL_PATH": str(tiny_model),
                       "GRAPHRAG_EMBED_BACKEND": "model2vec"})
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert (out["dim"], out["previous_dim"], out["cleared_apps"]) == (32, 384, ["keep"])
    assert "/model2vec@" in out["model"] and res.stderr == ""
    with engine.connect() as conn:
        assert column_dimension(conn) == 32 and column_dimension(conn, "sentences") == 32


def test_a_switch_to_the_learned_backend_re_embeds_once(engine, settings, app_name,
                                                       tmp_path: Path) -> None:
    seed_users_app(engine, app_name, tmp_path / "repo")
    onnx = settings.with_overrides(embed_backend="onnx")
    learned = settings.with_overrides(embed_backend="learned")
    embedded = run_pipeline(context_of(engine, app_name, onnx)).stages["embed"]["done"]
    seen: list[tuple[str, int, int]] = []
    second = run_pipeline(context_of(engine, app_name, learned),
                          stage_progress=lambda *args: seen.append(args))
    assert second.stages["embed"]["done"] == embedded
    assert [(done, total) for stage, done, total in seen if stage == "embed"][-1] == (
        embedded, embedded)
    with engine.connect() as conn:
        models = set(conn.execute(text(
            "SELECT embed_model FROM chunks c JOIN applications a ON a.id ="
            " c.application_id WHERE a.name = :n AND emb IS NOT NULL"),
            {"n": app_name}).scalars())
    assert models == {get_embedder(learned).name}
    assert run_pipeline(context_of(engine, app_name, learned)).stages.get("embed") is None
    with pytest.raises(ModelMismatch, match=r"was embedded with .*/learned@"):
        search(scope_of(engine, app_name), "load a user", SearchOptions(), get_embedder(onnx))
    hits = search(scope_of(engine, app_name), "load a user by id", SearchOptions(),
                  get_embedder(learned)).hits
    assert hits and all(h["score"] is not None for h in hits)


def test_search_never_imports_torch_or_transformers(engine, settings, app_name,
                                                    tmp_path: Path) -> None:
    seed_users_app(engine, app_name, tmp_path / "repo")
    run_pipeline(context_of(engine, app_name, settings))  # the export, if any, happened here
    driver = (
        "import sys, json, atexit\n"
        "heavy = ('torch', 'transformers', 'sentence_transformers')\n"
        "atexit.register(lambda: print('LOADED=' + json.dumps("
        "[m for m in heavy if m in sys.modules]), file=sys.stderr))\n"
        "sys.argv = ['graphrag'] + sys.argv[1:]\n"
        "from graphrag.cli.main import main\n"
        "main()\n")
    for args in (["search", "load a user by id", "--app", app_name, "--json"],
                 ["search", "user", "--app", app_name, "--mode", "vector"],
                 ["context", "--query", "load a user", "--app", app_name]):
        res = subprocess.run([sys.executable, "-c", driver, *args], capture_output=True,
                             text=True, cwd=REPO_ROOT, timeout=120)
        assert res.returncode == 0, res.stderr
        assert res.stderr.strip().splitlines()[-1] == "LOADED=[]", (args, res.stderr)

"""Learn static token vectors that regress the transformer's vectors of real code.

Input: teacher pairs written by ``static_teacher.py`` (texts the embed stage encoded and
the ONNX vectors it stored). A text's static vector is the weighted sum of its tokens'
rows of a table, unit-normed; training minimises 1 - cosine to the teacher's vector.
Variants (``--variant``):

- ``map``: a fixed base table (the model's own input word embeddings) with a learned
  weight per token and a learned d x 384 map;
- ``lowrank``: ``map`` plus a learned rank-r correction per token (U V);
- ``table``: ``map`` plus a free correction of every row (the full learned table).

Reports held-out cosine to the teacher (``--heldout`` pairs) and saves the learned
parameters (``--save``).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import torch

WINDOW = 256  # the teacher's window: the table learns what the transformer read


def load_pairs(files: list[Path], titles: bool = True) -> tuple[list[str], np.ndarray]:
    """Distinct texts and their teacher vectors (bodies, plus titles when asked)."""
    seen: dict[str, np.ndarray] = {}
    for file in files:
        data = np.load(file, allow_pickle=True)
        for t, v in zip(data["texts"], data["emb"], strict=True):
            seen.setdefault(str(t), v)
        if titles:
            for t, v in zip(data["titles"], data["title_emb"], strict=True):
                if t:
                    seen.setdefault(str(t), v)
    texts = list(seen)
    vecs = np.stack([seen[t] for t in texts]).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    return texts, vecs


def tokenize(tok_file: Path, texts: list[str]) -> list[np.ndarray]:
    from graphrag.embedding.tokenizer import input_tokenizer

    tok = input_tokenizer(tok_file, WINDOW)
    return [np.asarray(e.ids, np.int64) for e in tok.encode_batch(texts)]


def bags(ids: list[np.ndarray]) -> tuple[torch.Tensor, torch.Tensor]:
    flat = torch.from_numpy(np.concatenate(ids)) if ids else torch.zeros(0, dtype=torch.long)
    offsets = torch.from_numpy(np.cumsum([0] + [len(i) for i in ids[:-1]]).astype(np.int64))
    return flat, offsets


class Static(torch.nn.Module):
    """weighted sum of rows of (base @ M + correction), per text."""

    def __init__(self, base: np.ndarray, variant: str, rank: int, out_dim: int) -> None:
        super().__init__()
        vocab, dim = base.shape
        self.register_buffer("base", torch.from_numpy(base.astype(np.float32)))
        self.logw = torch.nn.Parameter(torch.zeros(vocab))
        self.map = torch.nn.Parameter(torch.zeros(dim, out_dim))
        self.variant = variant
        if variant == "lowrank":
            self.u = torch.nn.Parameter(torch.zeros(vocab, rank))
            self.v = torch.nn.Parameter(torch.randn(rank, out_dim) * 0.01)
        elif variant == "table":
            self.delta = torch.nn.EmbeddingBag(vocab, out_dim, mode="sum", sparse=True)
            torch.nn.init.zeros_(self.delta.weight)

    def forward(self, flat: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
        w = torch.exp(self.logw)[flat]
        x = torch.nn.functional.embedding_bag(flat, self.base, offsets, mode="sum",
                                              per_sample_weights=w)
        y = x @ self.map
        if self.variant == "lowrank":
            y = y + torch.nn.functional.embedding_bag(
                flat, self.u, offsets, mode="sum", per_sample_weights=w) @ self.v
        elif self.variant == "table":
            y = y + self.delta(flat, offsets, per_sample_weights=w)
        return y

    def table(self) -> np.ndarray:
        """The learned table: one row per token, weights folded in."""
        with torch.no_grad():
            rows = self.base @ self.map
            if self.variant == "lowrank":
                rows = rows + self.u @ self.v
            elif self.variant == "table":
                rows = rows + self.delta.weight
            return (rows * torch.exp(self.logw)[:, None]).numpy()


def init_map(model: Static, ids: list[np.ndarray], target: np.ndarray) -> None:
    """Least-squares map from the unweighted mean of base rows to the teacher's vectors."""
    flat, offsets = bags(ids)
    with torch.no_grad():
        x = torch.nn.functional.embedding_bag(flat, model.base, offsets, mode="mean")
        x = x / x.norm(dim=1, keepdim=True).clamp_min(1e-9)
        sol = torch.linalg.lstsq(x, torch.from_numpy(target)).solution
        model.map.copy_(sol)


def cosines(model: Static, ids: list[np.ndarray], target: np.ndarray) -> np.ndarray:
    out = []
    with torch.no_grad():
        for s in range(0, len(ids), 4096):
            flat, offsets = bags(ids[s:s + 4096])
            y = torch.nn.functional.normalize(model(flat, offsets), dim=1).numpy()
            out.append((y * target[s:s + 4096]).sum(1))
    return np.concatenate(out) if out else np.zeros(0)


def train(model: Static, ids: list[np.ndarray], target: np.ndarray, epochs: int,
          batch: int = 512, lr: float = 0.01) -> None:
    dense = [p for n, p in model.named_parameters() if not n.startswith("delta")]
    opt = torch.optim.Adam(dense, lr=lr)
    sparse = torch.optim.SparseAdam(list(model.delta.parameters()), lr=lr) \
        if model.variant == "table" else None
    tgt = torch.from_numpy(target)
    gen = torch.Generator().manual_seed(0)
    for epoch in range(epochs):
        order = torch.randperm(len(ids), generator=gen).tolist()
        total = 0.0
        for s in range(0, len(order), batch):
            pick = order[s:s + batch]
            flat, offsets = bags([ids[i] for i in pick])
            y = torch.nn.functional.normalize(model(flat, offsets), dim=1)
            loss = (1 - (y * tgt[pick]).sum(1)).mean()
            opt.zero_grad()
            if sparse:
                sparse.zero_grad()
            loss.backward()
            opt.step()
            if sparse:
                sparse.step()
            total += float(loss.detach()) * len(pick)
        print(f"  epoch {epoch + 1}: loss {total / len(order):.4f}", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=Path, nargs="+", required=True)
    parser.add_argument("--heldout", type=Path, nargs="*", default=[])
    parser.add_argument("--model-dir", type=Path, required=True)
    parser.add_argument("--variant", choices=("map", "lowrank", "table"), default="map")
    parser.add_argument("--rank", type=int, default=32)
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--save", type=Path, help="the full learned table (.npy)")
    parser.add_argument("--artifact", type=Path,
                        help="the shipped correction (.npz): per-token weights, the map"
                             " and the per-token correction (low-rank, or the rows of the"
                             " --top-rows most frequent tokens in int8)")
    parser.add_argument("--top-rows", type=int, default=4096)
    parser.add_argument("--from-state", type=Path, help="a saved .pt instead of training")
    args = parser.parse_args()
    torch.manual_seed(0)
    tok_file = args.model_dir / "tokenizer.json"
    texts, target = load_pairs(args.pairs)
    print(f"{len(texts)} training texts", flush=True)
    started = time.perf_counter()
    ids = tokenize(tok_file, texts)
    from graphrag.embedding.learned_backend import word_embeddings

    base = word_embeddings(args.model_dir)
    model = Static(base, args.variant, args.rank, target.shape[1])
    if not args.from_state:
        init_map(model, ids, target)
    held = {}
    for kind in ("body", "title"):
        if args.heldout:
            h_texts, h_target = load_pairs(args.heldout, titles=False) if kind == "body" else \
                _titles(args.heldout)
            held[kind] = (tokenize(tok_file, h_texts), h_target)
    report = {"init": {k: float(cosines(model, i, t).mean()) for k, (i, t) in held.items()}}
    print("after least squares:", report["init"], flush=True)
    if args.from_state:
        model.load_state_dict(torch.load(args.from_state))
    else:
        train(model, ids, target, args.epochs, lr=args.lr)
    report["trained"] = {k: float(cosines(model, i, t).mean()) for k, (i, t) in held.items()}
    report["train"] = float(cosines(model, ids[:5000], target[:5000]).mean())
    report["seconds"] = round(time.perf_counter() - started, 1)
    print(json.dumps(report), flush=True)
    if args.save and not args.from_state:
        args.save.parent.mkdir(parents=True, exist_ok=True)
        np.save(args.save, model.table().astype(np.float32))
        torch.save(model.state_dict(), args.save.with_suffix(".pt"))
    if args.artifact:
        counts = np.bincount(np.concatenate(ids), minlength=base.shape[0])
        parts = save_artifact(model, args.model_dir, args.artifact, counts, args.top_rows)
        # what the backend will build from the shipped file, for static_eval.py
        from graphrag.embedding.learned_backend import build_table

        shipped = build_table(base, parts)
        np.save(args.artifact.with_suffix(".npy"), shipped)
        report["shipped"] = {k: float(_cos_table(shipped, i, t).mean())
                             for k, (i, t) in held.items()}
        report["artifact_bytes"] = args.artifact.stat().st_size
        print(json.dumps(report), flush=True)
    return 0


def _cos_table(table: np.ndarray, ids: list[np.ndarray], target: np.ndarray) -> np.ndarray:
    out = np.stack([table[i].sum(0) for i in ids])
    out /= np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)
    return (out * target).sum(1)


def save_artifact(model: Static, model_dir: Path, out: Path, counts: np.ndarray,
                  top_rows: int) -> dict[str, np.ndarray]:
    """The correction the ``learned`` backend ships, keyed by the model's files: float16
    weights and map; a ``table`` model's free rows are kept for the ``top_rows`` tokens
    most frequent in training, int8 with a scale per row."""
    import tempfile

    from graphrag.embedding.model_files import source_hash

    parts = {"logw": model.logw, "map": model.map}
    if model.variant == "lowrank":
        parts.update(u=model.u, v=model.v)
    arrays = {k: v.detach().numpy().astype(np.float16) for k, v in parts.items()}
    if model.variant == "table":
        rows = np.sort(np.argsort(-counts, kind="stable")[:top_rows]).astype(np.uint16)
        delta = model.delta.weight.detach().numpy()[rows]
        scale = np.maximum(np.abs(delta).max(axis=1), 1e-12) / 127
        arrays.update(rows=rows, delta=np.round(delta / scale[:, None]).astype(np.int8),
                      scale=scale.astype(np.float16))
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:  # the hash cache stays out of the package
        digest = source_hash(model_dir, Path(scratch))
    np.savez_compressed(out, source=np.array(digest), **arrays)
    return arrays


def _titles(files: list[Path]) -> tuple[list[str], np.ndarray]:
    texts, vecs = [], []
    for file in files:
        data = np.load(file, allow_pickle=True)
        for t, v in zip(data["titles"], data["title_emb"], strict=True):
            if t:
                texts.append(str(t))
                vecs.append(v)
    target = np.stack(vecs).astype(np.float32)
    return texts, target / np.linalg.norm(target, axis=1, keepdims=True)


if __name__ == "__main__":
    raise SystemExit(main())

"""A tiny sentence-transformers model built in the test (nothing downloaded): a randomly
initialised 2-layer BERT of width ``dim`` with the shipped all-MiniLM-L6-v2 tokenizer,
mean pooling and normalisation, saved as a sentence-transformers folder."""

from __future__ import annotations

import shutil
from pathlib import Path


def build_tiny_model(folder: Path, dim: int = 32, seed: int = 0) -> Path:
    import torch
    from sentence_transformers import SentenceTransformer

    try:  # sentence-transformers >= 6
        from sentence_transformers.sentence_transformer import modules as st_models
    except ImportError:
        from sentence_transformers import models as st_models
    from transformers import BertConfig, BertModel

    from graphrag.config import load_settings
    from graphrag.embedding import model_location

    shipped, _ = model_location(load_settings().with_overrides(model_path=None))
    raw = folder.with_name(folder.name + "-hf")
    raw.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(seed)
    config = BertConfig(vocab_size=30522, hidden_size=dim, num_hidden_layers=2,
                        num_attention_heads=4, intermediate_size=2 * dim,
                        max_position_embeddings=512)
    BertModel(config).save_pretrained(str(raw))
    for name in ("tokenizer.json", "tokenizer_config.json", "vocab.txt",
                 "special_tokens_map.json"):
        shutil.copyfile(shipped / name, raw / name)
    transformer = st_models.Transformer(str(raw), max_seq_length=128)
    pooling = st_models.Pooling(dim, pooling_mode="mean")
    model = SentenceTransformer(modules=[transformer, pooling, st_models.Normalize()],
                                device="cpu")
    model.save(str(folder))
    shutil.rmtree(raw)
    return folder

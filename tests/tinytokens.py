"""A tiny token space the tests build themselves: a BPE tokenizer trained on the test's own texts
(words split into several tokens) and a random token matrix, written as a token folder
(``tokenizer.json`` + ``vectors.npy``, :func:`repro.spaces.tokenspace.load`). Nothing is downloaded."""

from __future__ import annotations

import os

import numpy as np


def token_folder(folder, texts, vocab_size: int = 60, dim: int = 6, seed: int = 0) -> str:
    """Train a whitespace-split BPE of ``vocab_size`` tokens (with ``[UNK]``) on ``texts`` and write it
    with a (V, ``dim``) float32 matrix to ``folder``; returns the folder."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    os.makedirs(folder, exist_ok=True)
    tok = Tokenizer(models.BPE(unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.train_from_iterator(list(texts), trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=["[UNK]"],
                                                             show_progress=False))
    tok.save(os.path.join(folder, "tokenizer.json"))
    matrix = np.random.default_rng(seed).standard_normal((tok.get_vocab_size(), dim)).astype(np.float32)
    np.save(os.path.join(folder, "vectors.npy"), matrix)
    return str(folder)

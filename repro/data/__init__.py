"""The corpus chain: from raw sources to couples of texts (paper, section 4).

Each stage is a module with a ``main`` that ``python -m repro <stage>`` runs through
:func:`repro.errors.run`. The stages import the core and the formats below them, never the
encoder, the commands or the experiments (the import layers of ``setup.cfg``).

One sub-package per corpus, each a chain of stages: :mod:`repro.data.wikipedia` (dump, paragraphs,
word2vec, df, couples) and :mod:`repro.data.tweets` (sources, records, cleaning, couples, token
rows). What both use: :mod:`repro.data.couples` (splits from related couples) and
:mod:`repro.data.parallel` (worker processes).
"""

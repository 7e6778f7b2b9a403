"""The user-facing subcommands of ``python -m repro`` / ``repro``: encode, similarity, train, evaluate, vectors, df.

Each module has a ``main(argv)`` (registered in :data:`repro.cli.COMMANDS`, which loads it by
name) and imports nothing above itself; :mod:`.common` holds what they share: the encoder
options, building an Encoder from them, and reporting warnings. The files of texts and of
couples are read by :mod:`repro.io.store`; training is :func:`repro.core.fit.fit`, through
:meth:`repro.encode.encoder.Encoder.fit`.
"""

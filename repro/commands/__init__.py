"""The user-facing subcommands of ``python -m repro`` / ``repro``: encode, similarity, train, evaluate.

Each module has a ``main(argv)`` (registered in :data:`repro.cli.COMMANDS`); :mod:`.common`
holds what they share: the encoder options and the readers of text and couples files.
"""

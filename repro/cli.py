"""The command line: ``python -m repro <command> [options]`` and the one error path of every command.

Commands are the stages of the chain (docs/DATA.md, docs/LAYOUT.md); each lives in its own
module and has ``--help``:

============  ======================================  =================================
command       what it makes                           module
============  ======================================  =================================
wikidump      ``paragraphs.tsv`` from a dump          :mod:`repro.data.wikipedia.wikidump`
word2vec      ``w2v/vectors.npy`` + ``vocab.txt``      :mod:`repro.data.wikipedia.embeddings`
docfreq       ``df.npz``                              :mod:`repro.data.wikipedia.paragraphdf`
pairs         ``<setting>/{train,test,validation}``   :mod:`repro.data.wikipedia.wikipairs`
tweets        ``twitter/couples.jsonl``                :mod:`repro.data.tweets.tweetpairs`
tweetsets     ``twitter/{train,validation,test}``     :mod:`repro.data.tweets.tweetsets`
encode        texts to a ``.npy`` of text vectors      :mod:`repro.commands.encode`
similarity    scores of two texts or of couples       :mod:`repro.commands.similarity`
train         couples to an encoder (weights)         :mod:`repro.commands.learn`
evaluate      split error and JS of couples           :mod:`repro.commands.evaluate`
vectors       a vectors file to the fast folder        :mod:`repro.commands.vectorsfolder`
df            ``df.npz`` of a file of texts (``--df``)  :mod:`repro.commands.df`
neighbours    the top k items of each query           :mod:`repro.commands.neighbours`
dedup         near-duplicates of a set (two rules)    :mod:`repro.commands.dedup`
index         a persistent index folder               :mod:`repro.commands.index`
stream        related earlier texts as texts arrive   :mod:`repro.commands.stream`
============  ======================================  =================================

The console script ``repro`` (setup.cfg) is the same command.

Bad input raises :class:`repro.errors.InputError`; :func:`repro.errors.run`, the one error path
of every command, turns it into one line on stderr, ``error: <file>: <cause>``, and exit status
1, and leaves no partial output. This module is the top of the library: it loads the command
modules by name (``importlib``), and none of them imports it back (the import contract in
setup.cfg, checked by ``make test``).
"""

from __future__ import annotations

import importlib
import sys

from repro.errors import run

COMMANDS = {
    "wikidump": ("repro.data.wikipedia.wikidump", "stream a Wikipedia dump into cleaned paragraphs"),
    "word2vec": ("repro.data.wikipedia.embeddings", "train word2vec on the paragraphs"),
    "docfreq": ("repro.data.wikipedia.paragraphdf", "document frequencies of the vocabulary"),
    "pairs": ("repro.data.wikipedia.wikipairs", "related and unrelated Wikipedia couples with their splits"),
    "tweets": ("repro.data.tweets.tweetpairs", "tweet collections to related and unrelated couples"),
    "tweetsets": ("repro.data.tweets.tweetsets", "tweet couples to the Twitter setting's splits"),
    "encode": ("repro.commands.encode", "a file of texts to a .npy of text vectors"),
    "similarity": ("repro.commands.similarity", "scores of two texts, or of a file of couples"),
    "train": ("repro.commands.learn", "learn weights from labelled couples (an encoder file)"),
    "evaluate": ("repro.commands.evaluate", "split error and JS divergence of labelled couples"),
    "vectors": ("repro.commands.vectorsfolder", "convert word vectors once into a folder that loads in a second"),
    "df": ("repro.commands.df", "document frequencies of a file of texts (the df file of --df)"),
    "neighbours": ("repro.commands.neighbours", "the k most similar items of a texts file, .npy or index folder for each query"),
    "dedup": ("repro.commands.dedup", "near-duplicates of a texts file, .npy or index folder: groups, or keep the first"),
    "index": ("repro.commands.index", "a persistent index folder of texts or vectors, to search and add to"),
    "stream": ("repro.commands.stream", "texts as they arrive: each one's earlier related texts within a window"),
}


def usage() -> str:
    width = max(map(len, COMMANDS))
    lines = ["usage: repro <command> [options]   (or python -m repro; repro <command> --help; repro --version)", "",
             "commands:"]
    lines += [f"  {name:<{width}}  {what}" for name, (_, what) in COMMANDS.items()]
    return "\n".join(lines)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(usage())
        return 0 if argv else 2
    if argv[0] in ("-V", "--version"):
        from repro import __version__
        print(f"repro {__version__}")
        return 0
    name, rest = argv[0], argv[1:]
    if name not in COMMANDS:
        print(f"error: unknown command {name!r}\n{usage()}", file=sys.stderr)
        return 2
    module = importlib.import_module(COMMANDS[name][0])
    return run(module.main, rest)

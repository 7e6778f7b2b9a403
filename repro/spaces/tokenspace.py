"""Token spaces: a tokenizer and a matrix of token vectors, read as a word space (issue 34; not in the paper).

A static token embedding (WordLlama, model2vec, sentence-transformers' StaticEmbedding) is a
tokenizer plus a (V, d) matrix whose row i is the vector of token id i. The paper's model needs a
word space: words with vectors and document frequencies. A token space is one whose words are the
token ids: a text is split by the space's own tokenizer (never by the paper's rule), and df, idf
ranks (eq. 1), word counts and the word map (:mod:`repro.spaces.wordmap`) are over token ids. Through the
hot path of :meth:`repro.encode.encoder.Encoder.transform` a text is a list of ids: the tokenizer's
batch encoding gives them, and :class:`IdLookup` turns a chunk of them into idf ranks with one
array lookup (no strings).

**Names.** The vocabulary still needs a string per row (``vocab.txt``, the fingerprint of an
encoder file, a df file's words): :func:`token_names` gives the tokenizer's token string where
``vocab.txt`` can hold it (non-empty, no space, tab or line break, not repeated), else
``<id:i>``. A token list of such names is accepted wherever a text is.

**Sources** (:func:`load`): the WordLlama wheel (``"wordllama"``: its 32000 x 256 float16 matrix
``weights/l2_supercat_256.safetensors``, tensor ``embedding.weight``, and its Llama BPE tokenizer
``tokenizers/l2_supercat_tokenizer_config.json``, read directly: WordLlama's own loader looks
for its tokenizer under a folder the wheel does not ship and then downloads); a folder with a
``tokenizer.json`` and its matrix (``repro vectors``' folder, ``vectors.npy`` + ``vocab.txt``;
a model2vec folder, ``model.safetensors`` with tensor ``embeddings``; sentence-transformers'
StaticEmbedding folder, tensor ``embedding.weight``; or any one ``.npy`` or ``.safetensors``
matrix); or a pair ``(tokenizer.json path, matrix)``, the matrix a path or an array.

**Tokenisation** is the tokenizer's, without special tokens (as WordLlama's ``embed`` and
model2vec encode), padding or truncation. Its unknown token (WordPiece's ``[UNK]``) is dropped, as
model2vec drops it: it stands for no word. A Llama-style tokenizer (no pre-tokenizer, spaces
turned into ``▁``) is given a pre-tokenizer that splits before every ``▁`` run that follows
another character: no token of such a vocabulary holds another character followed by ``▁``
(checked, else nothing is changed), so no merge crosses those points and the ids are the same
(:func:`presplit`). The pieces then repeat from text to text, and :meth:`TokenSpace.encode_batch`
runs the BPE model once per distinct piece of a batch, normalising as the tokenizer's own
normaliser does (a text holding an added token, such as ``</s>``, goes through the tokenizer
itself): tokenisation, most of the time of encoding raw text, is 4 to 6 times faster. The same ids
as the file's tokenizer are checked in the tests and, on 100,000 texts, in ``make bench``
(benchmarks/bench_tokens.py).

**Frequencies without a corpus** (:meth:`TokenSpace.wordfreq_counts`): wordfreq lists words, not
tokens. A token's probability is the expected share of it in running text: every word w of the
list with frequency f(w) >= :data:`WORDFREQ_MIN` is tokenised as it reads inside a sentence
(the tokens of its second occurrence in ``"w w"``), and token t gets p(t) proportional to
sum_w f(w) c(t, w), c the times t occurs in w's tokens; counts are ``int(p(t) * (2**31 - 1))``,
as fse induces them for words (:mod:`repro.words.wordfrequencies`). wordfreq drops punctuation, so a token
no listed word reaches and whose text holds no letter or digit (".", ",", "%", a bare ``▁``) is
counted as frequent as the most frequent token, and any other token the words never reach gets
the count of a missing word, fse's 1e-8 (docs/FIDELITY.md).
"""

from __future__ import annotations

import functools
import importlib.util
import itertools
import json
import os
import re
from typing import NamedTuple

import numpy as np

from repro.io import cachefolder
from repro.pins import installed_version
from repro.errors import InputError
from repro.words.ranklookup import RankLookup

#: The tokenizer file of a token-space folder (``repro vectors`` writes it beside vocab.txt and vectors.npy).
TOKENIZER = "tokenizer.json"
#: How to install what token spaces need.
EXTRA = "pip install 'repro-deboom2016[tokens]'"
#: The name of the WordLlama wheel's token space, and its files inside the installed package.
WORDLLAMA = "wordllama"
WORDLLAMA_MATRIX = os.path.join("weights", "l2_supercat_256.safetensors")
WORDLLAMA_TENSOR = "embedding.weight"
WORDLLAMA_TOKENIZER = os.path.join("tokenizers", "l2_supercat_tokenizer_config.json")
#: Tensor names of a token matrix in a .safetensors file: model2vec's, and sentence-transformers'
#: StaticEmbedding's (and WordLlama's).
MATRIX_TENSORS = ("embeddings", "embedding.weight")
#: The model2vec (and StaticEmbedding) matrix file, preferred when a folder holds several.
MODEL2VEC_MATRIX = "model.safetensors"
#: The format of a cached entry of wordfreq counts (``wfcounts-<key>.npy``); bumped when what they
#: hold, or how they are counted, changes.
COUNTS_VERSION = 1
COUNTS_PREFIX = "wfcounts-"
#: Entries of wordfreq counts kept in one cache folder, the most recently used.
COUNTS_KEEP = 4
#: The least wordfreq frequency of a word whose tokens count in :meth:`TokenSpace.wordfreq_counts`:
#: the 96,000 English words above it hold 99.3% of the list's mass, and tokenising all 321,000 takes 4x longer.
WORDFREQ_MIN = 1e-7


def installed() -> bool:
    """Whether the extra ``tokens`` is installed: tokenizers, safetensors and the WordLlama wheel
    (found without importing wordllama, whose import configures logging)."""
    return all(importlib.util.find_spec(m) is not None for m in ("tokenizers", "safetensors", "wordllama"))


def _tokenizers(what: str):
    try:
        import tokenizers
    except ImportError:
        raise InputError(what, f"token spaces need the tokenizers package: {EXTRA}") from None
    return tokenizers


def wordllama_dir() -> str:
    """The installed ``wordllama`` package's folder; InputError naming the extra when it is missing."""
    spec = importlib.util.find_spec(WORDLLAMA)
    if spec is None or spec.origin is None:
        raise InputError(WORDLLAMA, f"not installed: {EXTRA} (wordllama==0.4.0.post1, MIT)")
    return os.path.dirname(spec.origin)


def wordllama_home() -> str:
    """The folder of the installed WordLlama's matrix, where its caches sit (``weights/``)."""
    return os.path.join(wordllama_dir(), os.path.dirname(WORDLLAMA_MATRIX))


def token_names(tokenizer, rows: int) -> list[str]:
    """The name of every row: the token string where ``vocab.txt`` can hold it (non-empty,
    without space, tab or line break, not repeated), else ``<id:i>`` (primed until unique)."""
    raw = [tokenizer.id_to_token(i) for i in range(rows)]
    ok = [t is not None and t != "" and not any(c in t for c in "\n\r\t ") for t in raw]
    taken: set = set()
    for i, t in enumerate(raw):
        if ok[i]:
            if t in taken:
                ok[i] = False
            else:
                taken.add(t)
    names = []
    for i, t in enumerate(raw):
        if not ok[i]:
            t = f"<id:{i}>"
            while t in taken:
                t += "'"
            taken.add(t)
        names.append(t)
    return names


def _normalizer_is_metaspace(spec: dict | None) -> bool:
    """Whether a tokenizer's normalizer (its JSON) is Llama's: prepend ``▁``, then every space to ``▁``."""
    if not spec or spec.get("type") != "Sequence":
        return False
    steps = spec.get("normalizers") or []
    return len(steps) == 2 and steps[0] == {"type": "Prepend", "prepend": "▁"} and steps[1].get("type") == "Replace" \
        and steps[1].get("pattern") == {"String": " "} and steps[1].get("content") == "▁"


#: The pieces of a normalised text that :func:`presplit` splits it into: a ``▁`` run with what
#: follows up to the next ``▁``, or a last ``▁`` run (the pre-tokenizer's matches and gaps).
PIECE = "▁*[^▁]+"
_PIECES = re.compile(PIECE + "|▁+")
#: pieces whose ids a pre-split token space keeps from one call to the next (then it starts again)
PIECE_CACHE = 1 << 20


def presplit_holds(spec: dict) -> bool:
    """Whether :func:`presplit` keeps every id of the tokenizer whose JSON is ``spec``: a Llama-style
    BPE (no pre-tokenizer, no dropout, spaces to ``▁``) none of whose tokens holds a character
    other than ``▁`` followed by ``▁`` (only such a token could straddle a split point)."""
    model = spec.get("model") or {}
    if spec.get("pre_tokenizer") is not None or model.get("type") != "BPE" or model.get("dropout") or \
            not _normalizer_is_metaspace(spec.get("normalizer")):
        return False
    vocab = list(model.get("vocab") or {}) + [t.get("content", "") for t in spec.get("added_tokens") or []]
    return not any("▁" in t.lstrip("▁") for t in vocab)  # no ▁ after another character anywhere


def _split_pieces(tokenizer):
    """``tokenizer`` given the pre-tokenizer that splits before every ``▁`` run after another character."""
    tokenizers = _tokenizers("tokenizer")
    tokenizer.pre_tokenizer = tokenizers.pre_tokenizers.Split(tokenizers.Regex(PIECE), "isolated")
    return tokenizer


def presplit(tokenizer, spec: dict | None = None, copy: bool = True):
    """A copy of a Llama-style BPE tokenizer (no pre-tokenizer; spaces to ``▁``) that splits the
    normalised text before every ``▁`` run following another character, or None where that could
    change an id (:func:`presplit_holds`). ``spec``: the tokenizer's JSON, parsed, where the caller
    has it; ``copy=False``: ``tokenizer`` itself is given the pre-tokenizer and returned (no copy
    to build: a tenth of a second for Llama's)."""
    tokenizers = _tokenizers("tokenizer")
    spec = json.loads(tokenizer.to_str()) if spec is None else spec
    if not presplit_holds(spec):
        return None
    return _split_pieces(tokenizers.Tokenizer.from_str(tokenizer.to_str()) if copy else tokenizer)


class Facts(NamedTuple):
    """What a :class:`TokenSpace` reads from its tokenizer's JSON besides the tokenizer itself
    (cached by :func:`facts`): the id count (added tokens included, at least the rows), each row's
    name (:func:`token_names`), the unknown token's id (none or one), the special tokens' ids, the
    added tokens' texts, and whether :func:`presplit` keeps the ids."""
    size: int
    names: list
    unknown: tuple
    special: tuple
    added: tuple
    presplit: bool


def facts_of(tok, rows: int) -> Facts:
    """The :class:`Facts` of a loaded tokenizer over a ``rows``-row matrix (a tenth of a second for Llama's)."""
    spec = json.loads(tok.to_str())
    model = spec.get("model") or {}
    unk = model.get("unk_token")
    unk_id = tok.token_to_id(unk) if isinstance(unk, str) else model.get("unk_id")
    added = tok.get_added_tokens_decoder()
    return Facts(max(tok.get_vocab_size(with_added_tokens=True), rows), token_names(tok, rows),
                 () if unk_id is None else (int(unk_id),),
                 tuple(sorted(int(i) for i, t in added.items() if t.special)),
                 tuple(t.content for t in added.values() if t.content), presplit_holds(spec))


#: A cached entry of a token space's :class:`Facts` (``tokenfacts-<key>.npz``, in the cache folder
#: beside the space's matrix); the format, bumped when what it holds changes.
FACTS_VERSION = 1
FACTS_PREFIX = "tokenfacts-"
FACTS_KEEP = 4


def facts_key(path: str, rows: int) -> str:
    """The content key of a tokenizer's cached :class:`Facts` and pieces: the SHA-256 of the file's
    bytes, ``rows``, this tokenizers version and :data:`PIECE` (a thousandth of a second); InputError
    naming the file when it cannot be read."""
    import hashlib

    tokenizers = _tokenizers(path)
    h = hashlib.sha256(repr((FACTS_VERSION, rows, tokenizers.__version__, PIECE)).encode())
    try:
        with open(path, "rb") as f:
            h.update(f.read())
    except OSError as err:
        raise InputError(path, f"cannot read the tokenizer ({err.strerror or err})") from None
    return h.hexdigest()[:32]


def cached_facts(key: str, rows: int, where: str | None) -> tuple[Facts | None, str | None]:
    """(the cached :class:`Facts` of the tokenizer of :func:`facts_key` ``key`` over ``rows`` rows,
    or None; the entry's path, None without a cache folder): read from the cache folder ``where``
    (:func:`repro.io.cachefolder.folder`), where :func:`facts` wrote them."""
    if where is None:
        return None, None
    entry = os.path.join(where, f"{FACTS_PREFIX}{key}.npz")
    return _read_facts(entry, rows), entry


def facts(tok, entry: str | None, rows: int) -> Facts:
    """The :class:`Facts` of the loaded tokenizer ``tok`` by :func:`facts_of`, written at ``entry``
    (:func:`cached_facts`; None: nowhere), so that a later command-line call on a few texts reads
    them instead of parsing the tokenizer's JSON (and, with its pieces, does not load it at all)."""
    found = facts_of(tok, rows)
    if entry is None:
        return found
    meta = json.dumps({"size": found.size, "unknown": found.unknown, "special": found.special,
                       "added": found.added, "presplit": found.presplit})

    def save(f):
        np.savez(f, names=np.frombuffer("\n".join(found.names).encode(), np.uint8),
                 meta=np.frombuffer(meta.encode(), np.uint8))

    cachefolder.write_entry(entry, save, FACTS_PREFIX, FACTS_KEEP)
    return found


def _read_facts(entry: str, rows: int) -> Facts | None:
    """The :class:`Facts` of a cached entry, or None when it is missing or not well formed."""
    try:
        with np.load(entry, allow_pickle=False) as z:
            names = z["names"].tobytes().decode().split("\n")
            meta = json.loads(z["meta"].tobytes().decode())
        held = Facts(int(meta["size"]), names, tuple(meta["unknown"]), tuple(meta["special"]),
                     tuple(meta["added"]), bool(meta["presplit"]))
    except (OSError, ValueError, KeyError, TypeError, EOFError):
        return None
    if len(held.names) != rows or held.size < rows:
        return None
    cachefolder.touch(entry)
    return held


class TokenSpace:
    """A tokenizer over the ``rows`` token ids of a matrix: texts to ids, ids to idf ranks, and
    df, word counts and wordfreq counts over ids (see the module's text).

    Args:
      tokenizer: a tokenizers ``tokenizer.json`` path.
      rows: the rows of the token matrix (ids at or past it, e.g. added tokens, have no vector).
      home: the folder whose caches this space's wordfreq counts join (:func:`repro.io.cachefolder.folder`;
        the source's folder); None: only the folder ``REPRO_MAP_CACHE`` names, if any.
    """

    def __init__(self, tokenizer: str, rows: int, home: str | None = None):
        _tokenizers(tokenizer)
        self.path, self.rows, self.home = os.path.abspath(os.fspath(tokenizer)), int(rows), home
        where = cachefolder.folder(home)
        # the tokenizer's content key, hashed once: the facts' and the pieces' entries share it
        self._key = facts_key(self.path, self.rows) if where is not None else None
        known, entry = cached_facts(self._key, self.rows, where)
        tok = None
        if known is None:  # parsed once, then cached: a later call reads the facts, not the JSON
            tok = self._read()
            known = facts(tok, entry, self.rows)
        self.size, self.names, self.unknown, self.special = known.size, known.names, known.unknown, known.special
        self._added = known.added
        self.presplit = known.presplit  # the same ids as the file's tokenizer (checked in the tests)
        self._fast = None if tok is None else (_split_pieces(tok) if self.presplit else tok)
        self._file_tokenizer = None if self.presplit else tok
        self._index: dict | None = None
        self._pieces: dict = {}  # piece -> its ids, kept from call to call (a stream's batches)
        self._known = None  # the cached pieces (:class:`KnownPieces`), read on first use

    def _read(self):
        """The tokenizer as the file says, padding and truncation off; InputError naming the file."""
        try:
            tok = _tokenizers(self.path).Tokenizer.from_file(self.path)
        except Exception as err:  # tokenizers raises its own Exception type for a bad file
            raise InputError(self.path, f"cannot read the tokenizer ({err})") from None
        tok.no_padding()
        tok.no_truncation()
        return tok

    @property
    def _encoder(self):
        """The tokenizer that :meth:`encode_batch` runs (a pre-split one's: :func:`presplit`), read
        on first use (a call whose pieces are all cached never reads it: :class:`KnownPieces`)."""
        if self._fast is None:
            tok = self._read()
            self._fast = _split_pieces(tok) if self.presplit else tok
            if not self.presplit:
                self._file_tokenizer = tok
        return self._fast

    def __getstate__(self) -> dict:
        """What pickling keeps (a Dask worker's copy): all but the pieces' caches."""
        state = dict(self.__dict__)
        state.pop("_pieces", None)
        state["_known"] = None
        return state

    @property
    def tokenizer(self):
        """The tokenizer as the file says (padding and truncation off), read again on first use
        where :meth:`encode_batch` runs a pre-split copy (:func:`presplit`): what its ids are
        checked against."""
        if self._file_tokenizer is None:
            self._file_tokenizer = self._read() if self.presplit else self._encoder
        return self._file_tokenizer

    def __len__(self) -> int:
        return self.rows

    # ---- texts to ids ---------------------------------------------------------------------------

    def encode_batch(self, texts: list) -> list:
        """Raw strings to lists of token ids (the tokenizer's batch encoding, no special tokens;
        a pre-split one's model once per distinct piece, :meth:`_encode_pieces`)."""
        if self.presplit:
            return self._encode_pieces(texts)
        return self._encode_batch(texts)

    def _encode_batch(self, texts: list) -> list:
        encode = getattr(self._encoder, "encode_batch_fast", self._encoder.encode_batch)
        return [e.ids for e in encode(texts, add_special_tokens=False)]

    def _encode_pieces(self, texts: list) -> list:
        """The ids of a pre-split tokenizer (:func:`presplit`), its BPE model run once per distinct
        piece of ``texts``: each text normalised as its normaliser does (``▁`` before a non-empty
        text, every space to ``▁``) and cut into the pre-tokenizer's pieces (:data:`PIECE`). A text
        holding an added token's text goes through the tokenizer (added tokens match before the model)."""
        find = _PIECES.findall
        model = None if self._fast is None else self._fast.model
        known = self.known_pieces() if model is None else None  # until the tokenizer is read
        cache = getattr(self, "_pieces", {})  # kept across calls (a stream's batches), up to its size
        self._pieces = cache = cache if len(cache) < PIECE_CACHE else {}
        out = []
        odd = []
        for i, text in enumerate(texts):
            if any(a in text for a in self._added):
                odd.append(i)
                out.append(None)
                continue
            ids: list = []
            if text:
                for piece in find("▁" + text.replace(" ", "▁")):
                    got = cache.get(piece)
                    if got is None:
                        got = known.get(piece) if known is not None else None
                        if got is None:
                            model, known = model or self._encoder.model, None
                            got = [t.id for t in model.tokenize(piece)]
                        cache[piece] = got
                    ids += got
            out.append(ids)
        for i, ids in zip(odd, self._encode_batch([texts[i] for i in odd]) if odd else []):
            out[i] = ids
        return out

    def cache_key(self) -> str:
        """:func:`facts_key` of this space's tokenizer, hashed once (at construction where a cache
        folder was set then, else here)."""
        if self._key is None:
            self._key = facts_key(self.path, self.rows)
        return self._key

    def known_pieces(self) -> "KnownPieces | None":
        """The pieces whose ids are cached beside the space (:class:`KnownPieces`), or None."""
        if self._known is None and self.presplit:
            where = cachefolder.folder(self.home)
            self._known = False if where is None else KnownPieces.read(where, self.cache_key()) or False
        return self._known or None

    def encode(self, text: str) -> list:
        """One raw string to its token ids (the tokeniser of :func:`repro.words.text.tokens` for a token space)."""
        return self.encode_batch([text])[0]

    @property
    def index(self) -> dict:
        """name -> id (:func:`token_names`), built on first use."""
        if self._index is None:
            self._index = {n: i for i, n in enumerate(self.names)}
        return self._index

    def ids(self, texts, name: str = "texts") -> list:
        """Texts as lists of token ids: raw strings through the tokenizer (in one batch), a list
        or tuple of token names (:func:`token_names`) looked up (an unknown name is -1, dropped
        later), a list of ids as it is. ValueError naming ``name[i]`` for anything else."""
        if isinstance(texts, (str, bytes)):
            raise ValueError(f"{name}: expected a list of texts, got a single string")
        texts = texts if isinstance(texts, list) else list(texts)
        if all(type(t) is str for t in texts):
            return self.encode_batch(texts)
        out: list = [None] * len(texts)
        raw = []
        for i, t in enumerate(texts):
            if isinstance(t, str):
                raw.append(i)
            elif isinstance(t, (list, tuple)) and all(isinstance(w, str) for w in t):
                get = self.index.get
                out[i] = [get(w, -1) for w in t]
            elif isinstance(t, list) and all(isinstance(w, (int, np.integer)) and not isinstance(w, bool) for w in t):
                out[i] = t
            else:
                raise ValueError(f"{name}[{i}]: expected a string or a list of string tokens, got {type(t).__name__}")
        for i, ids in zip(raw, self.encode_batch([texts[i] for i in raw])):
            out[i] = ids
        return out

    def lookup(self, rank) -> "IdLookup":
        """The id -> idf rank lookup for the ranks ``rank`` of the rows (:class:`IdLookup`)."""
        return IdLookup(self, rank)

    # ---- counts over ids ------------------------------------------------------------------------

    def _flat(self, ids: list) -> tuple[np.ndarray, np.ndarray]:
        """(flat ids, with every id that has no row or is dropped moved to ``size``; lengths)."""
        lengths = np.fromiter(map(len, ids), np.int64, len(ids))
        flat = np.fromiter(itertools.chain.from_iterable(ids), np.int64, int(lengths.sum()))
        flat[(flat < 0) | (flat >= self.rows)] = self.size
        if self.unknown:
            flat[np.isin(flat, self.unknown)] = self.size
        return flat, lengths

    def docfreq(self, texts, progress: bool = False, block: int = 65536):
        """The :class:`repro.words.docfreq.DocFreq` of ``texts`` over token ids: each text one document,
        df the texts holding a token, counts its occurrences; the names of the tokens seen, as
        :meth:`repro.words.docfreq.DocFreq.from_corpus` lists the words seen. ValueError for no texts."""
        from repro.words.docfreq import DocFreq
        from repro.progress import bar

        texts = texts if isinstance(texts, list) else list(texts)
        if not texts:
            raise ValueError("corpus: no texts to count document frequencies in")
        df = np.zeros(self.size + 1, np.int64)
        counts = np.zeros(self.size + 1, np.int64)
        with bar(len(texts), "count df", unit="text", show=progress) as shown:
            for lo in range(0, len(texts), block):
                flat, lengths = self._flat(self.ids(texts[lo:lo + block], "corpus"))
                counts += np.bincount(flat, minlength=self.size + 1)
                doc = np.repeat(np.arange(lengths.size, dtype=np.int64), lengths)
                pairs = np.unique(doc * (self.size + 1) + flat)  # (text, token) once each
                df += np.bincount(pairs % (self.size + 1), minlength=self.size + 1)
                shown.update(lengths.size)
        seen = np.flatnonzero(df[:self.rows] > 0)
        return DocFreq([self.names[i] for i in seen.tolist()], df[seen], len(texts), counts[seen])

    def wordfreq_counts(self, lang: str) -> np.ndarray:
        """(rows,) int64 counts of every token from wordfreq's words of ``lang`` (see the module's
        text); computed once per space and language."""
        return _wordfreq_counts(self, lang).copy()


@functools.lru_cache(maxsize=8)
def _wordfreq_counts(space: TokenSpace, lang: str) -> np.ndarray:
    """The counts of :meth:`TokenSpace.wordfreq_counts`, from the space's cache folder where an
    entry of the same content is there (:func:`counts_key`), else counted and written there."""
    where = cachefolder.folder(space.home)
    key = counts_key(space, lang) if where else None
    path = os.path.join(where, f"{COUNTS_PREFIX}{key}.npy") if key else None
    if path:
        held = _read_counts(path, space.rows)
        if held is not None:
            if space.presplit and space.known_pieces() is None:  # counts cached before the pieces were kept
                space.encode_batch(_counted_words(lang)[0])  # their pieces, as counting meets them
                KnownPieces.write(where, space.cache_key(), space._pieces)
            return held
    counts = _count_wordfreq(space, lang)
    if path:
        cachefolder.write_entry(path, lambda f: np.save(f, counts, allow_pickle=False), COUNTS_PREFIX, COUNTS_KEEP)
        if space.presplit and space.known_pieces() is None:  # the words' pieces, met while counting
            KnownPieces.write(where, space.cache_key(), space._pieces)
    return counts


#: Cached pieces (:class:`KnownPieces`): ``tokenpieces-<key>.npy`` (the sorted pieces, fixed-width
#: strings) and ``tokenpieceids-<key>.npy`` (their ids, -1 padded), for the tokenizer's :func:`facts_key`
PIECES_PREFIX, PIECE_IDS_PREFIX = "tokenpieces-", "tokenpieceids-"
#: The longest piece kept (characters), and the most ids of one piece
PIECE_CHARS, PIECE_WIDTH = 20, 8


class KnownPieces:
    """The ids of the pieces a pre-split space met while counting wordfreq's words (about 100,000
    of a language's words, each as it reads inside a sentence, ``▁word``), kept beside the space:
    a command-line call on a few texts looks its pieces up here, memory-mapped (a binary search
    touches a few pages), and reads the tokenizer (a twentieth of a second) only for a piece
    missing. The ids are the tokenizer's own for each piece (the model run on it when written), so
    the result is the same with or without them (tests/test_tokenspace.py)."""

    def __init__(self, pieces: np.ndarray, ids: np.ndarray):
        self.pieces, self.ids = pieces, ids

    def get(self, piece: str) -> list | None:
        """The ids of ``piece``, or None when it is not kept."""
        if len(piece) > PIECE_CHARS:
            return None
        i = int(np.searchsorted(self.pieces, piece))
        if i == len(self.pieces) or self.pieces[i] != piece:
            return None
        row = self.ids[i]
        return row[row >= 0].tolist()

    @staticmethod
    def write(where: str, key: str, pieces: dict) -> None:
        """Keep ``pieces`` (piece -> ids) of at most :data:`PIECE_CHARS` characters and
        :data:`PIECE_WIDTH` ids, ids first, then the pieces (a reader needs both)."""
        kept = sorted(p for p, ids in pieces.items()  # a NUL would not survive NumPy's fixed-width strings
                      if len(p) <= PIECE_CHARS and len(ids) <= PIECE_WIDTH and "\x00" not in p)
        if not kept:
            return
        ids = np.full((len(kept), PIECE_WIDTH), -1, np.int32)
        for i, p in enumerate(kept):
            ids[i, :len(pieces[p])] = pieces[p]
        strings = np.array(kept, dtype=f"<U{PIECE_CHARS}")
        for prefix, array in ((PIECE_IDS_PREFIX, ids), (PIECES_PREFIX, strings)):
            cachefolder.write_entry(os.path.join(where, f"{prefix}{key}.npy"),
                                    lambda f, a=array: np.save(f, a, allow_pickle=False), prefix, FACTS_KEEP)

    @classmethod
    def read(cls, where: str, key: str) -> "KnownPieces | None":
        """The pieces kept in ``where`` for the tokenizer key ``key``, memory-mapped; None when
        either file is missing or they do not fit each other."""
        try:
            pieces = np.load(os.path.join(where, f"{PIECES_PREFIX}{key}.npy"), mmap_mode="r", allow_pickle=False)
            ids = np.load(os.path.join(where, f"{PIECE_IDS_PREFIX}{key}.npy"), mmap_mode="r", allow_pickle=False)
        except (OSError, ValueError, EOFError):
            return None
        if pieces.ndim != 1 or pieces.dtype != np.dtype(f"<U{PIECE_CHARS}") or ids.shape != (len(pieces), PIECE_WIDTH) \
                or ids.dtype != np.int32:
            return None
        return cls(pieces, ids)


def counts_key(space: TokenSpace, lang: str) -> str | None:
    """The content key of a space's wordfreq counts: the SHA-256 of the space's own key
    (:meth:`TokenSpace.cache_key`: the tokenizer file's bytes, the matrix's rows, the tokenizers
    version; hashed once per space), the bytes of the word list wordfreq reads for ``lang``
    (:func:`repro.words.wordfrequencies.frequency_file`), the constants of the count and the versions
    of what computes it (:data:`COUNTS_VERSION`, wordfreq, NumPy). None where the list's file is not
    found (a language code wordfreq matches only approximately): the counts are then not cached."""
    import hashlib

    from repro.words.wordfrequencies import DOMAIN, MISSING, frequency_file

    listed = frequency_file(lang)
    if listed is None:
        return None
    h = hashlib.sha256(repr((COUNTS_VERSION, WORDFREQ_MIN, DOMAIN, MISSING, space.cache_key(), np.__version__,
                             installed_version("wordfreq"))).encode())
    with open(listed, "rb") as f:
        h.update(f.read())
    return h.hexdigest()


def _read_counts(path: str, rows: int) -> np.ndarray | None:
    """The (rows,) int64 counts of an entry, or None when it is missing or not well formed."""
    try:
        counts = np.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError):
        return None
    if counts.shape != (rows,) or counts.dtype != np.int64:
        return None
    cachefolder.touch(path)
    return counts


def _counted_words(lang: str) -> tuple[list, np.ndarray]:
    """wordfreq's words of ``lang`` that count (frequency at least :data:`WORDFREQ_MIN`), and their frequencies."""
    from repro.words.wordfrequencies import frequency_dict

    freq = frequency_dict(lang)
    words = [w for w, f in freq.items() if f >= WORDFREQ_MIN]
    return words, np.fromiter((freq[w] for w in words), np.float64, len(words))


def _count_wordfreq(space: TokenSpace, lang: str) -> np.ndarray:
    from repro.words.wordfrequencies import DOMAIN, MISSING

    words, f = _counted_words(lang)
    alone = space.encode_batch(words)
    inside = space.encode_batch([f"{w} {w}" for w in words])
    second = [b[len(a):] for a, b in zip(alone, inside)]  # the tokens of w inside a sentence
    flat, lengths = space._flat(second)
    mass = np.bincount(flat, weights=np.repeat(f, lengths), minlength=space.size + 1)[:space.rows]
    mass[list(space.special)] = 0.0
    counts = (mass / mass.sum() * DOMAIN).astype(np.int64) if mass.sum() > 0 else np.zeros(space.rows, np.int64)
    missing = int(MISSING * DOMAIN)
    unreached = np.flatnonzero(mass == 0)
    decoded = space._encoder.decode_batch([[i] for i in unreached.tolist()], skip_special_tokens=False)
    symbol = np.fromiter((not any(c.isalnum() for c in t) for t in decoded), bool, unreached.size)
    symbol &= ~np.isin(unreached, list(space.special) + list(space.unknown))
    top = int(counts.max()) if counts.size else missing
    counts = np.maximum(counts, missing)
    counts[unreached[symbol]] = max(top, missing)
    return counts


class IdLookup(RankLookup):
    """Token id -> idf rank for whole chunks of id lists: one array lookup (:class:`repro.words.ranklookup.RankLookup`'s
    interface, so :class:`repro.words.vocabulary.Vocabulary` and the encoding kernel take it as they are).
    An id without a row, the unknown token and -1 give the sentinel V; a list of token names is
    looked up by name (:meth:`TokenSpace.ids`)."""

    def __init__(self, space: TokenSpace, rank):
        rank = np.asarray(rank, np.int64)
        if rank.shape != (space.rows,):
            raise ValueError(f"rank: need one rank per token ({space.rows}), got shape {rank.shape}")
        self.space = space
        self.sentinel = space.rows
        self._rank = np.full(space.size + 1, self.sentinel, np.int32)  # slot ``size``: every id without a row
        self._rank[:space.rows] = rank
        self._rank[list(space.unknown)] = self.sentinel

    def __len__(self) -> int:
        return self.sentinel

    def __getitem__(self, token) -> int:
        i = self.space.index.get(token, -1) if isinstance(token, str) else int(token)
        return int(self._rank[i]) if 0 <= i < self.space.size else self.sentinel

    def ranks(self, texts, count: int | None = None) -> np.ndarray:
        """(count,) int32 ranks of every token of ``texts`` (lists of ids, or of token names) in order."""
        if any(len(t) and type(t[0]) is not int for t in texts):  # token names (or ids of another int type)
            texts = [t if not len(t) or isinstance(t[0], (int, np.integer)) else self.space.ids([t])[0] for t in texts]
        if count is None:
            count = sum(map(len, texts))
        flat = np.fromiter(itertools.chain.from_iterable(texts), np.int64, count)
        flat[(flat < 0) | (flat > self.space.size)] = self.space.size
        return self._rank[flat]


# ---- sources -----------------------------------------------------------------------------------


#: safetensors dtypes that NumPy holds as they are stored (little-endian), for :func:`_mapped_tensor`
MAPPED_DTYPES = {"F16": "<f2", "F32": "<f4", "F64": "<f8"}


def _matrix_key(path: str, shapes: dict, key: str | None) -> str:
    """The tensor of ``shapes`` (name: shape) that holds the token matrix: ``key``, else one of
    :data:`MATRIX_TENSORS`, else the only 2-D tensor; InputError naming ``path`` otherwise."""
    if key is None:
        key = next((k for k in MATRIX_TENSORS if k in shapes), None)
    if key is None:
        two_d = [k for k, shape in shapes.items() if len(shape) == 2]
        key = two_d[0] if len(two_d) == 1 else None
    if key is None or key not in shapes:
        raise InputError(path, f"no token matrix: expected a tensor named {' or '.join(MATRIX_TENSORS)}, or "
                               f"one 2-D tensor; it holds {', '.join(shapes) or 'none'}")
    return key


def _mapped_tensor(path: str, key: str | None) -> np.ndarray | None:
    """The token matrix of a .safetensors file memory-mapped as stored (read-only; pages read on
    demand: no copy of the matrix), from the format's header (8 bytes of little-endian length, then
    JSON: each tensor's dtype, shape and byte offsets after the header); None where NumPy cannot
    hold its dtype as stored (bfloat16) or the header is not as the format says (the safetensors
    package then reads it, and says what is wrong)."""
    try:
        with open(path, "rb") as f:
            size = int.from_bytes(f.read(8), "little")
            if not 2 <= size <= min(os.path.getsize(path) - 8, 1 << 26):
                return None
            header = json.loads(f.read(size))
        shapes = {k: v["shape"] for k, v in header.items() if k != "__metadata__"}
        entry = header[_matrix_key(path, shapes, key)]
        dtype, shape = np.dtype(MAPPED_DTYPES[entry["dtype"]]), tuple(int(n) for n in entry["shape"])
        start, end = (int(n) for n in entry["data_offsets"])
        if len(shape) != 2 or end - start != shape[0] * shape[1] * dtype.itemsize or \
                8 + size + end > os.path.getsize(path) or shape[0] * shape[1] == 0:
            return None
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    return np.memmap(path, dtype=dtype, mode="r", offset=8 + size + start, shape=shape)


def _safetensors_matrix(path: str, key: str | None = None) -> np.ndarray:
    """The token matrix of a .safetensors file: tensor ``key``, else one of :data:`MATRIX_TENSORS`,
    else its only 2-D tensor; memory-mapped where its dtype allows (:func:`_mapped_tensor`)."""
    mapped = _mapped_tensor(path, key)
    if mapped is not None:
        return mapped
    try:
        from safetensors import safe_open
    except ImportError:
        raise InputError(path, f"reading .safetensors needs the safetensors package: {EXTRA}") from None
    try:
        with safe_open(path, framework="numpy") as f:
            return f.get_tensor(_matrix_key(path, {k: f.get_slice(k).get_shape() for k in f.keys()}, key))
    except InputError:
        raise
    except Exception as err:  # safetensors raises its own types for a bad file
        raise InputError(path, f"cannot read the token matrix ({err})") from None


def read_matrix(path: str) -> np.ndarray:
    """A token matrix from a ``.npy`` (memory-mapped) or ``.safetensors`` file."""
    if not os.path.isfile(path):
        raise InputError(path, "no such file")
    if path.endswith(".safetensors"):
        return _safetensors_matrix(path)
    if path.endswith(".npy"):
        try:
            return np.load(path, allow_pickle=False, mmap_mode="r")
        except (OSError, ValueError) as err:
            raise InputError(path, f"cannot read the token matrix ({err})") from None
    raise InputError(path, "a token matrix must be a .npy or .safetensors file")


def folder_matrix(folder: str) -> str | None:
    """The matrix file of a folder holding ``tokenizer.json``: ``vectors.npy`` (``repro vectors``),
    ``model.safetensors`` (model2vec, StaticEmbedding), else its one .npy or .safetensors file; None if none."""
    for name in ("vectors.npy", MODEL2VEC_MATRIX):
        if os.path.isfile(os.path.join(folder, name)):
            return os.path.join(folder, name)
    found = sorted(f for f in os.listdir(folder) if f.endswith((".npy", ".safetensors")))
    return os.path.join(folder, found[0]) if len(found) == 1 else None


def is_token_folder(path: str) -> bool:
    """True when ``path`` is a folder with a ``tokenizer.json``."""
    return os.path.isdir(path) and os.path.isfile(os.path.join(path, TOKENIZER))


def _space(tokenizer: str, matrix, label: str, home: str | None = None) -> tuple[list[str], np.ndarray, TokenSpace]:
    matrix = np.asarray(matrix) if not isinstance(matrix, np.ndarray) else matrix
    if matrix.ndim != 2 or matrix.shape[0] == 0:
        raise InputError(label, f"no token vectors (matrix shape {matrix.shape})")
    space = TokenSpace(tokenizer, matrix.shape[0], home)
    return list(space.names), matrix, space


def load(source) -> tuple[list[str], np.ndarray, TokenSpace] | None:
    """(names, (V, d) matrix as stored, the :class:`TokenSpace`) of a token-space source, or None
    when ``source`` is not one (see the module's text for the sources)."""
    if isinstance(source, tuple) and len(source) == 2 and isinstance(source[0], (str, os.PathLike)):
        tokenizer = os.fspath(source[0])
        if not os.path.isfile(tokenizer):
            raise InputError(tokenizer, "no such file")
        matrix = read_matrix(os.fspath(source[1])) if isinstance(source[1], (str, os.PathLike)) else source[1]
        return _space(tokenizer, matrix, tokenizer)
    if not isinstance(source, (str, os.PathLike)):
        return None
    path = os.fspath(source)
    if path == WORDLLAMA and not os.path.exists(path):
        where = wordllama_dir()
        matrix_path = os.path.join(where, WORDLLAMA_MATRIX)
        for need in (matrix_path, os.path.join(where, WORDLLAMA_TOKENIZER)):
            if not os.path.isfile(need):
                raise InputError(need, "no such file in the installed wordllama (pip install wordllama==0.4.0.post1)")
        return _space(os.path.join(where, WORDLLAMA_TOKENIZER), _safetensors_matrix(matrix_path, WORDLLAMA_TENSOR),
                      WORDLLAMA, wordllama_home())
    if not is_token_folder(path):
        return None
    matrix_path = folder_matrix(path)
    if matrix_path is None:
        raise InputError(path, f"holds {TOKENIZER} but no token matrix: expected vectors.npy, {MODEL2VEC_MATRIX}, "
                               "or one .npy or .safetensors file")
    names, matrix, space = _space(os.path.join(path, TOKENIZER), read_matrix(matrix_path), matrix_path,
                                  os.path.abspath(path))
    if os.path.basename(matrix_path) == "vectors.npy" and os.path.isfile(os.path.join(path, "vocab.txt")):
        from repro.io.store import read_vocab

        if read_vocab(os.path.join(path, "vocab.txt")) != names:
            raise InputError(path, f"vocab.txt does not list the token names of its {TOKENIZER} (rewrite the folder "
                                   "with repro vectors)")
    return names, matrix, space


def describe(source) -> str:
    """A short name of a token-space source, for messages."""
    if isinstance(source, tuple):
        return f"the tokenizer {os.fspath(source[0])} with its matrix"
    if os.fspath(source) == WORDLLAMA and not os.path.exists(WORDLLAMA):
        return "the WordLlama wheel (l2_supercat_256)"
    return f"the token folder {os.fspath(source)}"

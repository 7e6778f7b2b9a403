"""Word -> idf rank for a whole chunk of tokens at once, mostly outside the GIL.

The encoder's first step (:mod:`repro.encode.weightedsums`) maps every token to its idf rank (0 = highest
idf, the paper's sort order of eq. 1; an unknown word to the sentinel V). A Python dict does
this one token at a time, holding the GIL; on a large vocabulary each probe also misses the
cache several times (the index, the entry, the key's text, the value's int object), so on a
200,000-word table the lookups of 2M tokens took 0.45-0.6 s, more than the sums.

Here a chunk's tokens are joined into one UTF-8 buffer (one C call, the only step under the
GIL) and looked up together in NumPy, whose loops release the GIL, so two threads overlap:

1. **Keys.** A word of 1 to :data:`KEY_BYTES` UTF-8 bytes *is* its key: its bytes, zero-padded
   to two little 64-bit integers (lo, hi). Tokens hold no NUL byte (checked), so the padding
   cannot collide with a real byte and equal keys mean equal words: the lookup is exact, not
   probabilistic.
2. **Table.** An open-addressing hash table (linear probing, load at most one eighth up to 50 MB,
   else one half: :func:`table_bits`) whose slots hold (lo, hi, rank) side by side, so one probe
   is one cache line.
3. **Probe.** Every token's home slot is gathered at once; the few that meet another key move
   one slot on and are gathered again, until each meets its key (a hit) or an empty slot (an
   unknown word).

Words of 0 or more than :data:`KEY_BYTES` bytes are rare: they use a small dict of their bytes.
A chunk with a token that is not a string, or holds a NUL character, takes the plain dict path,
with the same result. With numba (the extra ``fast``), once its loops are loaded (:func:`repro.words.numbakernels.kernels`),
steps 1 to 3 are one compiled loop over the buffer instead (:func:`repro.words.numbakernels.probe`), with the same ranks. Timed once (100,000 texts of 20 words, 200,000-word table, one thread):
the dict 0.45-0.63 s, this lookup 0.16-0.21 s (0.21-0.23 s before the most frequent words
were placed first), of which 0.035 s under the GIL. Later, on 7,800 words (Zipf's law, one
thread, per 100,000 texts): joining each text's tokens and then the texts 0.037 s against 0.066-0.072 s
for one join over all tokens (the GIL is held less, so two threads overlap better); the keys
0.04 s against 0.08 s (indexing the unaligned view instead of ``np.take`` from it, the masks
from two 1-D tables, ``hi`` only for tokens of more than 8 bytes); the probe 0.06 s against
0.10 s at a load of 1/8 instead of 1/2.
"""

from __future__ import annotations

import itertools
from typing import Sequence

import numpy as np

from repro.words import numbakernels

#: Words up to this many UTF-8 bytes are keys of the table; longer ones use a dict.
KEY_BYTES = 16
#: The most slots (as a power of 2) that a table takes to keep its load at 1/8 (:func:`table_bits`):
#: 2**21 slots of 24 bytes, 50 MB.
SPARSE_BITS = 21
#: Tokens looked up at once by :meth:`RankLookup.ranks` (about 80 bytes of temporaries each):
#: a longer text (issue 35) is looked up in blocks, so its lookup takes memory and time linear
#: in its length.
BLOCK = 1 << 20

_MIX = np.array([0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0xBF58476D1CE4E5B9], dtype=np.uint64)  # _home's, the compiled probe's
_EMPTY = np.uint64(0)  # lo of an empty slot: no key has it, since a key's first byte is not NUL
_ENCODING = ("utf-8", "surrogatepass")  # every str encodes, and equal bytes mean equal strings


def _byte_masks() -> np.ndarray:
    """(KEY_BYTES + 1, 2) uint64: row l keeps the first l bytes of a (lo, hi) key and zeroes the rest."""
    rows = [(b"\xff" * n).ljust(KEY_BYTES, b"\0") for n in range(KEY_BYTES + 1)]
    return np.frombuffer(b"".join(rows), dtype="<u8").reshape(-1, 2).astype(np.uint64)


_LO_MASKS, _HI_MASKS = _byte_masks().T.copy()  # by a key's kept length: the lo and hi masks


def table_bits(keys: int) -> int:
    """log2 of the slots of a table of ``keys`` keys: a load of at most 1/8 while the table stays
    within 2**:data:`SPARSE_BITS` slots, else at most 1/2. At a load of 1/2, 18% of the tokens of
    Zipf-distributed text (7,800 words) missed their home slot and the probe took 0.10 s per
    100,000 texts of 20 words; at 1/8, 6% and 0.06 s (200,000 words: 0.11 s and 0.087 s)."""
    dense = int(np.ceil(np.log2(max(2 * keys, 1))))
    return max(4, dense, min(int(np.ceil(np.log2(max(8 * keys, 1)))), SPARSE_BITS))


def _home(lo: np.ndarray, hi: np.ndarray, bits: int) -> np.ndarray:
    """Home slots of keys (lo, hi) in a table of 2**bits slots: a multiply-xorshift mix, top bits."""
    h = lo * _MIX[0]
    h ^= hi * _MIX[1]
    h ^= h >> np.uint64(32)
    h *= _MIX[2]
    h >>= np.uint64(64 - bits)
    return h.astype(np.intp)


def token_keys(data: bytes, count: int):
    """(lo, hi, starts, lengths) of ``count`` tokens joined by NUL bytes in ``data``, or None when
    the buffer does not hold exactly ``count`` tokens (a token with a NUL in it).

    lo, hi: (count,) uint64 keys, bytes past a token's end (or past KEY_BYTES) zeroed; starts,
    lengths: (count,) byte offsets and byte lengths.
    """
    buf = np.frombuffer(data, np.uint8)
    ends = np.flatnonzero(buf == 0)
    if ends.size != count - 1:
        return None
    starts = np.empty(count, np.intp)
    starts[0] = 0
    starts[1:] = ends + 1
    lengths = np.empty(count, np.intp)
    lengths[:-1] = ends
    lengths[-1] = len(data)
    lengths -= starts
    padded = data + bytes(2 * KEY_BYTES)
    # every byte offset as an unaligned little-endian 64-bit integer: a token's first 8 and next 8
    # bytes (indexing this view is 3x faster than np.take from it)
    words = np.ndarray((len(padded) - 7,), dtype="<u8", buffer=padded, strides=(1,))
    kept = np.minimum(lengths, KEY_BYTES)
    lo = words[starts].astype(np.uint64, copy=False)
    lo &= np.take(_LO_MASKS, kept)
    longer = np.flatnonzero(lengths > KEY_BYTES // 2)  # only these have bytes in hi: the others' hi is 0
    if 4 * longer.size > count:
        hi = words[starts + 8].astype(np.uint64, copy=False)
        hi &= np.take(_HI_MASKS, kept)
    else:
        hi = np.zeros(count, np.uint64)
        hi[longer] = words[starts[longer] + 8] & np.take(_HI_MASKS, kept[longer])
    return lo, hi, starts, lengths


class RankLookup:
    """word -> idf rank (0 = highest idf); a word it does not hold gives :attr:`sentinel` (= V).

    ``lookup[word]`` looks up one word; :meth:`ranks` a whole chunk of token lists at once.
    """

    def __init__(self, words: Sequence[str], rank):
        rank = np.asarray(rank, dtype=np.int64)
        if rank.shape != (len(words),):
            raise ValueError(f"rank: need one rank per word ({len(words)}), got shape {rank.shape}")
        self.sentinel = len(words)
        self._words, self._rank = words, rank
        self._dict = dict(zip(words, rank.tolist()))
        encoded = [w.encode(*_ENCODING) for w in self._dict]
        values = np.fromiter(self._dict.values(), dtype=np.int64, count=len(self._dict))
        lengths = np.fromiter(map(len, encoded), dtype=np.intp, count=len(encoded))
        joined = b"".join(encoded)
        holds_nul = (np.fromiter((b"\0" in b for b in encoded), dtype=bool, count=len(encoded)) if b"\0" in joined
                     else np.zeros(len(encoded), dtype=bool))  # such a word is never a token: neither kind
        short = (lengths > 0) & (lengths <= KEY_BYTES) & ~holds_nul
        self._other = {encoded[i]: int(values[i]) for i in np.flatnonzero(~short & ~holds_nul).tolist()}
        # each short word's bytes zero-padded to KEY_BYTES: a fixed-width bytes array holds exactly that
        keys = np.array([encoded[i] for i in np.flatnonzero(short).tolist()], dtype=f"S{KEY_BYTES}")
        keys = keys.view("<u8").reshape(-1, 2).astype(np.uint64)
        values = values[short]
        # the most frequent words (lowest idf: the highest ranks) are placed first, at their home
        # slots, so that most tokens are found by the first probe
        order = np.argsort(-values, kind="stable")
        self._bits = table_bits(len(keys))
        self._slots = self._build(keys[order], values[order].astype(np.uint64))

    @classmethod
    def from_state(cls, words: Sequence[str], rank, bits: int, slots: np.ndarray, other: dict) -> "RankLookup":
        """The lookup of ``words`` and ``rank`` from its parts as built before (:mod:`repro.words.cachedranks`):
        ``slots`` the (2**bits, 3) table, ``other`` the words it cannot key (bytes -> rank); the
        word dict is built only when a single word or a chunk of odd tokens needs it."""
        self = cls.__new__(cls)
        self.sentinel, self._words, self._rank = len(words), words, np.asarray(rank, dtype=np.int64)
        self._bits, self._slots, self._other = int(bits), slots, other
        return self

    def state(self) -> tuple[int, np.ndarray, dict]:
        """The parts :meth:`from_state` takes back besides the words and ranks: (bits, the
        (2**bits, 3) slot table, the words it cannot key as bytes -> rank)."""
        return self._bits, self._slots, self._other

    @property
    def _dict(self) -> dict:
        if getattr(self, "_held_dict", None) is None:
            self._held_dict = dict(zip(self._words, self._rank.tolist()))
        return self._held_dict

    @_dict.setter
    def _dict(self, value: dict) -> None:
        self._held_dict = value

    def _build(self, keys: np.ndarray, values: np.ndarray) -> np.ndarray:
        """(2**bits, 3) uint64 slots (lo, hi, rank) by linear probing, placed in rounds: in each,
        a pending key whose slot is taken moves one slot on, and of the keys that want one free
        slot the first in the given order takes it (deterministic)."""
        size = 1 << self._bits
        slots = np.zeros((size, 3), dtype=np.uint64)
        pending = np.arange(len(keys))
        at = _home(keys[:, 0], keys[:, 1], self._bits)
        while pending.size:
            taken = slots[at, 0] != _EMPTY
            free = np.flatnonzero(~taken)
            _, first = np.unique(at[free], return_index=True)
            won = free[first]
            slots[at[won], :2] = keys[pending[won]]
            slots[at[won], 2] = values[pending[won]]
            at[taken] = (at[taken] + 1) & (size - 1)
            left = np.ones(pending.size, dtype=bool)
            left[won] = False
            pending, at = pending[left], at[left]
        return slots

    def __len__(self) -> int:
        return len(self._dict)

    def __getitem__(self, word) -> int:
        return self._dict.get(word, self.sentinel)

    def ranks(self, texts: Sequence[Sequence[str]], count: int | None = None) -> np.ndarray:
        """(count,) int32 ranks of every token of ``texts`` in order (``count``: their number)."""
        if count is None:
            count = sum(map(len, texts))
        if count == 0:
            return np.zeros(0, dtype=np.int32)
        if count > BLOCK:  # a very long text: BLOCK tokens at a time, so the temporaries stay bounded
            return self._blocked_ranks(texts, count)
        try:  # each text's tokens joined, then the texts (an empty text would add an empty token)
            data = "\0".join(map("\0".join, filter(None, texts))).encode(*_ENCODING)
        except TypeError:  # a token that is not a string: not in the vocabulary
            return self._dict_ranks(texts, count)
        compiled = numbakernels.loaded()
        if compiled is not None:  # the same ranks in one compiled pass (repro.words.numbakernels)
            out = self._compiled_ranks(compiled, data, count)
            return self._dict_ranks(texts, count) if out is None else out
        keyed = token_keys(data, count)
        if keyed is None:
            return self._dict_ranks(texts, count)
        lo, hi, starts, lengths = keyed
        out = self._probe(lo, hi)
        # tokens the table cannot key: a longer token's first 16 bytes may have matched a short
        # word, and the empty token the empty key, so their answers are replaced here
        odd = np.flatnonzero((lengths == 0) | (lengths > KEY_BYTES))
        return self._odd_ranks(out, data, odd, starts[odd], lengths[odd])

    def _odd_ranks(self, out: np.ndarray, data: bytes, at, starts, lengths) -> np.ndarray:
        """``out`` with the ranks of the tokens the table cannot key (0 or more than KEY_BYTES
        bytes) from their dict: token ``at[k]`` is ``data[starts[k]:starts[k] + lengths[k]]``."""
        for i, s, n in zip(at.tolist(), starts.tolist(), lengths.tolist()):
            out[i] = self._other.get(data[s:s + n], self.sentinel)
        return out

    def _compiled_ranks(self, compiled, data: bytes, count: int) -> np.ndarray | None:
        """:meth:`ranks` of the ``count`` tokens NUL-joined in ``data`` by :func:`repro.words.numbakernels.probe`;
        None when ``data`` does not hold exactly ``count`` tokens (a NUL in one)."""
        out = np.empty(count, np.int32)
        odd_at, odd_start, odd_len = (np.empty(count, np.int64) for _ in range(3))
        n_odd = compiled.probe(np.frombuffer(data, np.uint8), count, self._slots, self._bits, KEY_BYTES, self.sentinel,
                               _MIX, out, odd_at, odd_start, odd_len)
        if n_odd < 0:
            return None
        return self._odd_ranks(out, data, odd_at[:n_odd], odd_start[:n_odd], odd_len[:n_odd])

    def _blocked_ranks(self, texts, count: int) -> np.ndarray:
        """:meth:`ranks` of ``count`` tokens, :data:`BLOCK` at a time (the same ranks)."""
        out = np.empty(count, dtype=np.int32)
        tokens = itertools.chain.from_iterable(texts)
        for start in range(0, count, BLOCK):
            part = list(itertools.islice(tokens, BLOCK))
            out[start:start + len(part)] = self.ranks([part], len(part))
        return out

    def rows(self, texts: Sequence[Sequence[str]]) -> tuple[np.ndarray, np.ndarray]:
        """Token lists to (B, W) int32 rank rows and (B,) int32 lengths n, the known words only.

        Each row holds its text's ranks sorted ascending (the paper's descending idf, ties by
        the word), the unknown words and the padding (:attr:`sentinel`) after them; W is the
        longest text's number of known words (at least 1). The one step from tokens to rows of
        :meth:`repro.words.vocabulary.Vocabulary.rows`.
        """
        b = len(texts)
        raw = np.fromiter(map(len, texts), dtype=np.int64, count=b)
        total = int(raw.sum())
        flat = self.ranks(texts, total)
        longest = int(raw.max()) if b else 0
        if b and int(raw.min()) == longest:  # every text as long: a reshape, no scatter
            ranks = flat.reshape(b, longest)
        else:
            ranks = np.full((b, max(longest, 1)), self.sentinel, dtype=np.int32)
            row = np.repeat(np.arange(b), raw)
            start = np.cumsum(raw) - raw
            ranks[row, np.arange(total) - start[row]] = flat
        ranks.sort(axis=1)
        lengths = (ranks < self.sentinel).sum(axis=1, dtype=np.int32)
        width = max(int(lengths.max()) if b else 0, 1)
        return ranks[:, :width], lengths

    def _probe(self, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        """(n,) int32 ranks of keys (lo, hi), the sentinel where a probe ends at an empty slot."""
        at = _home(lo, hi, self._bits)
        slot = np.take(self._slots, at, axis=0)  # (n, 3): lo, hi, rank
        hit = slot[:, 0] == lo
        hit &= slot[:, 1] == hi
        out = np.where(hit, slot[:, 2], np.uint64(self.sentinel)).astype(np.int32)
        hit |= slot[:, 0] == _EMPTY
        todo = np.flatnonzero(~hit)  # met another key: most tokens do not (frequent words sit at home)
        lo, hi, at = lo[todo], hi[todo], at[todo]
        mask = (1 << self._bits) - 1
        while todo.size:
            at = (at + 1) & mask
            slot = np.take(self._slots, at, axis=0)
            hit = (slot[:, 0] == lo) & (slot[:, 1] == hi)
            out[todo[hit]] = slot[hit, 2]
            on = ~hit & (slot[:, 0] != _EMPTY)
            todo, lo, hi, at = todo[on], lo[on], hi[on], at[on]
        return out

    def _dict_ranks(self, texts, count: int) -> np.ndarray:
        get, sentinel = self._dict.get, self.sentinel
        return np.fromiter((get(t, sentinel) for t in itertools.chain.from_iterable(texts)), dtype=np.int32,
                           count=count)

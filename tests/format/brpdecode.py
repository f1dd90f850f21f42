#!/usr/bin/env python3
"""An educational decoder of .brp match logs, written from docs/format.md.

It depends on nothing but the Python standard library (zlib for CRC-32 and
inflate, hashlib for BLAKE2b: the match identity, a committed deal's
derivation and the signatures' prehash) and, to check signatures, PyNaCl
(Debian python3-nacl) for Ed25519; it shares no code with libreplay: its point
is to show that the specification is enough to read a log. It prints the
canonical text notation (docs/notation.md), the same bytes `brp dump FILE`
prints.

    brpdecode.py FILE               the whole log as text notation
    brpdecode.py --actions FILE     only the decisions, one a line:
                                    DEAL TURN SEAT DECISION
    brpdecode.py --signatures FILE  what the signature sections cover (§5.5),
                                    one line: STATUS KEYID FINGERPRINT COVERED
                                    SIZE
    brpdecode.py --match-id FILE    the match identity (§17), as brp verify
                                    --json gives it in "match_id"
    brpdecode.py --deal [OPTION VALUE]... SEED N PLAYERS [PLAYERSEED]...
                                    the commitment and the layout of deal N
                                    as `brp deal` prints them: under protocol 2
                                    (§18, the default) of the terms the options
                                    give as brp deal takes them (--rules P,
                                    --set NAME=VALUE, --seat I=NAME,
                                    --first-dealer S); --protocol 1: §15, the
                                    seed alone
    brpdecode.py --deal-log FILE N  the same, of the terms, players' seeds and
                                    seed of a log that reveals its seed

Exit status: 0 success, 2 a log this decoder refuses (one line on stderr:
the byte offset and why; what was decoded before is printed).

Section numbers (§) refer to docs/format.md.
"""
import hashlib
import math
import struct
import sys
import zlib

# ---- §2 conventions -------------------------------------------------------

MAGIC = b"\x89BRP\r\n\x1a\n"
MAX_FILE = 64 << 20
MAX_SECTION = 1 << 20
MAX_NAME = 256
MAX_META = 64
MAX_META_TEXT = 1024
MAX_DEALS = 10000
MAX_DECISIONS = 1 << 22  # §10 item 34: the decision counts of a match, added up
MAX_CLAIMS = 1 << 16  # §10 item 35: the claims of a match
MAX_HEADER_RAW = 1 << 18


class Refused(Exception):
    """The log breaks the specification; offset is the byte at fault."""

    def __init__(self, offset, why):
        super().__init__(why)
        self.offset = offset


class Cursor:
    """Reads varints, zigzags and strings from a payload (§2)."""

    def __init__(self, data):
        self.d = data
        self.pos = 0

    def varint(self):
        """Unsigned LEB128 in its shortest form, fitting 64 bits (§2)."""
        v, shift = 0, 0
        while True:
            if self.pos >= len(self.d) or shift > 63:
                raise ValueError("truncated or overlong varint")
            b = self.d[self.pos]
            self.pos += 1
            if shift == 63 and b & 0x7E:
                raise ValueError("a varint beyond 64 bits")
            v |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                if b == 0 and shift > 7:
                    raise ValueError("a varint not in its shortest form")
                return v

    def zigzag(self):
        v = self.varint()
        return (v >> 1) ^ -(v & 1)

    def byte(self):
        if self.pos >= len(self.d):
            raise ValueError("truncated")
        self.pos += 1
        return self.d[self.pos - 1]

    def string(self, maxlen):
        n = self.varint()
        if n > maxlen or n > len(self.d) - self.pos:
            raise ValueError("string too long")
        s = bytes(self.d[self.pos:self.pos + n])
        self.pos += n
        if b"\0" in s:
            raise ValueError("NUL in a string")
        return s

    def take(self, n):
        if n > len(self.d) - self.pos:
            raise ValueError("truncated")
        self.pos += n
        return bytes(self.d[self.pos - n:self.pos])

    def at_end(self):
        return self.pos == len(self.d)


# ---- cards (§2) ------------------------------------------------------------

JOKER = 52
NFACES = 53
RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]


def card_name(c):
    if c == JOKER:
        return "JK"
    return RANKS[c % 13] + "cdhs"[c // 13]


def copies(c):
    return 4 if c == JOKER else 2


# ---- rule parameters (§4) --------------------------------------------------
# (id, name, kind, min, max, enum names); kind b = boolean, i = integer, e = enumerated.
# The names and value names are those of the text notation; the header stores numbers.

END_NAMES = ["default", "low", "high"]
PARAMS = [
    (1, "allow_2_players", "b", 0, 1, None),
    (2, "allow_4_players", "b", 0, 1, None),
    (3, "target", "i", 0, 1000000, None),
    (4, "value_joker", "i", 0, 1000, None),
    (5, "value_two", "i", 0, 1000, None),
    (6, "value_ace", "i", 0, 1000, None),
    (7, "value_high", "i", 0, 1000, None),
    (8, "value_low", "i", 0, 1000, None),
    (9, "bonus_dirty", "i", 0, 100000, None),
    (10, "bonus_clean", "i", 0, 100000, None),
    (11, "bonus_clean13", "i", 0, 100000, None),
    (12, "bonus_clean14", "i", 0, 100000, None),
    (13, "bonus_dirty14", "i", 0, 100000, None),
    (14, "bonus_going_out", "i", 0, 100000, None),
    (15, "penalty_no_morto", "i", 0, 100000, None),
    (16, "max_wilds", "i", 1, 2, None),
    (17, "wrap_as_dirty", "e", 0, 2, ["false", "true", "narrow"]),
    (18, "wild_end_default", "e", 1, 2, END_NAMES),
    (19, "wild_mobility", "e", 0, 1, ["fixed", "floating"]),
    (20, "pile_rule", "e", 0, 2, ["use_any", "top_laid", "free"]),
    (21, "pile_freezes", "b", 0, 1, None),
    (22, "one_card_pile_no_return", "e", 0, 2, ["false", "true", "face"]),
    (23, "first_turn_reject", "b", 0, 1, None),
    (24, "vulnerable_at", "i", 0, 1000000, None),
    (25, "vulnerable_min_open", "i", 0, 100000, None),
    (26, "out_needs_morto", "b", 0, 1, None),
    (27, "out_if_mortos_stock", "b", 0, 1, None),
    (28, "out_canastra", "e", 0, 2, ["none", "any", "clean"]),
    (29, "out_last_card", "e", 0, 1, ["any", "discard"]),
    (30, "penalty_if_none_taken", "b", 0, 1, None),
    (31, "unplayed_morto_cost", "i", 0, 100000, None),
    (32, "penalty_no_morto_sides", "e", 0, 1, ["each", "not_out"]),
]
NPARAMS = 32
# A header written before id 32 existed carries 31 pairs; id 32 then takes the
# value 0 (each), whatever the profile (§4).
NPARAMS_OLD = 31
# Each profile's values by id 1..32 (docs/rules.md); the notation writes a
# [Rule] tag for every value that differs from the profile's.
PROFILES = {
    "kzv": [1, 1, 3000, 20, 10, 15, 10, 5, 100, 200, 200, 600, 300, 100, 100, 1, 2, 2,
            1, 0, 1, 0, 0, 0, 0, 1, 0, 1, 0, 1, 0, 0],
    "stbl": [1, 1, 0, 50, 10, 15, 10, 5, 100, 200, 500, 1000, 100, 100, 100, 1, 1, 2,
             0, 1, 0, 0, 0, 0, 0, 1, 1, 2, 0, 1, 0, 1],
    "aberto": [1, 1, 3000, 20, 10, 15, 10, 5, 100, 200, 500, 1000, 100, 100, 100, 1, 1, 2,
               0, 2, 0, 2, 1, 1500, 75, 1, 0, 2, 1, 0, 100, 0],
}

# §16.2: the frozen profile revision 1, what a version-3 header's parameters
# start from. It never changes, whatever the live profiles above become.
FROZEN_REV1 = {
    "kzv": [1, 1, 3000, 20, 10, 15, 10, 5, 100, 200, 200, 600, 300, 100, 100, 1, 0, 2,
            1, 0, 1, 0, 0, 0, 0, 1, 0, 1, 0, 1, 0, 0],
    "stbl": [1, 1, 0, 50, 10, 15, 10, 5, 100, 200, 500, 1000, 100, 100, 100, 1, 1, 2,
             0, 1, 0, 0, 0, 0, 0, 1, 1, 2, 0, 1, 0, 1],
    "aberto": [1, 1, 3000, 20, 10, 15, 10, 5, 100, 200, 500, 1000, 100, 100, 100, 1, 1, 2,
               0, 2, 0, 1, 1, 1500, 75, 1, 0, 2, 1, 0, 100, 0],
}

# ---- §15 the committed deal -------------------------------------------------


def commitment(seed):
    return hashlib.blake2b(b"brp-commit-v1" + seed, digest_size=32).digest()


def read_claim(c, version, claim_sum):
    """§5.3, §19.3: one claim (deal, score 0, score 1); claim_sum, the deal claims before it added up, grows."""
    tag = c.varint()
    d = tag >> 1 if version >= 5 else tag
    if version >= 5 and tag & 1:
        # a match total equal to the deal claims added up: the tag alone
        if d != 0 or not all(-2**31 <= x < 2**31 for x in claim_sum):
            raise ValueError("malformed claim section")
        return 0, claim_sum[0], claim_sum[1]
    s0, s1 = c.zigzag(), c.zigzag()
    if d > MAX_DEALS or not all(-2**31 <= x < 2**31 for x in (s0, s1)):
        raise ValueError("malformed claim section")
    if version >= 5:
        if d == 0 and [s0, s1] == claim_sum:
            raise ValueError("malformed claim section")  # its one encoding is the tag alone
        if d:
            claim_sum[0] += s0
            claim_sum[1] += s1
    return d, s0, s1


def commitment2(seed, h):
    """§18.2: the commitment of protocol 2, to the seed and the match's terms (h: a decoded header)."""
    terms = uvarint(len(h["profile"])) + h["profile"].encode() + uvarint(NPARAMS)
    for pid in range(1, NPARAMS + 1):
        terms += uvarint(pid) + zz(h["rules"][pid])
    terms += bytes([h["players"]]) + b"".join(uvarint(len(x)) + x for x in h["names"])
    terms += bytes([h["first_dealer"], len(h["player_seeds"])])
    return hashlib.blake2b(b"brp-commit-v2" + seed + terms, digest_size=32).digest()


def deal_key(seed, player_seeds, deal, h=None):
    """§15.2 (h None: protocol 1) or §18.3 (protocol 2): the key of deal number deal."""
    if h is None:
        return hashlib.blake2b(b"brp-deal-v1" + bytes([len(player_seeds)]) + b"".join(player_seeds) +
                               struct.pack("<I", deal), key=seed, digest_size=32).digest()
    return hashlib.blake2b(b"brp-deal-v2" + commitment2(seed, h) + bytes([len(player_seeds)]) +
                           b"".join(sorted(player_seeds)) + struct.pack("<I", deal), key=seed, digest_size=32).digest()


def derive(seed, player_seeds, n, deal, h=None):
    """§15.2-15.3: the layout (hands, mortos, stock) of deal number deal (h: the header, under protocol 2)."""
    key = deal_key(seed, player_seeds, deal, h)
    words = []

    def word():
        if not words:
            block = hashlib.blake2b(struct.pack("<Q", word.index), key=key, digest_size=64).digest()
            word.index += 1
            words.extend(reversed(struct.unpack("<16I", block)))
        return words.pop()
    word.index = 0
    deck = [k >> 1 for k in range(104)] + [52] * 4
    for i in range(107, 0, -1):
        m = i + 1
        limit = 2**32 - 2**32 % m
        x = word()
        while x >= limit:
            x = word()
        j = x % m
        deck[i], deck[j] = deck[j], deck[i]
    hands = [sorted(deck[11 * s:11 * s + 11]) for s in range(n)]
    at = 11 * n
    mortos = [deck[at:at + 11], deck[at + 11:at + 22]]
    return hands, mortos, deck[at + 22:]


# ---- §3 sections ----------------------------------------------------------


def seal_end(data):
    """§19.5: a sealed log (its first section Z): its sections up to E have no checksum, one CRC-32
    of every byte before it follows E. Returns the offset just past that checksum."""
    pos = 8
    while True:
        if pos == len(data):
            raise Refused(8, "byte 8: a sealed log that ends before its end section")
        try:
            t, _, _, pos = read_section(data, pos, None)
        except Refused as e:  # refused whole, at byte 8, before anything is delivered
            raise Refused(8, "byte 8: a sealed log whose sections do not read to its end (%s)" % e)
        if t == "E":
            break
    if len(data) - pos < 4:
        raise Refused(8, "byte 8: a sealed log cut short in its checksum (at byte %d)" % pos)
    if zlib.crc32(data[:pos]) != int.from_bytes(data[pos:pos + 4], "little"):
        raise Refused(8, "byte 8: the sealed log is damaged (checksum mismatch)")
    return pos + 4


def read_section(data, pos, sealed=0):
    """One section frame at pos: (type, payload, offset, next pos), or None at the end. sealed: the
    end of a sealed log's checked part (sections before it have no checksum), 0 if none; None reads
    one frame without its checksum."""
    n = len(data)
    if pos == n:
        return None
    start = pos
    t = data[pos]
    pos += 1
    if not (0x41 <= t <= 0x5A or 0x61 <= t <= 0x7A):
        raise Refused(start, "byte %d: 0x%02x is not a section type" % (start, t))
    length, shift, lstart = 0, 0, pos
    while True:
        if pos == n:
            raise Refused(start, "byte %d: the section is cut short in its length" % start)
        if shift > 28:
            raise Refused(start, "byte %d: the section has a malformed length" % start)
        b = data[pos]
        pos += 1
        length |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            if b == 0 and shift > 7:
                raise Refused(start, "byte %d: the section has an overlong length" % start)
            break
    if length > MAX_SECTION:
        raise Refused(start, "byte %d: a section of %d bytes is over the limit" % (start, length))
    if sealed is None or pos + length < sealed:
        if n - pos < length:
            raise Refused(start, "byte %d: the section is cut short" % start)
        end = pos + length
        return chr(t), data[pos:end], start, end + 4 if sealed and end + 4 == sealed else end
    if n - pos < length + 4:
        raise Refused(start, "byte %d: the section is cut short" % start)
    payload = data[pos:pos + length]
    crc = int.from_bytes(data[pos + length:pos + length + 4], "little")
    if zlib.crc32(data[start:pos + length]) != crc:
        raise Refused(start, "byte %d: checksum mismatch" % start)
    return chr(t), payload, start, pos + length + 4


# ---- §4 the header --------------------------------------------------------


def read_header(payload):
    if len(payload) < 1:
        raise ValueError("the header is empty")
    enc = payload[0]
    if enc == 1:
        c = Cursor(payload[1:])
        rawlen = c.varint()
        if rawlen == 0 or rawlen > MAX_HEADER_RAW:
            raise ValueError("the inflated size is out of bounds")
        z = zlib.decompressobj()
        try:
            raw = z.decompress(bytes(payload[1 + c.pos:]), rawlen + 1)
        except zlib.error:
            raise ValueError("the compressed header does not inflate")
        # exactly rawlen bytes, and the zlib stream ends exactly with the payload
        if not z.eof or len(raw) != rawlen or z.unused_data or z.unconsumed_tail:
            raise ValueError("the compressed header does not inflate exactly to its size and end")
    elif enc == 0:
        raw = payload[1:]
    else:
        raise ValueError("unknown header encoding %d" % enc)
    c = Cursor(raw)
    h = {}
    version = c.varint()
    if version not in (2, 3, 4, 5, 6, 7):
        raise ValueError("format version %d" % version)
    h["version"] = version
    if version >= 5:
        # §19.1: the profile is a byte, its index in this list
        code = c.byte()
        if code > 2:
            raise ValueError("unknown rule profile code %d" % code)
        profile = ("kzv", "stbl", "aberto")[code]
    else:
        profile = c.string(32).decode("latin-1").lower()
    if profile not in PROFILES:
        raise ValueError("unknown rule profile")
    h["profile"] = profile
    if version >= 3:
        # §16.2: the revision, then the parameters that differ from it, ids ascending
        if c.varint() != 1:
            raise ValueError("an unknown profile revision")
        values = [None] + list(FROZEN_REV1[profile])
        ndiff, last = c.varint(), 0
        if ndiff > NPARAMS:
            raise ValueError("%d rule parameters differ" % ndiff)
        for _ in range(ndiff):
            pid, v = c.varint(), c.zigzag()
            if pid > NPARAMS:
                raise ValueError("rule parameter %d is unknown" % pid)
            if pid <= last:
                raise ValueError("rule parameter %d out of place" % pid)
            last = pid
            _, name, _, lo, hi, _ = PARAMS[pid - 1]
            if v == values[pid]:
                raise ValueError("parameter %s stored with the revision's own value" % name)
            if v < lo or v > hi:
                raise ValueError("parameter %s out of range" % name)
            if v == 0 and ((pid == 1 and not values[2]) or (pid == 2 and not values[1])):
                raise ValueError("no table size allowed")
            values[pid] = v
        nparams = 0
    else:
        values = [None] + list(PROFILES[profile])
        nparams = c.varint()
        if nparams > NPARAMS:
            raise ValueError("%d rule parameters; this decoder knows %d" % (nparams, NPARAMS))
        if nparams < NPARAMS_OLD:
            raise ValueError("%d rule parameters: a header carries %d (or %d)" % (nparams, NPARAMS, NPARAMS_OLD))
        if nparams == NPARAMS_OLD:
            values[32] = 0
    for i in range(nparams):
        pid = c.varint()
        v = c.zigzag()
        if pid != i + 1:
            raise ValueError("rule parameter %d out of place" % pid)
        _, name, _, lo, hi, _ = PARAMS[pid - 1]
        if v < lo or v > hi:
            raise ValueError("parameter %s out of range" % name)
        if v == 0 and ((pid == 1 and not values[2]) or (pid == 2 and not values[1])):
            raise ValueError("no table size allowed")
        values[pid] = v
    h["rules"] = values
    n = c.byte()
    if n not in (2, 4):
        raise ValueError("%d players" % n)
    h["players"] = n
    h["names"] = [c.string(MAX_NAME) for _ in range(n)]
    fd = c.byte()
    if fd >= n:
        raise ValueError("the first dealer is not a seat")
    h["first_dealer"] = fd
    if version >= 5:
        # §19.1: 0 unknown, else zigzag(t - 2026-01-01) + 1, and 0 has no other encoding
        u = c.varint()
        d = ((u - 1) >> 1) ^ -((u - 1) & 1) if u else 0
        if u and d == -1767225600:
            raise ValueError("a start time of 0 coded otherwise than as 0")
        h["start"] = 1767225600 + d if u else 0
    else:
        h["start"] = c.zigzag()
    if not -62167219200 <= h["start"] <= 253402300799:
        raise ValueError("the start time is outside the years 0000 to 9999")
    nmeta = c.varint()
    if nmeta > MAX_META:
        raise ValueError("too many metadata entries")
    h["meta"] = [(c.string(MAX_META_TEXT), c.string(MAX_META_TEXT)) for _ in range(nmeta)]
    h["commitment"], h["seed"], h["player_seeds"], h["flags"] = None, None, [], 0
    if version >= 3:
        dealing = c.byte()  # §16.1: 0 dealt freely, 1 committed, 2 revealed
        if dealing in (1, 2):
            value = c.take(32)
            k = c.byte()
            if k > 4 or (version >= 4 and k > n):
                raise ValueError("%d player seeds" % k)
            h["player_seeds"] = [c.take(32) for _ in range(k)]
            if version >= 4 and any(a >= b for a, b in zip(h["player_seeds"], h["player_seeds"][1:])):
                raise ValueError("the players' seeds are not distinct and in ascending order")  # §18.1
            if dealing == 2:
                h["seed"] = value
                h["commitment"] = commitment(value) if version == 3 else commitment2(value, h)
            else:
                h["commitment"] = value
        elif dealing != 0:
            raise ValueError("unknown dealing %d" % dealing)
    if version >= 4:
        h["flags"] = c.varint()  # §18.1: bit 0, the log is signed; §19.1: bit 1, salvaged
        if h["flags"] & ~(3 if version >= 5 else 1):
            raise ValueError("unknown header flags %d" % h["flags"])
    if not c.at_end():
        raise ValueError("bytes after the metadata")
    return h


# ---- §6 the range decoder -------------------------------------------------

RATE_OF = (1, 2, 2, 3, 3, 3, 4)  # §6.1: the step of an adaptive bit after n bits


def new_state():
    """An adaptive bit (§6.1): [p, n], p the 11-bit probability of a 0, n the bits seen (up to 6)."""
    return [1024, 0]


def states(k):
    return [new_state() for _ in range(k)]


def members(s):
    """The members of a set of faces or indices (a bit mask), ascending."""
    out = []
    while s:
        low = s & -s
        out.append(low.bit_length() - 1)
        s ^= low
    return out


class RangeDecoder:
    def __init__(self, data):
        self.d = data
        self.pos = 0  # bytes read, the zeros read past the end included (§6.4)
        self.range = 0xFFFFFFFF
        self.code = 0
        self.low = 0  # the encoder's low, modulo 2^32 (§6.4)
        for _ in range(4):
            self.code = (self.code << 8) | self._byte()

    def _byte(self):
        b = self.d[self.pos] if self.pos < len(self.d) else 0
        self.pos += 1
        return b

    def _normalize(self):
        while self.range < (1 << 24):
            self.range = (self.range << 8) & 0xFFFFFFFF
            self.low = (self.low << 8) & 0xFFFFFFFF
            self.code = ((self.code << 8) | self._byte()) & 0xFFFFFFFF

    def bit(self, state):
        """An adaptive bit (§6.1); state is [p, n] and learns the bit."""
        p, n = state
        bound = (self.range >> 11) * p
        if self.code < bound:
            self.range = bound
            p += (2048 - p) >> RATE_OF[n]
            b = 0
        else:
            self.code -= bound
            self.low = (self.low + bound) & 0xFFFFFFFF
            self.range -= bound
            p -= p >> RATE_OF[n]
            b = 1
        state[0] = p
        state[1] = min(n + 1, 6)
        self._normalize()
        return b

    def fixed(self, p12):
        """A bit whose probability of a 0 is p12 / 4096 (§6.2)."""
        bound = (self.range >> 12) * p12
        if self.code < bound:
            self.range = bound
            b = 0
        else:
            self.code -= bound
            self.low = (self.low + bound) & 0xFFFFFFFF
            self.range -= bound
            b = 1
        self._normalize()
        return b

    def tree(self, probs, nbits, base=0):
        """A bit tree (§6.3): node i's state is probs[base + i], i = 1 .. 2^nbits - 1."""
        node = 1
        for _ in range(nbits):
            node = node * 2 + self.bit(probs[base + node])
        return node - (1 << nbits)

    def freq_at(self, tot):
        """The first half of a frequency-coded symbol (§6.3): (r, v), v in 0..tot-1."""
        r = self.range // tot
        v = self.code // r
        if v >= tot:
            raise ValueError("a coded value out of range")
        return r, v

    def freq_take(self, r, cum, f):
        """The second half: the symbol found at v is [cum, cum + f)."""
        self.code -= r * cum
        self.low = (self.low + r * cum) & 0xFFFFFFFF
        self.range = r * f
        self._normalize()

    def uniform(self, s):
        """A uniform choice among the members of the non-empty set s (§6.3)."""
        m = members(s)
        if len(m) == 1:
            return m[0]
        r, v = self.freq_at(len(m))
        self.freq_take(r, v, 1)
        return m[v]

    def split(self, state, s, g):
        """A split choice (§6.3): in g or not (a bit only when both parts have members), then uniform."""
        s1, s0 = s & g, s & ~g
        if s1 and s0:
            b = self.bit(state)
        else:
            b = 1 if s1 else 0
        return self.uniform(s1 if b else s0)

    def done(self):
        """After the last item of a section (§6.4): every stored byte read, no trailing 0,
        and the value the encoder ends with."""
        return (self.pos >= len(self.d) and (len(self.d) == 0 or self.d[-1] != 0)
                and self.code == end_offset(self.low, self.range))


def end_offset(low, rng):
    """How far above low a stream's value lies at its end (§6.4): the most trailing zero bits."""
    for k in range(32, 0, -1):
        off = (-low) & ((1 << k) - 1)
        if off <= rng - 1:
            return off
    return 0


# ---- §7 the layout --------------------------------------------------------


def stock_size(n):
    return 108 - 11 * n - 22


def binom(n, k):
    """C(n, k), 0 when k < 0 or k > n (§7.1)."""
    if n < 0 or k < 0 or k > n:
        return 0
    return math.comb(n, k)


def decode_hand(rc, cnt, left):
    """One hand of 11 as an exact multiset (§7.1): for each face in id order, how
    many copies x the hand holds, as a chain of fixed bits "x > j" with the
    hypergeometric probabilities of what is left of the deck."""
    hand = []
    k = 11
    for f in range(NFACES):
        if k == 0:
            break
        c = cnt[f]
        j = decode_face_count(rc, c, left, k)
        cnt[f] -= j
        left -= c
        k -= j
        hand += [f] * j
    if k:
        raise ValueError("a hand does not decode to 11 cards")
    return hand


def decode_face_count(rc, c, left, k):
    """How many of the c copies of a face among left cards a hand of k more gets (§7.1): a chain of
    fixed bits "x > j" with the hypergeometric probabilities."""
    top = min(c, k)
    w = [binom(c, j) * binom(left - c, k - j) for j in range(top + 1)]
    tail, j = sum(w), 0
    while j < top:
        if w[j] == 0:
            more = 1
        elif w[j] == tail:
            more = 0
        else:
            more = rc.fixed(min(max((w[j] << 12) // tail, 1), 4095))
        if not more:
            break
        tail -= w[j]
        j += 1
    return j


def decode_card(rc, cnt, left):
    """A card of left, cnt[f] copies of face f, with probability cnt[f] / left (§7.2); it leaves cnt."""
    r, v = rc.freq_at(left)
    f, cum = 0, 0
    while cum + cnt[f] <= v:
        cum += cnt[f]
        f += 1
    rc.freq_take(r, cum, cnt[f])
    cnt[f] -= 1
    return f


def decode_layout(rc, n):
    cnt = [copies(c) for c in range(NFACES)]
    hands = [decode_hand(rc, cnt, 108 - 11 * s) for s in range(n)]
    left = 108 - 11 * n

    def card():
        nonlocal left
        left -= 1
        return decode_card(rc, cnt, left + 1)

    mortos = [[card() for _ in range(11)] for _ in range(2)]
    stock = [card() for _ in range(stock_size(n))]
    return hands, mortos, stock


# ---- §8 the bookkeeping ---------------------------------------------------

DRAW, TAKE, REJECT, MELD, ADD, DISCARD, MORTO = range(1, 8)
WILD = 1 << 1 | 1 << 14 | 1 << 27 | 1 << 40 | 1 << JOKER  # the wild-capable faces


def suit(c):
    return c // 13


def rank(c):
    return c % 13 + 1


def rank_bits(c):
    """The bits of a card in a rank mask: bit r, and bit 14 too for an ace."""
    r = rank(c)
    return (1 << r) | ((1 << 14) if r == 1 else 0)


def is_wild(c):
    """A 2 or a joker: a card that can stand in for another."""
    return c == JOKER or rank(c) == 2


def faces_of(u, m):
    """The faces of suit u whose rank bit is in the rank mask m (the ace: bit 1 or 14)."""
    return ((m >> 1) & 0x1FFF | (m >> 14) & 1) << (13 * u)


def adjacent(m):
    """The ranks one away from those of m that are not in m."""
    return ((m << 1) | (m >> 1)) & ~m & 0xFFFF


def within2(m):
    """The ranks one or two away from some rank of m."""
    return ((m << 1) | (m >> 1) | (m << 2) | (m >> 2)) & 0xFFFF


class Track:
    def __init__(self, n, dealer, hands, mortos, stock):
        self.n = n
        self.seat = (dealer + 1) % n
        self.last = -1
        self.open = False
        self.drew = False
        self.last_kind = 0
        self.last_drawn = -1
        self.turn = 0
        self.hand = [[0] * NFACES for _ in range(4)]
        self.hand_n = [0] * 4
        self.fmask = [0] * 4  # [seat]: the set of faces the hand holds
        self.ranks = [[0] * 4 for _ in range(4)]  # [seat][suit]: rank mask of the hand
        for s in range(n):
            for c in hands[s]:
                self._add(s, c)
        self.src = list(stock)
        self.mortos = mortos
        self.morto_state = [0, 0]  # 0 on the table, 1 picked up, 2 became the stock
        self.pile = []
        self.nmelds = [0, 0]
        self.msuit = [[], []]   # [side][meld]: suit of its first natural card, 4 none
        self.mranks = [[], []]  # [side][meld]: rank mask of its natural cards
        self.extf = [0, 0]      # [side]: the faces one rank beyond its melds

    def _add(self, seat, c):
        self.hand[seat][c] += 1
        self.hand_n[seat] += 1
        self.fmask[seat] |= 1 << c
        if c != JOKER:
            self.ranks[seat][suit(c)] |= rank_bits(c)

    def _sub(self, seat, c):
        self.hand[seat][c] -= 1
        self.hand_n[seat] -= 1
        if not self.hand[seat][c]:
            self.fmask[seat] &= ~(1 << c)
            if c != JOKER:
                self.ranks[seat][suit(c)] &= ~rank_bits(c)

    def actor(self, kind):
        if kind == MORTO and self.last >= 0:
            return self.last
        return self.seat

    def _draw(self, seat):
        if not self.src:
            if self.morto_state[0] == 0:
                m = 0
            elif self.morto_state[1] == 0:
                m = 1
            else:
                raise ValueError("nothing is left to draw")
            self.src = list(self.mortos[m])
            self.morto_state[m] = 2
        c = self.src.pop(0)
        self._add(seat, c)
        self.last_drawn = c

    def _note(self, side, i, cards):
        for c in sorted(cards):
            if is_wild(c):
                continue
            if self.msuit[side][i] == 4:
                self.msuit[side][i] = suit(c)
            self.mranks[side][i] |= rank_bits(c)
        self.extf[side] = 0
        for u, m in zip(self.msuit[side], self.mranks[side]):
            if u < 4:
                self.extf[side] |= faces_of(u, adjacent(m))

    def mext(self, side, i):
        """§20.5: the faces one rank beyond meld i of a side (none while it has no natural card)."""
        u = self.msuit[side][i]
        return faces_of(u, adjacent(self.mranks[side][i])) if u < 4 else 0

    def apply(self, a):
        kind = a["kind"]
        seat = self.actor(kind)
        if kind != MORTO and not self.open:
            self.open = True
            self.drew = False
            self.turn += 1
        if kind == DRAW:
            self._draw(seat)
            self.drew = True
        elif kind == TAKE:
            for c in self.pile:
                self._add(seat, c)
            self.pile = []
            self.drew = True
        elif kind == REJECT:
            c = self.last_drawn
            if c < 0 or not self.hand[seat][c]:
                raise ValueError("no card was just drawn to reject")
            self._sub(seat, c)
            self.pile.append(c)
            self._draw(seat)
        elif kind == MELD:
            side = seat & 1
            if self.nmelds[side] >= 36:
                raise ValueError("too many melds")
            for c in a["cards"]:
                self._sub(seat, c)
            self.msuit[side].append(4)
            self.mranks[side].append(0)
            self.nmelds[side] += 1
            self._note(side, self.nmelds[side] - 1, a["cards"])
        elif kind == ADD:
            for c in a["cards"]:
                self._sub(seat, c)
            self._note(a["side"], a["meld"], a["cards"])
        elif kind == DISCARD:
            c = a["cards"][0]
            self._sub(seat, c)
            self.pile.append(c)
            self.open = False
            self.drew = False
            self.seat = (seat + 1) % self.n
        elif kind == MORTO:
            m = a["morto"]
            if self.morto_state[m]:
                raise ValueError("that morto is no longer on the table")
            for c in self.mortos[m]:
                self._add(seat, c)
            self.morto_state[m] = 1
        if kind not in (DRAW, REJECT):
            self.last_drawn = -1  # the card just drawn is known until the next decision
        self.last = seat
        self.last_kind = kind
        return seat


# ---- §9 the decisions -----------------------------------------------------


class Model:
    """The adaptive bits of a match, every one p = 1024, n = 0 at its first deal (§9.1);
    version 6 (§20) adds states beside those of versions 2 to 5, and codes with them when rich."""

    def __init__(self, rich):
        self.rich = rich
        self.kind = [states(6) for _ in range(56 + 16)]
        self.discard = [states(3) for _ in range(3)]
        self.count = [states(16) for _ in range(2)]
        self.first_wild = states(2)
        self.first_near = states(3)
        self.step1 = states(4)
        self.step0 = states(2)
        self.stepwild = states(2)
        self.end = [states(4) for _ in range(2)]
        self.own = new_state()
        self.same_suit = states(2)
        self.morto = new_state()


# ---- §9.2 features of the bookkeeping


def connected(t, s):
    """The natural faces of the hand with a card of their suit one or two ranks away."""
    f = 0
    for u in range(4):
        f |= faces_of(u, within2(t.ranks[s][u]))
    return f & t.fmask[s] & ~WILD


def near_run(t, s):
    """Some suit has three cards within four consecutive ranks, or two when the hand holds a wild."""
    wilds = bool(t.fmask[s] & WILD)
    for u in range(4):
        for lo in range(1, 12):
            k = bin((t.ranks[s][u] >> lo) & 0xF).count("1")
            if k >= 3 or (k >= 2 and wilds):
                return True
    return False


def top_fits(t, s):
    """Could the top card of the pile be laid with the hand of s?"""
    top = t.pile[-1]
    if is_wild(top):
        return t.nmelds[s & 1] > 0
    if t.extf[s & 1] >> top & 1:
        return True
    own = rank_bits(top)
    m = t.ranks[s][suit(top)] & ~own
    wilds = bool(t.fmask[s] & WILD)
    for lo in range(1, 12):
        win = 0xF << lo
        if win & own:
            k = bin(m & win).count("1")
            if k >= 2 or (k >= 1 and wilds):
                return True
    return False


VALUE = [0, 3, 0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2]  # by rank: A 3, 3..7 1, 8..K 2


def keep(t, s, x):
    """How much seat s would want to keep face x (§9.2)."""
    if is_wild(x):
        return 1000
    m = t.ranks[s][suit(x)]
    r = rank(x)
    near1 = (m >> (r - 1) & 1) + (m >> (r + 1) & 1)
    near2 = (m >> (r - 2) & 1 if r > 2 else 0) + (m >> (r + 2) & 1)
    if r == 1:
        near1 += m >> 13 & 1
        near2 += m >> 12 & 1
    score = 40 * near1 + 15 * near2 - VALUE[r]
    if t.extf[s & 1] >> x & 1:
        score += 200
    if t.extf[1 - (s & 1)] >> x & 1:
        score += 60
    return score


# ---- §9.3 the kind

ORDER = [
    [MORTO, DRAW, DISCARD, TAKE, REJECT, MELD, ADD],      # context 0
    [DRAW, TAKE, DISCARD, REJECT, MELD, ADD, MORTO],      # contexts 1 to 15
    [DISCARD, ADD, MELD, DRAW, TAKE, REJECT, MORTO],      # contexts 16 to 55
]


def drawn_fits(t, s):
    """§20.1: does the card s just drew fit? 2 beyond a meld of its side (or a wild with melds),
    1 three in a row of its suit in the hand (or a wild, no melds), 0 not or none."""
    d = t.last_drawn
    if t.last != s or d < 0 or not t.fmask[s] >> d & 1:
        return 0
    if is_wild(d):
        return 2 if t.nmelds[s & 1] > 0 else 1
    if t.extf[s & 1] >> d & 1:
        return 2
    m = t.ranks[s][suit(d)]
    r = rank(d)
    for lo in (r - 2, r - 1, r):
        if lo >= 1 and (m >> lo) & 7 == 7:
            return 1
    return int(r == 1 and (m >> 12) & 7 == 7)


def run_starts(t, s):
    """§20.1: the natural faces of the hand with the next two ranks of their suit (or one of
    them, and a wild in the hand), and not the rank below."""
    wilds = bool(t.fmask[s] & WILD)
    f = 0
    for u in range(4):
        m = t.ranks[s][u]
        up1, up2 = m >> 1, m >> 2
        f |= faces_of(u, m & ~(m << 1) & ((up1 | up2) if wilds else (up1 & up2)) & 0xFFFF)
    return f & ~WILD


def kind_ctx(t, rich):
    s = t.seat
    if t.last >= 0 and t.hand_n[t.last] == 0:
        return 0
    if not t.open:
        return 2 + int(top_fits(t, s)) if t.pile else 1
    if not t.drew:
        return 8
    sub = int(near_run(t, s)) + 2 * int(bool(t.fmask[s] & t.extf[s & 1]))
    fit = drawn_fits(t, s) if rich else 0
    if t.last_kind == TAKE:
        sub += 8
    elif t.last_kind in (MELD, ADD):
        sub += 16
    elif t.last_kind == MORTO:
        sub += 24
    elif fit:
        return 56 + 8 * (fit - 1) + 4 * int(t.turn == 1) + sub  # §20.2
    elif t.turn == 1:
        sub += 32
    return 16 + sub


def decode_kind(rc, m, t):
    ctx = kind_ctx(t, m.rich)
    order = ORDER[0 if ctx == 0 else 1 if ctx < 16 else 2]
    p = m.kind[ctx]
    for k in range(3):
        if rc.bit(p[k]) == 0:
            return order[k]
    return order[3 + rc.tree(p, 2, base=2)]


# ---- §9.4 to §9.8


def decode_discard(rc, m, t, a):
    f = t.fmask[a]
    if not f:
        raise ValueError("a discard from an empty hand")
    order = sorted(members(f), key=lambda x: (keep(t, a, x), x))
    d = t.last_drawn if t.last == a and t.last_drawn >= 0 and f >> t.last_drawn & 1 else -1
    ctx = 0 if d < 0 else (1 if order[0] == d else 2)
    n = len(order)
    p = 0
    while p < 3 and p < n - 1 and rc.bit(m.discard[ctx][p]):
        p += 1
    if p == 3:
        p += rc.uniform((1 << (n - 3)) - 1)
    return order[p]


def decode_cards(rc, m, t, a, lay):
    count = rc.tree(m.count[lay], 4) + 1
    if count > 14:
        raise ValueError("more than 14 cards")
    f = t.fmask[a]
    if not f:
        raise ValueError("an empty hand lays cards")
    cards = []
    prev, same = -1, 0
    for _ in range(count):
        if prev < 0:
            wild, nat = f & WILD, f & ~WILD
            w = rc.bit(m.first_wild[lay]) if wild and nat else int(bool(wild))
            if w:
                x = rc.uniform(wild)
            elif m.rich and not lay:
                # §20.3: a face that starts a run, or not; then near others or not
                start = run_starts(t, a)
                rest = nat & ~start
                st = rc.bit(m.first_near[2]) if start and rest else int(bool(start))
                x = rc.uniform(start) if st else rc.split(m.first_near[0], rest, connected(t, a))
            else:
                g = t.extf[a & 1] if lay else connected(t, a)
                x = rc.split(m.first_near[lay], nat, g)
        else:
            up = f & ~((2 << prev) - 1)
            nxt = (up & -up).bit_length() - 1 if up else -1
            further = up & (up - 1)
            again = t.hand[a][prev] > same
            adj = int(m.rich and nxt == prev + 1 and prev % 13 != 12)  # §20.4: the next rank up
            if up and rc.bit(m.step1[lay + 2 * adj]) == 0:
                x = nxt
            elif again and (not further or rc.bit(m.step0[lay]) == 0):
                x = prev
            else:
                if not further:
                    raise ValueError("no card further up")
                wild, nat = further & WILD, further & ~WILD
                w = rc.bit(m.stepwild[lay]) if wild and nat else int(bool(wild))
                x = rc.uniform(wild if w else nat)
        same = same + 1 if x == prev else 1
        if same > t.hand[a][x]:
            raise ValueError("more copies than the hand holds")
        cards.append(x)
        prev = x
    return cards


def decode_action(rc, m, t):
    kind = decode_kind(rc, m, t)
    a = {"kind": kind}
    seat = t.actor(kind)
    if kind == DISCARD:
        a["cards"] = [decode_discard(rc, m, t, seat)]
    elif kind in (MELD, ADD):
        lay = int(kind == ADD)
        a["cards"] = decode_cards(rc, m, t, seat, lay)
        if lay:
            own = rc.bit(m.own)
            side = (seat & 1) if own else 1 - (seat & 1)
            n = t.nmelds[side]
            if n == 0:
                raise ValueError("an addition to a side without melds")
            low = next((c for c in a["cards"] if not is_wild(c)), -1)
            u = suit(low) if low >= 0 else -1
            same = beyond = 0
            for i in range(n):
                if u < 0 or t.msuit[side][i] == u:
                    same |= 1 << i
                if m.rich and low >= 0 and t.mext(side, i) >> low & 1:
                    beyond |= 1 << i
            a["side"] = side
            melds = (1 << n) - 1
            a["meld"] = None
            if beyond:
                # §20.5: a meld the first natural card is one rank beyond, or not
                rest = melds & ~beyond
                if not rest or rc.bit(m.same_suit[1]):
                    a["meld"] = rc.uniform(beyond)
                else:
                    melds, same = rest, same & rest
            if a["meld"] is None:
                a["meld"] = rc.split(m.same_suit[0], melds, same)
        a["end"] = rc.tree(m.end[lay], 2)
        if a["end"] > 2:
            raise ValueError("wild end 3")
    elif kind == MORTO:
        a["morto"] = rc.bit(m.morto)
    return a


def format_action(a):
    kind = a["kind"]
    if kind == DRAW:
        return "draw"
    if kind == TAKE:
        return "take"
    if kind == REJECT:
        return "reject"
    if kind == MORTO:
        return "morto %d" % a["morto"]
    if kind == DISCARD:
        return "discard " + card_name(a["cards"][0])
    head = "meld" if kind == MELD else "add %d.%d" % (a["side"], a["meld"])
    return " ".join([head] + [card_name(c) for c in a["cards"]]) + ["", " <", " >"][a["end"]]


# ---- §5 the sections in order: events -------------------------------------


# ---- §21 version 7, a draft ------------------------------------------------

OUT_CTX, DRY_CTX, MORTO_CTX, FIXED_CTX = range(4)  # §21.3: where a deal may end


def decode_count(rc, n):
    """A count 0 .. n - 1, each as likely (§21.3)."""
    r, v = rc.freq_at(n)
    rc.freq_take(r, v, 1)
    return v


def decode_sets(rc, n):
    """§21.2: who holds each face's copies, the hands, the mortos and the stock, face by face."""
    take = [11] * (n + 2) + [stock_size(n)]
    nh = n + 3
    held = [[] for _ in range(nh)]
    rest = 108
    for f in range(NFACES):
        if f != JOKER:
            tot = rest * (rest - 1) // 2
            r, v = rc.freq_at(tot)
            cum, after = 0, rest
            for h in range(nh):
                t = take[h]
                after -= t
                block = t * (t - 1) // 2 + t * after
                if v < cum + block:
                    break
                cum += block
            else:
                raise ValueError("the card layout does not decode")
            g, fr = h, take[h] * (take[h] - 1) // 2
            if v >= cum + fr:
                cum += fr
                for g in range(h + 1, nh):
                    fr = take[h] * take[g]
                    if v < cum + fr:
                        break
                    cum += fr
            if fr == 0:
                raise ValueError("the card layout does not decode")
            rc.freq_take(r, cum, fr)
            for x in (h, g):
                take[x] -= 1
                held[x].append(f)
            rest -= 2
        else:
            left, rest2 = 4, rest
            for h in range(nh):
                k = decode_face_count(rc, left, rest2, take[h]) if h < nh - 1 else left
                if k > take[h]:
                    raise ValueError("the card layout does not decode")
                rest2 -= take[h]
                take[h] -= k
                left -= k
                held[h] += [f] * k
            rest -= 4
    return held[:n], held[n:n + 2], held[n + 2]


def decode_pile(rc, pile, k):
    """§21.3: the first k cards of a pile in their order, against what is left of it; the rest ascending."""
    cnt = [0] * NFACES
    for c in pile:
        cnt[c] += 1
    out = [decode_card(rc, cnt, len(pile) - i) for i in range(k)]
    for f in range(NFACES):
        out += [f] * cnt[f]
    pile[:] = out


def decode_pick(rc, pile):
    """§21.2, the growing form: the card a draw takes from what is left of its pile, put first."""
    cnt = [0] * NFACES
    for c in pile:
        cnt[c] += 1
    f = decode_card(rc, cnt, len(pile))
    i = pile.index(f)
    pile[0], pile[i] = pile[i], pile[0]
    return f


def decode_number(rc):
    """§21.3: Elias gamma of v + 1 in half bits."""
    k = 0
    while rc.fixed(2048):
        k += 1
        if k == 64:
            raise ValueError("a number of 64 digits")
    x = 1
    for _ in range(k):
        x = x << 1 | rc.fixed(2048)
    return x - 1


def card_value(rules, c):
    if c == JOKER:
        return rules[4]
    r = rank(c)
    return rules[6] if r == 1 else rules[5] if r == 2 else rules[7] if r >= 8 else rules[8]


def natural_run(cnt):
    """§21.4: the cards can lie as a run of one suit with no card standing for another."""
    if cnt[JOKER]:
        return False
    u, r = -1, [0] * 15
    for c in range(JOKER):
        if cnt[c]:
            if u >= 0 and suit(c) != u:
                return False
            u = suit(c)
            r[rank(c)] += cnt[c]
    if r[1] > 2:
        return False
    if r[1] == 2:
        return all(r[k] == 1 for k in range(2, 14))
    present = [k for k in range(2, 14) if r[k]]
    if any(r[k] > 1 for k in range(2, 14)):
        return False
    if present and present != list(range(present[0], present[-1] + 1)):
        return False
    return not r[1] or not present or present[0] == 2 or present[-1] == 13


class Notes:
    """§21.4: what the score of a deal needs, kept as the decisions are read."""

    def __init__(self, rules):
        self.rules = rules
        self.val = [card_value(rules, c) for c in range(NFACES)]
        self.deal()

    def deal(self):
        self.melds = [[], []]  # [side]: each meld's card counts
        self.morto_side = [-1, -1]
        self.unplayed = [0] * 4
        self.last = -1

    def note(self, t, a):
        kind = a["kind"]
        seat = t.actor(kind)
        if kind != MORTO and not t.open:
            self.unplayed[seat] = 0
        if kind == MELD and len(self.melds[seat & 1]) < 36:
            self.melds[seat & 1].append([0] * NFACES)
            for c in a["cards"]:
                self.melds[seat & 1][-1][c] += 1
        elif kind == ADD and a["side"] < 2 and a["meld"] < len(self.melds[a["side"]]):
            for c in a["cards"]:
                self.melds[a["side"]][a["meld"]][c] += 1
        elif kind == MORTO:
            self.morto_side[a["morto"]] = seat & 1
            if t.last_kind == DISCARD:
                self.unplayed[seat] = 1
        self.last = seat

    def end_ctx(self, t):
        s = self.last
        if s < 0:
            return FIXED_CTX
        if t.hand_n[s] == 0:
            left = (t.morto_state[0] == 0) + (t.morto_state[1] == 0)
            has = self.morto_side[0] == s & 1 or self.morto_side[1] == s & 1
            return OUT_CTX if has or not left else MORTO_CTX
        if not t.open and not t.src and t.morto_state[0] and t.morto_state[1]:
            return DRY_CTX
        return FIXED_CTX

    def score(self, t):
        ru, out = self.rules, -1
        for s in range(t.n):
            if t.hand_n[s] == 0 and (out < 0 or s == self.last):
                out = s
        anyt = self.morto_side[0] >= 0 or self.morto_side[1] >= 0
        sc = []
        for side in range(2):
            x = 0
            for m in self.melds[side]:
                n = sum(m)
                x += sum(k * v for k, v in zip(m, self.val))
                if n >= 14:
                    x += ru[12] if natural_run(m) else ru[13]
                elif n >= 7:
                    x += (ru[11] if n == 13 else ru[10]) if natural_run(m) else ru[9]
            if out >= 0 and out & 1 == side:
                x += ru[14]
            for s in range(side, t.n, 2):
                if self.unplayed[s] and ru[31] > 0 and out >= 0 and out & 1 != side:
                    x -= ru[31]
                    continue
                x -= sum(k * v for k, v in zip(t.hand[s], self.val))
            if side not in self.morto_side and (ru[30] or anyt) and \
                    not (ru[32] == 1 and out >= 0 and out & 1 == side):
                x -= ru[15]
            sc.append(x)
        return sc


def track_drawn(t):
    """How far a deal drew the stock and each morto (§21.3), from the bookkeeping at its end."""
    cur = 1 if t.morto_state[1] == 2 else 0 if t.morto_state[0] == 2 else -1
    stock = stock_size(t.n)
    drawn = [stock - len(t.src) if cur < 0 else stock, 0, 0]
    for m in range(2):
        if t.morto_state[m] == 2:
            drawn[1 + m] = 11 - len(t.src) if m == cur else 11
    return drawn


def final_layout(st):
    """§21.2: the deal as a decoder delivers it: each drawn card in its place, the rest of each pile ascending."""
    hands, mortos, stock = st["sets"]

    def pile(whole, drawn):
        rest = sorted(whole)
        for c in drawn:
            rest.remove(c)
        return list(drawn) + rest
    return ([sorted(h) for h in hands], [pile(mortos[m], st["drawn"][m]) for m in range(2)],
            pile(stock, st["drawn"]["stock"]))


def m_stream(payload, info, take):
    """§21.3: the match's stream, event by event."""
    rc, n, ru = RangeDecoder(payload), info["players"], info["rules"]
    st = {name: new_state() for name in ("claim_after", "more_deals", "regular", "inner", "this_deal",
                                         "is_match")}
    became, end, equal = states(2), states(3), states(3)
    deal, dealer, model, track, sums, pred = 0, 0, None, None, [0, 0], None
    notes = Notes(ru)

    def claim(cur, base_pred):
        take(0, 1)
        if rc.bit(st["this_deal"]):
            d = cur
        elif rc.bit(st["is_match"]):
            d = 0
        else:
            d = decode_number(rc)
            if d > MAX_DEALS or d == 0 or d == cur:
                raise ValueError("a claim does not decode")
        if base_pred is not None and d == cur:
            base, k = base_pred, 0
        elif d == 0:
            base, k = list(sums), 1
        else:
            base, k = [0, 0], 2
        if rc.bit(equal[k]):
            v = list(base)
        else:
            v = []
            for s in range(2):
                z = decode_number(rc)
                v.append(base[s] + ((z >> 1) ^ -(z & 1)))
            if v == base:
                raise ValueError("a claim does not decode")
        if not all(-2**31 <= x < 2**31 for x in v):
            raise ValueError("a claim does not decode")
        if d > 0:
            sums[0] += v[0]
            sums[1] += v[1]
        return d, v[0], v[1]

    while True:
        while rc.bit(st["claim_after"]):
            yield "claim", claim(deal, pred if deal > 0 else None)
        if not rc.bit(st["more_deals"]):
            break
        if deal >= MAX_DEALS:
            raise ValueError("more than %d deals" % MAX_DEALS)
        hands, mortos, stock = decode_sets(rc, n)
        k = decode_count(rc, stock_size(n) + 1)
        decode_pile(rc, stock, k)
        drawn = [k, 0, 0]
        for m in range(2):
            if k == stock_size(n) and rc.bit(became[m]):
                drawn[1 + m] = 1 + decode_count(rc, 11)
                decode_pile(rc, mortos[m], drawn[1 + m])
        regular, inner = rc.bit(st["regular"]), rc.bit(st["inner"])
        deal += 1
        dealer = info["first_dealer"] if deal == 1 else (dealer + 1) % n
        track = Track(n, dealer, hands, mortos, stock)
        if deal == 1:
            model = Model(True)
        notes.deal()
        yield "deal", (deal, ([sorted(h) for h in hands], [list(x) for x in mortos], list(stock)))
        while True:
            ctx = notes.end_ctx(track)
            if regular:
                over = ctx in (OUT_CTX, DRY_CTX)
            else:
                over = rc.fixed(4095) if ctx == FIXED_CTX else rc.bit(end[ctx])
            if over:
                if track_drawn(track) != drawn:
                    raise ValueError("deal %d drew other cards than its layout says" % deal)
                pred = notes.score(track)
                break
            while inner and rc.fixed(4095):
                yield "claim", claim(deal, None)
            take(1)
            a = decode_action(rc, model, track)
            notes.note(track, a)
            seat = track.apply(a)
            yield "action", (deal, track.turn, seat, a)
    if not rc.done():
        raise ValueError("the section does not decode to its length")



def _events(data, info, lazy):
    """events(), but a version-7 deal of D sections is yielded as its sets, and lazy follows what its
    draws reveal (§21.2): lazy["sets"], lazy["drawn"] (the stock's, morto 0's and 1's drawn cards)."""
    if len(data) > MAX_FILE:
        raise Refused(0, "larger than 64 MiB")
    if len(data) < 8 or data[:8] != MAGIC:
        raise Refused(0, "byte 0: not a .brp match log (bad magic)")
    sealed = seal_end(data) if len(data) > 8 and data[8] == ord("Z") else 0
    sec = read_section(data, 8, sealed)
    if sec is None:
        raise Refused(8, "byte 8: the log ends before its header")
    t, payload, off, pos = sec
    if t not in "HZ":
        raise Refused(off, "byte %d: the first section is not the header" % off)
    try:
        info.update(read_header(payload))
    except ValueError as e:
        raise Refused(off, "byte %d: header: %s" % (off, e))
    if t == "Z" and info["version"] < 5:
        raise Refused(off, "byte %d: a sealed header of version %d" % (off, info["version"]))
    if info["version"] == 7 and info["commitment"] is not None:
        raise Refused(off, "byte %d: header: a version-7 header with a commitment" % off)
    yield "header", info
    v7 = info["version"] == 7
    m_seen = dac_seen = False
    n = info["players"]
    deal, dealer, ended = 0, 0, False
    decisions = claims = 0  # §10 items 34 and 35: refused at the section that passes the limit
    claim_sum = [0, 0]  # §19.3: the deal claims read, added up
    track = model = None
    seed = info["seed"]  # §16.1: the compact form of a revealed log reveals it in the header
    if seed is not None:
        yield "seed", seed

    def take(count, n_claims=0):
        nonlocal decisions, claims
        if decisions + count > MAX_DECISIONS:
            raise ValueError("the match passes %d decisions" % MAX_DECISIONS)
        if claims + n_claims > MAX_CLAIMS:
            raise ValueError("the match passes %d claims" % MAX_CLAIMS)
        decisions += count
        claims += n_claims

    def start_deal(layout):
        nonlocal deal, dealer, track, model
        deal += 1
        dealer = info["first_dealer"] if deal == 1 else (dealer + 1) % n
        track = Track(n, dealer, *layout)
        if deal == 1:
            model = Model(info["version"] >= 6)  # one model for the whole match (§5.1)

    while True:
        sec = read_section(data, pos, sealed)
        if sec is None:
            return
        t, payload, off, pos = sec
        if t == SIG_TYPE:
            # a signature may follow E (§3); its form is checked here, what it signs by signatures()
            if payload[:2] == SIG_ALG and len(payload) != SIG_PAYLOAD:
                raise Refused(off, "byte %d: malformed signature section" % off)
            continue
        if ended:
            raise Refused(off, "byte %d: a section after the end section" % off)
        c = Cursor(payload)
        try:
            if v7 and t in "DAC":
                if m_seen:
                    raise ValueError("a deal section after the match section")
                dac_seen = True
            if v7 and t == "M":
                # §21.1: the compact form's one stream
                if m_seen or dac_seen:
                    raise ValueError("a second match section, or one beside deal sections")
                m_seen = True
                for ev in m_stream(payload, info, take):
                    if ev[0] == "deal":
                        deal = ev[1][0]
                    yield ev
                continue
            if t == "D" and seed is not None:
                # §16.3: after the reveal a D holds k deals: their counts, then one stream of decisions
                number = c.varint()
                if number != deal + 1:
                    raise ValueError("deal section numbered %d after deal %d" % (number, deal))
                k = c.varint()
                if k == 0 or k > MAX_DEALS - deal:
                    raise ValueError("a malformed number of deals")
                counts = [c.varint() for _ in range(k)]
                if any(x > MAX_SECTION for x in counts):
                    raise ValueError("a malformed decision count")
                take(sum(counts))
                rc = RangeDecoder(payload[c.pos:])
                for j, count in enumerate(counts):
                    layout = derive(seed, info["player_seeds"], n, deal + 1, info if info["version"] >= 4 else None)
                    start_deal(layout)
                    last = j == k - 1
                    if last and count == 0 and not rc.done():
                        raise ValueError("the section does not decode to its length")
                    yield "deal", (deal, layout)
                    for i in range(count):
                        a = decode_action(rc, model, track)
                        seat = track.apply(a)
                        if last and i == count - 1 and not rc.done():
                            raise ValueError("the section does not decode to its length")
                        yield "action", (deal, track.turn, seat, a)
            elif t == "R" and info["version"] >= 3:
                # §16.1: the seed revealed, once, in a committed log
                if info["commitment"] is None:
                    raise ValueError("a reveal section in a log without a commitment")
                if seed is not None:
                    raise ValueError("a second reveal section")
                if len(payload) != 32:
                    raise ValueError("a reveal section that is not a 32-byte seed")
                seed = bytes(payload)
                yield "seed", seed
            elif t == "C" and info["version"] >= 3:
                # §16.3: one or more claims
                if not payload:
                    raise ValueError("malformed claim section")
                whole, probe, psum = 0, Cursor(payload), list(claim_sum)
                try:  # the claims counted first; a malformed one is refused where it is read
                    while not probe.at_end():
                        read_claim(probe, info["version"], psum)
                        whole += 1
                except ValueError:
                    pass
                take(0, whole)
                while not c.at_end():
                    d, s0, s1 = read_claim(c, info["version"], claim_sum)
                    yield "claim", (d, s0, s1)
            elif t in "DA":
                # §19.4: version 5 stores no number where only one is accepted
                number = (deal + 1 if t == "D" else deal) if info["version"] >= 5 else c.varint()
                if t == "D" and (number != deal + 1 or number > MAX_DEALS):
                    raise ValueError("deal section numbered %d after deal %d" % (number, deal))
                if t == "A" and (deal == 0 or number != deal):
                    raise ValueError("a continuation of deal %d while deal %d is read" % (number, deal))
                count = c.varint()
                if count > MAX_SECTION:
                    raise ValueError("a malformed decision count")
                take(count)
                rc = RangeDecoder(payload[c.pos:])
                # Every stored byte read, and no trailing 0 (§6.4): checked as
                # soon as the last item is decoded, before that item is used.
                if t == "D":
                    layout = decode_sets(rc, n) if v7 else decode_layout(rc, n)
                    if v7:  # §21.2: the last deal's layout as play revealed it; this one's from here on
                        if lazy.get("sets") is not None:
                            lazy["finished"] = final_layout(lazy)
                        lazy.update(sets=layout, drawn={"stock": [], 0: [], 1: []}, src=-1)
                    deal = number
                    dealer = info["first_dealer"] if deal == 1 else (dealer + 1) % n
                    track = Track(n, dealer, *layout)
                    if deal == 1:
                        model = Model(info["version"] >= 6)  # one model for the whole match (§5.1)
                    if count == 0 and not rc.done():
                        raise ValueError("the section does not decode to its length")
                    yield "deal", (deal, layout)
                elif count == 0 and not rc.done():
                    raise ValueError("the section does not decode to its length")
                for i in range(count):
                    a = decode_action(rc, model, track)
                    picked = pick(rc, track, lazy) if v7 and a["kind"] in (DRAW, REJECT) else None
                    seat = track.apply(a)
                    if picked:  # drawn once the bookkeeping took it
                        lazy["drawn"][picked[0]].append(picked[1])
                        if picked[0] != "stock":
                            lazy["src"] = picked[0]
                    if i == count - 1 and not rc.done():
                        raise ValueError("the section does not decode to its length")
                    yield "action", (deal, track.turn, seat, a)
            elif t == "C":
                d, s0, s1 = c.varint(), c.zigzag(), c.zigzag()
                if not c.at_end() or d > MAX_DEALS or not all(-2**31 <= s < 2**31 for s in (s0, s1)):
                    raise ValueError("malformed claim section")
                take(0, 1)
                yield "claim", (d, s0, s1)
            elif t == "E":
                # §19.4: version 5's E has no flags; the header's bit 1 says the log was salvaged
                flags = (info["flags"] >> 1) & 1 if info["version"] >= 5 else c.varint()
                if (not c.at_end() and info["version"] < 5) or flags > 1:
                    raise ValueError("malformed end section")
                ended = True
                if v7 and not c.at_end():
                    raise ValueError("an end section that holds claims")
                if not c.at_end():
                    # §19.4: the claims after the last decision, as a C holds them, then the end
                    whole, probe, psum = 0, Cursor(payload[c.pos:]), list(claim_sum)
                    try:
                        while not probe.at_end():
                            read_claim(probe, info["version"], psum)
                            whole += 1
                    except ValueError:
                        pass
                    take(0, whole)
                    while not c.at_end():
                        yield "claim", read_claim(c, info["version"], claim_sum)
                yield "end", flags
            elif t == "H":
                raise ValueError("a second header section")
            elif t.isupper():
                raise ValueError("required section '%s' is unknown to this decoder" % t)
            # an unknown optional section: skipped
        except ValueError as e:
            raise Refused(off, "byte %d: section '%s': %s" % (off, t, e))


def pick(rc, track, lazy):
    """§21.2, the growing form: a draw's card, read from the pile the bookkeeping draws from: (the pile's
    key in lazy["drawn"], the card), or None when nothing is left (the bookkeeping refuses the draw)."""
    if track.src:
        key, pile = ("stock" if lazy["src"] < 0 else lazy["src"]), track.src
    elif track.morto_state[0] == 0 or track.morto_state[1] == 0:
        key = 0 if track.morto_state[0] == 0 else 1
        pile = track.mortos[key]
    else:
        return None
    return key, decode_pick(rc, pile)


def events(data, info):
    """Yields (kind, fields) for a whole log; raises Refused at the first fault. A version-7 deal of D
    sections is read to its end before its event, which then holds what play revealed (§21.2)."""
    lazy, held, pending = {}, [], None
    try:
        for kind, ev in _events(data, info, lazy):
            if pending is not None and kind in ("deal", "end"):
                yield "deal", (pending, lazy["finished"] if kind == "deal" else final_layout(lazy))
                yield from held
                held, pending = [], None
            if kind == "deal" and lazy.get("sets") is ev[1]:
                pending = ev[0]
                continue
            if pending is not None:
                held.append((kind, ev))
                continue
            yield kind, ev
    except Refused:
        if pending is not None:
            yield "deal", (pending, final_layout(lazy))
            yield from held
        raise
    if pending is not None:
        yield "deal", (pending, final_layout(lazy))
        yield from held


# ---- §5.5 signatures ------------------------------------------------------

SIG_TYPE = "s"
SIG_ALG = b"ED"
SIG_PAYLOAD = 106


def key_id(raw):
    """A key id as minisign prints it: the 8 bytes as a little-endian number, in hex."""
    return "%X" % int.from_bytes(raw, "little")  # no leading zeros, as minisign prints it


def fingerprint(pk):
    """A public key's fingerprint (§5.5): the first 16 bytes of its BLAKE2b-256, in lower-case hex."""
    return hashlib.blake2b(pk, digest_size=32).digest()[:16].hex()


def signatures(data):
    """(status, key id, fingerprint, covered, size) of the signature sections, as a verifier reports
    them (§5.5)."""
    from nacl.exceptions import BadSignatureError
    from nacl.signing import VerifyKey

    status, key, fp, covered, pos = "unsigned", None, None, 0, 8
    if data[:8] != MAGIC:
        return status, key, fp, covered, len(data)
    try:
        sealed = seal_end(data) if len(data) > 8 and data[8] == ord("Z") else 0
    except Refused:
        return status, key, fp, covered, len(data)
    while True:
        try:
            sec = read_section(data, pos, sealed)
        except Refused:
            break
        if sec is None:
            break
        t, payload, off, pos = sec
        if t != SIG_TYPE or len(payload) != SIG_PAYLOAD or payload[:2] != SIG_ALG:
            continue
        keyid, sig, pk = payload[2:10], payload[10:74], payload[74:106]
        digest = hashlib.blake2b(data[:off], digest_size=64).digest()
        try:
            VerifyKey(pk).verify(digest, sig)
        except BadSignatureError:
            return "invalid", key_id(keyid), fingerprint(pk), off, len(data)
        key, fp, covered = key_id(keyid), fingerprint(pk), pos
    if key is not None:
        status = "ok" if covered == len(data) else "partial"
    return status, key, fp, covered, len(data)


# ---- the text notation (docs/notation.md) ---------------------------------


def quote(b):
    out = ['"']
    for x in b:
        if 0x20 <= x < 0x7F and x not in (0x22, 0x5C):
            out.append(chr(x))
        elif x in (0x22, 0x5C):
            out.append("\\" + chr(x))
        else:
            out.append("\\x%02x" % x)
    out.append('"')
    return "".join(out)


def time_text(t):
    if t < -62167219200 or t > 253402300799:
        return None
    days, secs = t // 86400, t % 86400
    z = days + 719468  # H. Hinnant's civil_from_days
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + 3 if mp < 10 else mp - 9
    y = yoe + era * 400 + (m <= 2)
    return "%04d-%02d-%02dT%02d:%02d:%02dZ" % (y, m, d, secs // 3600, secs // 60 % 60, secs % 60)


def header_text(h):
    lines = ['[Notation "1"]', "[Profile %s]" % quote(h["profile"].encode())]
    base = PROFILES[h["profile"]]
    for pid, name, kind, _, _, names in PARAMS:
        v = h["rules"][pid]
        if v == base[pid - 1]:
            continue
        text = ("true" if v else "false") if kind == "b" else (names[v] if kind == "e" else str(v))
        lines.append("[Rule %s %s]" % (quote(name.encode()), quote(text.encode())))
    lines.append('[Players "%d"]' % h["players"])
    for s, name in enumerate(h["names"]):
        if name:
            lines.append('[Seat "%d" %s]' % (s, quote(name)))
    lines.append('[FirstDealer "%d"]' % h["first_dealer"])
    if h["start"]:
        lines.append('[Start "%s"]' % time_text(h["start"]))
    for k, v in h["meta"]:
        lines.append("[Meta %s %s]" % (quote(k), quote(v)))
    if h["commitment"] is not None:
        lines.append('[Commitment "%s"]' % h["commitment"].hex())
        if h["version"] == 3:
            lines.append('[CommitmentVersion "1"]')
        for ps in h["player_seeds"]:
            lines.append('[PlayerSeed "%s"]' % ps.hex())
    # notation.md: a version other than the one the text's import writes (7 dealt freely, 6 committed)
    if h["version"] in (2, 4, 5) or (h["version"] == 6 and h["commitment"] is None):
        lines.append('[FormatVersion "%d"]' % h["version"])
    return "".join(line + "\n" for line in lines)


def dump(data, out, actions_only=False):
    info = {}
    line = None  # (deal, turn, seat, count) of the open turn line
    try:
        for kind, ev in events(data, info):
            if kind == "action":
                deal, turn, seat, a = ev
                if actions_only:
                    out.write("%d %d %d %s\n" % (deal, turn, seat, format_action(a)))
                    continue
                if line and (line[:3] != (deal, turn, seat) or line[3] == 128):
                    out.write("\n")
                    line = None
                if line:
                    out.write(", " + format_action(a))
                    line = (deal, turn, seat, line[3] + 1)
                else:
                    out.write("%d. %d: %s" % (turn, seat, format_action(a)))
                    line = (deal, turn, seat, 1)
                continue
            if actions_only:
                continue
            if line:
                out.write("\n")
                line = None
            if kind == "header":
                if ev["start"] and time_text(ev["start"]) is None:
                    raise Refused(0, "the start time is outside the years 0000 to 9999")
                out.write(header_text(ev))
            elif kind == "deal":
                number, (hands, mortos, stock) = ev
                out.write("\ndeal %d\n" % number)
                for s, hand in enumerate(hands):
                    out.write("hand %d:%s\n" % (s, "".join(" " + card_name(c) for c in hand)))
                for i, morto in enumerate(mortos):
                    out.write("morto %d:%s\n" % (i, "".join(" " + card_name(c) for c in morto)))
                out.write("stock:%s\n" % "".join(" " + card_name(c) for c in stock))
            elif kind == "claim":
                d, s0, s1 = ev
                out.write("claim %s: %d %d\n" % ("match" if d == 0 else str(d), s0, s1))
            elif kind == "end":
                out.write("end recovered\n" if ev else "end\n")
            elif kind == "seed":
                out.write("\nseed %s\n" % ev.hex())
    finally:
        if line:
            out.write("\n")


# ---- §17 the match identity ------------------------------------------------


def uvarint(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def zz(v):
    return uvarint(((v << 1) ^ (v >> 63)) & (2**64 - 1))


def text(b):
    return uvarint(len(b)) + bytes(b)


def match_id(data):
    """The identity record of §17, hashed with BLAKE2b-256: 64 hex digits."""
    info, late = {}, []
    rec = bytearray(b"brp-match-id-1\x00")
    for kind, ev in events(data, info):
        if kind == "header":
            # every parameter, as the header decodes (a 31-pair header gives id 32 its value, §4)
            rec += text(ev["profile"].encode()) + uvarint(NPARAMS)
            for pid in range(1, NPARAMS + 1):
                rec += uvarint(pid) + zz(ev["rules"][pid])
            rec += uvarint(ev["players"])
            for name in ev["names"]:
                rec += text(name)
            rec += uvarint(ev["first_dealer"]) + zz(ev["start"]) + uvarint(len(ev["meta"]))
            for k, v in ev["meta"]:
                rec += text(k) + text(v)
            if ev["commitment"] is not None:  # a committed match: the commitment and the players' seeds
                rec += b"K" + bytes(ev["commitment"]) + uvarint(len(ev["player_seeds"]))
                rec += b"".join(bytes(x) for x in ev["player_seeds"])
        elif kind == "deal":
            number, (hands, mortos, stock) = ev
            rec += b"D" + uvarint(number)
            for hand in hands:
                rec += bytes(sorted(hand))
            for morto in mortos:
                rec += bytes(morto)
            rec += bytes(stock)
        elif kind == "action":
            a = ev[3]
            rec += b"A" + bytes([a["kind"]])
            if a["kind"] == ADD:
                rec += bytes([a["side"], a["meld"]])
            if a["kind"] in (MELD, ADD):
                rec += bytes([a["end"], len(a["cards"])]) + bytes(sorted(a["cards"]))
            elif a["kind"] == DISCARD:
                rec += bytes(a["cards"])
            elif a["kind"] == MORTO:
                rec += bytes([a["morto"]])
        elif kind == "claim":
            d, s0, s1 = ev
            if info.get("commitment") is not None:
                late.append((d, s0, s1))  # a committed match's claims go last (§17.2)
            else:
                rec += b"C" + uvarint(d) + zz(s0) + zz(s1)
        # "end": not part of the record
    # by deal, the match's (deal 0) last, each deal's in the order recorded (sorted() is stable)
    for d, s0, s1 in sorted(late, key=lambda c: c[0] if c[0] else 1 << 62):
        rec += b"C" + uvarint(d) + zz(s0) + zz(s1)
    return hashlib.blake2b(bytes(rec), digest_size=32).hexdigest()

def deal_terms(args):
    """--deal's options (the terms of §18.2, as `brp deal` takes them), then SEED N PLAYERS [PLAYERSEED]...:
    (seed, deal, players, player seeds, h), h the terms as a decoded header holds them (None: protocol 1)."""
    protocol, profile, sets, names, first_dealer = 2, "stbl", [], {}, None
    while args and args[0].startswith("--"):
        opt, val, args = args[0], args[1], args[2:]
        if opt == "--protocol":
            protocol = int(val)
        elif opt == "--rules":
            profile = val.lower()
        elif opt == "--set":
            sets.append(val.split("=", 1))
        elif opt == "--seat":
            names[int(val[0])] = val[2:].encode()
        elif opt == "--first-dealer":
            first_dealer = int(val)
        else:
            raise ValueError("unknown option " + opt)
    seed, deal, n = bytes.fromhex(args[0]), int(args[1]), int(args[2])
    player_seeds = [bytes.fromhex(a) for a in args[3:]]
    if protocol == 1:
        return seed, deal, n, player_seeds, None
    rules = [None] + list(PROFILES[profile])
    for name, value in sets:
        pid, _, kind, _, _, enum = next(p for p in PARAMS if p[1] == name)
        if kind == "b" and value in ("true", "false"):
            rules[pid] = int(value == "true")
        elif kind == "e" and value in enum:
            rules[pid] = enum.index(value)
        else:
            rules[pid] = int(value)
    h = {"profile": profile, "rules": rules, "players": n, "names": [names.get(i, b"") for i in range(n)],
         "first_dealer": n - 1 if first_dealer is None else first_dealer, "player_seeds": player_seeds}
    return seed, deal, n, player_seeds, h


def log_terms(path, deal):
    """--deal-log: the terms, protocol and players' seeds of a log's header and the seed it reveals
    (in its header or an R section, §16.1), as deal_terms gives them."""
    with open(path, "rb") as f:
        data = f.read(MAX_FILE + 1)
    info, seed = {}, None
    for kind, ev in events(data, info):
        if kind == "seed":
            seed = ev
            break
    if info.get("commitment") is None or seed is None:
        raise ValueError("the log has no committed deal, or does not reveal its seed")
    return seed, deal, info["players"], info["player_seeds"], info if info["version"] >= 4 else None


def print_deal(terms, out):
    """The commitment and the layout of one deal, as `brp deal` prints them."""
    seed, deal, n, player_seeds, h = terms
    hands, mortos, stock = derive(seed, player_seeds, n, deal, h)
    out.write("commitment: %s\ndeal %d\n" % ((commitment2(seed, h) if h else commitment(seed)).hex(), deal))
    for s, hand in enumerate(hands):
        out.write("hand %d:%s\n" % (s, "".join(" " + card_name(c) for c in hand)))
    for i, morto in enumerate(mortos):
        out.write("morto %d:%s\n" % (i, "".join(" " + card_name(c) for c in morto)))
    out.write("stock:%s\n" % "".join(" " + card_name(c) for c in stock))
    return 0


def main(argv):
    args = argv[1:]
    if args and args[0] == "--deal" and len(args) >= 4:
        return print_deal(deal_terms(args[1:]), sys.stdout)
    if args and args[0] == "--deal-log" and len(args) == 3:
        try:
            terms = log_terms(args[1], int(args[2]))
        except (OSError, ValueError, Refused) as e:
            sys.stderr.write("brpdecode: %s: %s\n" % (args[1], e))
            return 2
        return print_deal(terms, sys.stdout)
    actions_only = sigs = ident = False
    if args and args[0] == "--actions":
        actions_only = True
        args = args[1:]
    elif args and args[0] == "--signatures":
        sigs = True
        args = args[1:]
    elif args and args[0] == "--match-id":
        ident = True
        args = args[1:]
    if len(args) != 1:
        sys.stderr.write("usage: brpdecode.py [--actions | --signatures | --match-id] FILE"
                         " | --deal [OPTION VALUE]... SEED N PLAYERS [PLAYERSEED]... | --deal-log FILE N\n")
        return 2
    try:
        with open(args[0], "rb") as f:
            data = f.read(MAX_FILE + 1)
    except OSError as e:
        sys.stderr.write("brpdecode: %s: %s\n" % (args[0], e.strerror))
        return 2
    out = sys.stdout
    if sigs:
        status, key, fp, covered, size = signatures(data)
        out.write("%s %s %s %d %d\n" % (status, key or "-", fp or "-", covered, size))
        return 0
    try:
        if ident:
            out.write(match_id(data) + "\n")
            return 0
        dump(memoryview(data).tobytes(), out, actions_only)
    except Refused as e:
        out.flush()
        sys.stderr.write("brpdecode: %s: %s (byte %d)\n" % (args[0], e, e.offset))
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

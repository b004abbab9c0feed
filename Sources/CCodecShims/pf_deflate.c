/* PixelFlow's deflate encoder (RFC 1951): see include/pf_deflate.h.

   Matches: a hash of the next 6 bytes indexes the latest position with that hash, and a chain
   links each position to the previous one with the same hash (zlib's scheme). A level sets how
   many chain links a search follows, when a match is long enough to stop at, and whether the
   search is lazy (a match is kept only if the next position has no longer one). Matches are
   at least 6 bytes long (as zlib's Z_FILTERED strategy keeps them: in the filtered rows of a
   photograph shorter ones cost more bits than the literals they replace), and one is kept
   only if it is estimated to cost fewer bits than its literals, by the code lengths of the
   block before (pf_match_pays).

   Blocks: symbols (literals and length/distance pairs) are gathered PF_BLOCK_SYMBOLS at a time;
   each block gets its own Huffman codes, from its symbol counts, limited to 15 bits, and is
   written as a dynamic-Huffman block or, when that would be longer, as stored blocks. */
#include "pf_deflate.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define PF_WINDOW 32768u
#define PF_HASH_BITS 16
#define PF_MIN_MATCH 6u
#define PF_MAX_MATCH 258u
/* Bits added to the literals' cost when a match is weighed against them (pf_match_pays). */
#define PF_MATCH_BIAS 2u
#define PF_BLOCK_SYMBOLS 16384u
#define PF_LITLEN_SYMBOLS 286
#define PF_DIST_SYMBOLS 30
#define PF_CODELEN_SYMBOLS 19
#define PF_MAX_CODE_BITS 15
#define PF_MAX_CODELEN_BITS 7
/* Symbols: a literal is its byte; a match is PF_MATCH_FLAG | (length - 3) << 16 | (distance - 1). */
#define PF_MATCH_FLAG 0x80000000u

/* How hard a level searches. Every position is hashed, also those inside matches (skipping
   them cost a third more bytes on flat graphics, and saved little time). */
typedef struct pf_deflate_level {
    /* Chain links followed per search. */
    uint32_t chain;
    /* A match this long ends the search. */
    uint32_t nice;
    /* Lazy matching: a match shorter than this is checked against the next position's. 0: greedy. */
    uint32_t lazy;
} pf_deflate_level;

static const pf_deflate_level pf_levels[PF_DEFLATE_MAX_LEVEL + 1] = {
    {0, 0, 0},
    {1, 32, 0},
    {2, 32, 0},
    {4, 64, 0},
    {8, 128, 0},
    {8, 64, 16},
    {16, 128, 64},
    {48, 258, 128},
    {128, 258, 258},
    {512, 258, 258},
};

/* ---- tables of RFC 1951, section 3.2.5 ---- */

static uint8_t pf_length_symbol[256];   /* length - 3 -> symbol - 257 */
static uint8_t pf_distance_symbol[512]; /* see pf_distance_code */
static const uint16_t pf_length_base[29] = {3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27,
                                            31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
static const uint8_t pf_length_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                            2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
static const uint16_t pf_distance_base[30] = {1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129,
                                              193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097,
                                              6145, 8193, 12289, 16385, 24577};
static const uint8_t pf_distance_extra[30] = {0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6,
                                              6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};
static const uint8_t pf_codelen_order[PF_CODELEN_SYMBOLS] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5,
                                                             11, 4, 12, 3, 13, 2, 14, 1, 15};
static pthread_once_t pf_tables_once = PTHREAD_ONCE_INIT;

static void pf_make_tables(void) {
    for (int s = 0; s < 28; s++)
        for (int l = pf_length_base[s]; l < pf_length_base[s] + (1 << pf_length_extra[s]); l++)
            pf_length_symbol[l - 3] = (uint8_t)s;
    pf_length_symbol[258 - 3] = 28;
    /* Distances 1...256 by distance - 1; 257...32768 by 256 + ((distance - 1) >> 7). */
    for (int s = 0; s < 30; s++) {
        for (int d = pf_distance_base[s]; d < pf_distance_base[s] + (1 << pf_distance_extra[s]); d++) {
            if (d <= 256) pf_distance_symbol[d - 1] = (uint8_t)s;
            else pf_distance_symbol[256 + ((d - 1) >> 7)] = (uint8_t)s;
        }
    }
}

static inline uint32_t pf_distance_code(uint32_t distance) {
    return distance <= 256 ? pf_distance_symbol[distance - 1] : pf_distance_symbol[256 + ((distance - 1) >> 7)];
}

/* ---- bits out, least significant first ---- */

typedef struct pf_bits {
    uint8_t *out;
    uint64_t buffer;
    unsigned count;
} pf_bits;

/* Adds `n` <= 32 bits; the buffer holds fewer than 32 before, so no bit is lost. */
static inline void pf_put(pf_bits *b, uint64_t value, unsigned n) {
    b->buffer |= value << b->count;
    b->count += n;
}

/* Writes the whole bytes of the buffer (8 bytes are stored: the output has that much slack). */
static inline void pf_flush_bytes(pf_bits *b) {
    uint64_t v = b->buffer;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    uint64_t little = __builtin_bswap64(v);
#else
    uint64_t little = v;
#endif
    memcpy(b->out, &little, 8);
    unsigned whole = b->count >> 3;
    b->out += whole;
    /* At most 63 bits are ever held, so `whole` is at most 7. */
    b->buffer = v >> (8 * whole);
    b->count &= 7;
}

static void pf_align(pf_bits *b) {
    pf_flush_bytes(b);
    if (b->count > 0) {
        b->count = 8;
        pf_flush_bytes(b);
    }
}

/* ---- Huffman codes ---- */

typedef struct pf_sym_weight {
    uint32_t weight;
    uint16_t symbol;
} pf_sym_weight;

static int pf_compare_weights(const void *x, const void *y) {
    const pf_sym_weight *a = (const pf_sym_weight *)x, *b = (const pf_sym_weight *)y;
    if (a->weight != b->weight) return a->weight < b->weight ? -1 : 1;
    return a->symbol < b->symbol ? -1 : a->symbol > b->symbol;
}

/* Code lengths for `n` <= 286 symbols with counts `freq`, none longer than `limit`: Huffman's
   (by the two-queue method over the counts in ascending order), then, if some are too long,
   the counts of lengths are made to fit the limit (keeping Kraft's sum at 1) and handed out
   again, shortest to the most frequent. At least two symbols get a code (the first two with a
   zero count are used when needed), so the code is always complete. */
static void pf_code_lengths(const uint32_t *freq, int n, int limit, uint8_t *lengths) {
    pf_sym_weight leaves[PF_LITLEN_SYMBOLS];
    int count = 0;
    memset(lengths, 0, (size_t)n);
    for (int s = 0; s < n; s++)
        if (freq[s] > 0) leaves[count++] = (pf_sym_weight){freq[s], (uint16_t)s};
    for (int s = 0; count < 2 && s < n; s++)
        if (freq[s] == 0) leaves[count++] = (pf_sym_weight){0, (uint16_t)s};
    qsort(leaves, (size_t)count, sizeof leaves[0], pf_compare_weights);

    /* Nodes 0..count-1 are the leaves, count.. the inner nodes in the order they are made
       (their weights never decrease). */
    uint32_t weight[2 * PF_LITLEN_SYMBOLS];
    uint16_t parent[2 * PF_LITLEN_SYMBOLS];
    for (int i = 0; i < count; i++) weight[i] = leaves[i].weight;
    int next_leaf = 0, next_inner = count, made = count;
    for (int k = 0; k < count - 1; k++) {
        int pick[2];
        for (int j = 0; j < 2; j++) {
            if (next_leaf < count && (next_inner >= made || weight[next_leaf] <= weight[next_inner]))
                pick[j] = next_leaf++;
            else
                pick[j] = next_inner++;
        }
        weight[made] = weight[pick[0]] + weight[pick[1]];
        parent[pick[0]] = parent[pick[1]] = (uint16_t)made;
        made++;
    }
    /* Depths, from the root (the last node made) down. */
    uint16_t depth[2 * PF_LITLEN_SYMBOLS];
    depth[made - 1] = 0;
    for (int i = made - 2; i >= 0; i--) depth[i] = (uint16_t)(depth[parent[i]] + 1);

    uint32_t per_length[PF_MAX_CODE_BITS + 2] = {0};
    for (int i = 0; i < count; i++) {
        int d = depth[i] > limit ? limit : depth[i];
        per_length[d]++;
    }
    /* Kraft's sum in units of 2^-limit; too many codes were clamped to `limit` if it is over. */
    uint32_t total = 0;
    for (int l = 1; l <= limit; l++) total += per_length[l] << (limit - l);
    while (total > (1u << limit)) {
        /* Move a code of the longest length up a level, paid for by splitting a shorter one. */
        per_length[limit]--;
        for (int l = limit - 1; l > 0; l--) {
            if (per_length[l] > 0) {
                per_length[l]--;
                per_length[l + 1] += 2;
                break;
            }
        }
        total--;
    }
    /* The least frequent symbols (first in `leaves`) get the longest codes. */
    int i = 0;
    for (int l = limit; l >= 1; l--)
        for (uint32_t k = 0; k < per_length[l]; k++) lengths[leaves[i++].symbol] = (uint8_t)l;
}

/* Canonical codes for `lengths` (RFC 1951, 3.2.2), bit-reversed for a least-significant-first
   stream. */
static void pf_codes(const uint8_t *lengths, int n, uint16_t *codes) {
    uint16_t per_length[PF_MAX_CODE_BITS + 1] = {0}, next[PF_MAX_CODE_BITS + 2];
    for (int s = 0; s < n; s++) per_length[lengths[s]]++;
    per_length[0] = 0;
    uint32_t code = 0;
    for (int l = 1; l <= PF_MAX_CODE_BITS; l++) {
        code = (code + per_length[l - 1]) << 1;
        next[l] = (uint16_t)code;
    }
    for (int s = 0; s < n; s++) {
        int l = lengths[s];
        if (l == 0) {
            codes[s] = 0;
            continue;
        }
        uint32_t c = next[l]++, reversed = 0;
        for (int k = 0; k < l; k++) reversed |= ((c >> k) & 1u) << (l - 1 - k);
        codes[s] = (uint16_t)reversed;
    }
}

/* ---- blocks ---- */

typedef struct pf_block_codes {
    uint8_t litlen_lengths[PF_LITLEN_SYMBOLS];
    uint8_t dist_lengths[PF_DIST_SYMBOLS];
    uint16_t litlen_codes[PF_LITLEN_SYMBOLS];
    uint16_t dist_codes[PF_DIST_SYMBOLS];
    int hlit, hdist, hclen;
    /* The code lengths of both codes, run-length coded: symbol (0...18) | extra bits << 8. */
    uint16_t runs[PF_LITLEN_SYMBOLS + PF_DIST_SYMBOLS];
    int run_count;
    uint8_t codelen_lengths[PF_CODELEN_SYMBOLS];
    uint16_t codelen_codes[PF_CODELEN_SYMBOLS];
} pf_block_codes;

/* Builds the codes for the counts and returns the bits the dynamic block takes (header,
   symbols, extra bits and end of block). */
static uint64_t pf_plan_block(const uint32_t *litlen_freq, const uint32_t *dist_freq, pf_block_codes *c) {
    pf_code_lengths(litlen_freq, PF_LITLEN_SYMBOLS, PF_MAX_CODE_BITS, c->litlen_lengths);
    pf_code_lengths(dist_freq, PF_DIST_SYMBOLS, PF_MAX_CODE_BITS, c->dist_lengths);
    pf_codes(c->litlen_lengths, PF_LITLEN_SYMBOLS, c->litlen_codes);
    pf_codes(c->dist_lengths, PF_DIST_SYMBOLS, c->dist_codes);
    c->hlit = PF_LITLEN_SYMBOLS;
    while (c->hlit > 257 && c->litlen_lengths[c->hlit - 1] == 0) c->hlit--;
    c->hdist = PF_DIST_SYMBOLS;
    while (c->hdist > 1 && c->dist_lengths[c->hdist - 1] == 0) c->hdist--;

    uint8_t all[PF_LITLEN_SYMBOLS + PF_DIST_SYMBOLS];
    memcpy(all, c->litlen_lengths, (size_t)c->hlit);
    memcpy(all + c->hlit, c->dist_lengths, (size_t)c->hdist);
    int total = c->hlit + c->hdist;
    uint32_t codelen_freq[PF_CODELEN_SYMBOLS] = {0};
    c->run_count = 0;
    for (int i = 0; i < total;) {
        int value = all[i], run = 1;
        while (i + run < total && all[i + run] == value) run++;
        int used;
        if (value == 0 && run >= 11) {
            used = run > 138 ? 138 : run;
            c->runs[c->run_count++] = (uint16_t)(18 | (used - 11) << 8);
            codelen_freq[18]++;
        } else if (value == 0 && run >= 3) {
            used = run;
            c->runs[c->run_count++] = (uint16_t)(17 | (used - 3) << 8);
            codelen_freq[17]++;
        } else if (value != 0 && run >= 4) {
            /* The value once, then repeats of it, 3...6 at a time. */
            c->runs[c->run_count++] = (uint16_t)value;
            codelen_freq[value]++;
            used = run - 1 > 6 ? 7 : run;
            c->runs[c->run_count++] = (uint16_t)(16 | (used - 1 - 3) << 8);
            codelen_freq[16]++;
        } else {
            used = 1;
            c->runs[c->run_count++] = (uint16_t)value;
            codelen_freq[value]++;
        }
        i += used;
    }
    pf_code_lengths(codelen_freq, PF_CODELEN_SYMBOLS, PF_MAX_CODELEN_BITS, c->codelen_lengths);
    pf_codes(c->codelen_lengths, PF_CODELEN_SYMBOLS, c->codelen_codes);
    c->hclen = PF_CODELEN_SYMBOLS;
    while (c->hclen > 4 && c->codelen_lengths[pf_codelen_order[c->hclen - 1]] == 0) c->hclen--;

    uint64_t bits = 3 + 5 + 5 + 4 + 3 * (uint64_t)c->hclen;
    for (int r = 0; r < c->run_count; r++) {
        int symbol = c->runs[r] & 0xff;
        bits += c->codelen_lengths[symbol] + (symbol == 16 ? 2 : symbol == 17 ? 3 : symbol == 18 ? 7 : 0);
    }
    for (int s = 0; s < PF_LITLEN_SYMBOLS; s++) {
        uint32_t extra = s >= 257 ? pf_length_extra[s - 257] : 0;
        bits += (uint64_t)litlen_freq[s] * (c->litlen_lengths[s] + extra);
    }
    for (int s = 0; s < PF_DIST_SYMBOLS; s++)
        bits += (uint64_t)dist_freq[s] * (c->dist_lengths[s] + pf_distance_extra[s]);
    return bits;
}

static void pf_write_dynamic(pf_bits *b, const pf_block_codes *c, const uint32_t *symbols, size_t count,
                             int final) {
    pf_put(b, (uint64_t)(final ? 1 : 0) | 2u << 1, 3);
    pf_put(b, (uint64_t)(c->hlit - 257) | (uint64_t)(c->hdist - 1) << 5 | (uint64_t)(c->hclen - 4) << 10, 14);
    pf_flush_bytes(b);
    for (int i = 0; i < c->hclen; i++) {
        pf_put(b, c->codelen_lengths[pf_codelen_order[i]], 3);
        pf_flush_bytes(b);
    }
    for (int r = 0; r < c->run_count; r++) {
        int symbol = c->runs[r] & 0xff, extra = c->runs[r] >> 8;
        pf_put(b, c->codelen_codes[symbol], c->codelen_lengths[symbol]);
        if (symbol >= 16) pf_put(b, (uint64_t)extra, symbol == 16 ? 2 : symbol == 17 ? 3 : 7);
        pf_flush_bytes(b);
    }
    /* Each literal's code and length in one word. */
    uint32_t literal[256];
    for (int s = 0; s < 256; s++) literal[s] = c->litlen_codes[s] | (uint32_t)c->litlen_lengths[s] << 16;
    for (size_t i = 0; i < count; i++) {
        uint32_t s = symbols[i];
        if ((s & PF_MATCH_FLAG) == 0) {
            pf_put(b, literal[s] & 0xffff, literal[s] >> 16);
        } else {
            uint32_t length = ((s >> 16) & 0x1ff), distance = (s & 0xffff) + 1;
            uint32_t ls = pf_length_symbol[length];
            pf_put(b, c->litlen_codes[257 + ls], c->litlen_lengths[257 + ls]);
            pf_put(b, length + 3 - pf_length_base[ls], pf_length_extra[ls]);
            pf_flush_bytes(b);
            uint32_t ds = pf_distance_code(distance);
            pf_put(b, c->dist_codes[ds], c->dist_lengths[ds]);
            pf_put(b, distance - pf_distance_base[ds], pf_distance_extra[ds]);
        }
        pf_flush_bytes(b);
    }
    pf_put(b, c->litlen_codes[256], c->litlen_lengths[256]);
    pf_flush_bytes(b);
}

/* Stored blocks holding `size` bytes (an empty one when `size` is 0). */
static void pf_write_stored(pf_bits *b, const uint8_t *bytes, size_t size, int final) {
    do {
        size_t n = size > 65535 ? 65535 : size;
        int is_final = final && n == size;
        pf_put(b, is_final ? 1 : 0, 3);
        pf_align(b);
        b->out[0] = (uint8_t)n;
        b->out[1] = (uint8_t)(n >> 8);
        b->out[2] = (uint8_t)~n;
        b->out[3] = (uint8_t)(~n >> 8);
        if (n > 0) memcpy(b->out + 4, bytes, n);
        b->out += 4 + n;
        bytes += n;
        size -= n;
    } while (size > 0);
}

/* What a symbol is estimated to cost, in bits: the code lengths of the last block (a symbol it
   did not use is taken as rare). The match search accepts a match only when it costs less
   than the literals it replaces. */
typedef struct pf_costs {
    uint8_t literal[256];
    uint8_t length[29];
    uint8_t distance[30];
} pf_costs;

static void pf_costs_from_lengths(pf_costs *costs, const uint8_t *litlen_lengths, const uint8_t *dist_lengths) {
    for (int s = 0; s < 256; s++) costs->literal[s] = litlen_lengths[s] ? litlen_lengths[s] : 13;
    for (int s = 0; s < 29; s++) costs->length[s] = litlen_lengths[257 + s] ? litlen_lengths[257 + s] : 7;
    for (int s = 0; s < 30; s++) costs->distance[s] = dist_lengths[s] ? dist_lengths[s] : 5;
}

/* Writes the block of `count` symbols covering `size` bytes at `bytes`, with their counts
   (end of block not counted yet): dynamic Huffman, or stored when that is shorter. Sets
   `costs` from its codes. */
static void pf_write_block(pf_bits *b, const uint32_t *symbols, size_t count, uint32_t *litlen_freq,
                           const uint32_t *dist_freq, const uint8_t *bytes, size_t size, int final,
                           pf_costs *costs) {
    litlen_freq[256] = 1;
    pf_block_codes codes;
    uint64_t dynamic_bits = pf_plan_block(litlen_freq, dist_freq, &codes);
    pf_costs_from_lengths(costs, codes.litlen_lengths, codes.dist_lengths);
    /* Stored: 3 bits, up to 7 of padding, 32 of lengths per 65535 bytes. */
    uint64_t stored_bits = (uint64_t)size * 8 + ((uint64_t)size / 65535 + 1) * (3 + 7 + 32);
    if (stored_bits < dynamic_bits) pf_write_stored(b, bytes, size, final);
    else pf_write_dynamic(b, &codes, symbols, count, final);
}

/* ---- matches ---- */

static inline uint32_t pf_load32(const uint8_t *p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

/* A hash of the PF_MIN_MATCH (6) bytes at `p`; reads 8. */
static inline uint32_t pf_hash(const uint8_t *p) {
    uint64_t v;
    memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return (uint32_t)(((v << 16) * 0x9E3779B97F4A7C15ull) >> (64 - PF_HASH_BITS));
}

/* How many bytes at `a` and `b` agree, up to `limit`. */
static inline uint32_t pf_match_length(const uint8_t *a, const uint8_t *b, uint32_t limit) {
    uint32_t n = 0;
    while (n + 8 <= limit) {
        uint64_t x, y;
        memcpy(&x, a + n, 8);
        memcpy(&y, b + n, 8);
        uint64_t diff = x ^ y;
        if (diff != 0) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
            return n + (uint32_t)(__builtin_clzll(diff) >> 3);
#else
            return n + (uint32_t)(__builtin_ctzll(diff) >> 3);
#endif
        }
        n += 8;
    }
    while (n < limit && a[n] == b[n]) n++;
    return n;
}

typedef struct pf_matcher {
    const uint8_t *base;
    size_t end;
    uint32_t *head;
    uint32_t *prev;
    pf_deflate_level level;
    pf_costs costs;
} pf_matcher;

/* Whether a match of `length` at `distance` for the bytes at `here` is estimated to cost
   fewer bits than the literals it replaces. */
static inline int pf_match_pays(const pf_matcher *m, const uint8_t *here, uint32_t length, uint32_t distance) {
    uint32_t ls = pf_length_symbol[length - 3], ds = pf_distance_code(distance);
    uint32_t cost = m->costs.length[ls] + pf_length_extra[ls] + m->costs.distance[ds] + pf_distance_extra[ds];
    /* A small bias for the match: its codes get shorter as more matches are taken, which the
       last block's lengths do not yet know (2 bits: the best of 0...4 on the test images). */
    uint32_t literals = PF_MATCH_BIAS;
    for (uint32_t k = 0; k < length; k++) {
        literals += m->costs.literal[here[k]];
        if (literals > cost) return 1;
    }
    return 0;
}

static inline void pf_insert(pf_matcher *m, size_t i) {
    uint32_t h = pf_hash(m->base + i);
    m->prev[i & (PF_WINDOW - 1)] = m->head[h];
    m->head[h] = (uint32_t)i;
}

/* The longest match for position `i` (already inserted) longer than `best`, following at
   most the level's chain links; its length (0 if none) and distance. Positions are kept as
   32-bit values: a candidate is checked by its distance and its bytes, so one that wrapped
   around is only a wasted comparison, never a wrong match. */
static inline uint32_t pf_longest_match(const pf_matcher *m, size_t i, uint32_t best, uint32_t *distance) {
    const uint8_t *here = m->base + i;
    size_t left = m->end - i;
    uint32_t limit = left < PF_MAX_MATCH ? (uint32_t)left : PF_MAX_MATCH;
    if (best < PF_MIN_MATCH - 1) best = PF_MIN_MATCH - 1;
    if (limit <= best) return 0;
    uint32_t found = 0;
    uint32_t reach = i < PF_WINDOW ? (uint32_t)i : PF_WINDOW;
    uint32_t candidate = m->prev[i & (PF_WINDOW - 1)];
    uint32_t first = pf_load32(here);
    for (uint32_t links = m->level.chain; links > 0; links--) {
        uint32_t d = (uint32_t)i - candidate;
        if (d == 0 || d > reach) break;
        const uint8_t *there = here - d;
        if (there[best] == here[best] && pf_load32(there) == first) {
            uint32_t length = pf_match_length(here, there, limit);
            if (length > best) {
                best = length;
                found = length;
                *distance = d;
                if (length >= m->level.nice || length == limit) break;
            }
        }
        uint32_t next = m->prev[candidate & (PF_WINDOW - 1)];
        /* A link to a later position was overwritten: the chain ends. */
        if ((uint32_t)i - next <= d) break;
        candidate = next;
    }
    return found;
}

/* The symbols of the block being gathered, counted as they come. */
typedef struct pf_block {
    uint32_t *symbols;
    size_t count;
    uint32_t litlen_freq[PF_LITLEN_SYMBOLS];
    uint32_t dist_freq[PF_DIST_SYMBOLS];
} pf_block;

static void pf_block_reset(pf_block *block, uint32_t *symbols) {
    block->symbols = symbols;
    block->count = 0;
    memset(block->litlen_freq, 0, sizeof block->litlen_freq);
    memset(block->dist_freq, 0, sizeof block->dist_freq);
}

static inline void pf_emit_literal(pf_block *block, uint8_t byte) {
    block->symbols[block->count++] = byte;
    block->litlen_freq[byte]++;
}

static inline void pf_emit_match(pf_block *block, uint32_t length, uint32_t distance) {
    block->symbols[block->count++] = PF_MATCH_FLAG | (length - 3) << 16 | (distance - 1);
    block->litlen_freq[257 + pf_length_symbol[length - 3]]++;
    block->dist_freq[pf_distance_code(distance)]++;
}

size_t pf_deflate_bound(size_t size) {
    /* Stored blocks at worst: 5 bytes for each block of symbols (at least PF_BLOCK_SYMBOLS - 1
       bytes, but the last) and each 65535 bytes within one; the empty stored block; slack
       for the 8-byte stores of the bit writer. */
    return size + size / 2048 + 256;
}

size_t pf_deflate_work_size(void) { return ((size_t)(1u << PF_HASH_BITS) + PF_WINDOW + PF_BLOCK_SYMBOLS) * 4; }

int pf_deflate(const uint8_t *data, size_t size, size_t dictionary_size, int level, int last,
               uint8_t *output, size_t *output_size) {
    *output_size = 0;
    if (level < 1 || level > PF_DEFLATE_MAX_LEVEL) return -1;
    void *work = malloc(pf_deflate_work_size());
    if (work == NULL) return 1;
    int status = pf_deflate_in(work, data, size, dictionary_size, level, last, output, output_size);
    free(work);
    return status;
}

int pf_deflate_in(void *work_area, const uint8_t *data, size_t size, size_t dictionary_size, int level, int last,
                  uint8_t *output, size_t *output_size) {
    *output_size = 0;
    if (level < 1 || level > PF_DEFLATE_MAX_LEVEL) return -1;
    pthread_once(&pf_tables_once, pf_make_tables);
    if (dictionary_size > PF_WINDOW) dictionary_size = PF_WINDOW;

    uint32_t *work = (uint32_t *)work_area;
    pf_matcher m;
    m.base = data - dictionary_size;
    m.end = dictionary_size + size;
    m.head = work;
    m.prev = work + (1u << PF_HASH_BITS);
    m.level = pf_levels[level];
    uint32_t *symbols = m.prev + PF_WINDOW;
    /* Empty chains: every link points at position 0, which the distance check rejects or the
       byte check settles. */
    memset(m.head, 0, (size_t)(1u << PF_HASH_BITS) * 4);
    memset(m.prev, 0, (size_t)PF_WINDOW * 4);

    /* The first block's costs: literals from the counts of the first 64 KiB, matches guessed. */
    {
        uint32_t freq[PF_LITLEN_SYMBOLS] = {0};
        size_t sample = size < 65536 ? size : 65536;
        for (size_t k = 0; k < sample; k++) freq[data[k]]++;
        uint8_t lengths[PF_LITLEN_SYMBOLS], none[PF_DIST_SYMBOLS] = {0};
        pf_code_lengths(freq, 256, PF_MAX_CODE_BITS, lengths);
        memset(lengths + 256, 0, PF_LITLEN_SYMBOLS - 256);
        pf_costs_from_lengths(&m.costs, lengths, none);
    }
    pf_bits bits = {output, 0, 0};
    /* Positions whose hash can be read (8 bytes). */
    size_t hashable = m.end >= 8 ? m.end - 7 : 0;
    for (size_t i = 0; i < dictionary_size && i < hashable; i++) pf_insert(&m, i);

    /* The current block's symbols and their counts. */
    pf_block block;
    pf_block_reset(&block, symbols);
    /* The first byte the current block covers. */
    size_t block_start = dictionary_size;
    size_t i = dictionary_size;
    const uint32_t lazy = m.level.lazy;
    /* A match found at i - 1 and not yet emitted (lazy matching only). */
    uint32_t held_length = 0, held_distance = 0;
    while (i < m.end) {
        if (block.count + 2 > PF_BLOCK_SYMBOLS) {
            /* A held match stays held: its symbols go into the next block, which starts at i - 1. */
            size_t covered = (held_length > 0 ? i - 1 : i) - block_start;
            pf_write_block(&bits, symbols, block.count, block.litlen_freq, block.dist_freq, m.base + block_start,
                           covered, 0, &m.costs);
            block_start += covered;
            pf_block_reset(&block, symbols);
        }
        uint32_t length = 0, distance = 0;
        if (i < hashable) {
            pf_insert(&m, i);
            if (held_length < lazy || lazy == 0) {
                length = pf_longest_match(&m, i, held_length, &distance);
                if (length > 0 && !pf_match_pays(&m, m.base + i, length, distance)) length = 0;
            }
        }
        if (lazy == 0) {
            if (length == 0) {
                pf_emit_literal(&block, m.base[i]);
                i++;
                continue;
            }
            pf_emit_match(&block, length, distance);
            size_t stop = i + length;
            for (size_t k = i + 1; k < stop && k < hashable; k++) pf_insert(&m, k);
            i = stop;
            continue;
        }
        /* Lazy: a match at i - 1 is emitted unless i has a longer one. */
        if (held_length > 0 && length <= held_length) {
            pf_emit_match(&block, held_length, held_distance);
            size_t stop = i - 1 + held_length;
            for (size_t k = i + 1; k < stop && k < hashable; k++) pf_insert(&m, k);
            held_length = 0;
            i = stop;
            continue;
        }
        if (held_length > 0) pf_emit_literal(&block, m.base[i - 1]);
        if (length > 0) {
            held_length = length;
            held_distance = distance;
        } else {
            pf_emit_literal(&block, m.base[i]);
        }
        i++;
    }
    if (held_length > 0) {
        /* Only possible if the input ended right after the position that found it. */
        pf_emit_match(&block, held_length, held_distance);
    }
    pf_write_block(&bits, symbols, block.count, block.litlen_freq, block.dist_freq, m.base + block_start,
                   m.end - block_start, last, &m.costs);
    if (!last) pf_write_stored(&bits, NULL, 0, 0);
    else pf_align(&bits);
    *output_size = (size_t)(bits.out - output);
    return 0;
}

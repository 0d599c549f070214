/* The solver's search in C: the same negamax as bots/brains/solver.py's Solver._search, line for line,
 * with a transposition table that grows (doubling at a quarter full) up to a given size. Boards of up to 128 lines and 64 cells.
 *
 * Python keeps the parts that run once per solve (MTD(f) and the root's best lines) and calls
 * Core.search(low64, high64, alpha, beta, open_cells) for every null-window search.
 * Built by pip as an optional extension; without a compiler the pure-Python search is used.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>

#if defined(__x86_64__)
#pragma GCC target("popcnt")  /* every x86-64 since 2008; the generic fallback costs 5 % of the search */
#endif

typedef unsigned __int128 u128;

#define MAX_LINES 128
#define MAX_CELLS 64
#define MAX_PERMS 8
#define CHUNKS 16
#define BUCKET 4 /* entries in a bucket of the wide table */
#define NARROW_BUCKET 5 /* entries in a bucket (a 64-byte cache line) of the narrow table */
#define LAYOUT 2 /* the wide table's layout number in a checkpoint (_solvecore.LAYOUT) */
#define NARROW_LAYOUT 3 /* the narrow table's (_solvecore.NARROW_LAYOUT) */
#define HISTORY_CAP ((1ULL << 43) - 1) /* history counts past this order as equal (solver.HISTORY_CAP) */
#define PATH_PLIES 4 /* plies whose move numbers the progress line shows (Core.path) */

/* The wide table (boards of 65-128 lines, LAYOUT 2): buckets of four 24-byte entries. */
typedef struct {
    uint64_t k0, k1;
    int8_t low, high;
    uint8_t best;
    uint8_t rank; /* 1 + log2 of the nodes searched to prove it (the replacement priority); 0 marks an empty slot */
} Entry;

/* The narrow table (boards of up to 64 lines, NARROW_LAYOUT 3): the key fits 64 bits, so an entry takes 12 bytes and
   five of them one 64-byte bucket, aligned to a cache line: 1.9 times the entries of the wide table in the same
   memory, and one cache line read per probe instead of one or two. */
typedef struct __attribute__((packed)) {
    uint64_t k0;
    int8_t low, high;
    uint8_t best;
    uint8_t rank;
} Narrow;

typedef struct {
    Narrow entry[NARROW_BUCKET];
    uint32_t unused;
} NarrowBucket;

_Static_assert(sizeof(NarrowBucket) == 64, "a narrow bucket is one cache line");

/* What a probe found: the stored bounds and best line (in the key's frame). */
typedef struct {
    int found, low, high, best;
} Probe;

typedef struct {
    PyObject_HEAD
    int n_lines, n_cells, misere, chain_rules, n_perms, chunks;
    int etc_free; /* enhanced transposition cutoffs at positions with at least this many free lines */
    u128 full, internal;
    u128 cell_mask[MAX_CELLS];
    u128 border_mask[MAX_CELLS];
    int n_touch[MAX_LINES];
    int touch[MAX_LINES][2];
    uint64_t touch_cells[MAX_LINES]; /* the cells a line is a side of, as a mask */
    uint64_t all_cells;
    uint8_t perm[MAX_PERMS][MAX_LINES];
    uint8_t inverse[MAX_PERMS][MAX_LINES];
    u128 (*images)[CHUNKS][256]; /* per symmetry after the identity: image of each byte of a mask */
    int narrow; /* n_lines <= 64: the narrow table (NarrowBucket), else the wide one (Entry) */
    int bucket; /* entries in a bucket: BUCKET or NARROW_BUCKET */
    size_t bucket_bytes;
    void *table;
    uint64_t buckets; /* the table holds buckets * bucket entries */
    uint64_t max_buckets; /* and grows up to this many */
    uint64_t filled;  /* entries in use */
    uint64_t nodes;
    uint64_t history[MAX_LINES]; /* per line: the sum of free lines squared at each beta cutoff it made */
    PyObject *tick; /* called every tick_seconds (time.monotonic) during a search, or NULL */
    double tick_seconds, next_tick;
    int clock_id;
    int has_deadline;
    double deadline;
    int stop; /* 1: past the deadline, 2: a signal raised a Python exception */
    /* where the search stands in its first PATH_PLIES plies, for a long solve's progress line: at ply p, the
       move searched now (from 1, 0 before the first) of path_n[p]; path_n[p] is 0 where no node of that ply is
       being searched */
    int ply;
    int path_i[PATH_PLIES], path_n[PATH_PLIES];
} Core;

static inline int popcount(u128 x) {
    return __builtin_popcountll((uint64_t)x) + __builtin_popcountll((uint64_t)(x >> 64));
}

static inline int lowest(u128 x) {
    uint64_t lo = (uint64_t)x;
    return lo ? __builtin_ctzll(lo) : 64 + __builtin_ctzll((uint64_t)(x >> 64));
}

static inline int single(u128 x) { return x && !(x & (x - 1)); }

static inline u128 bit(int line) { return (u128)1 << line; }

static double now(int clock_id) {
    struct timespec ts;
    clock_gettime(clock_id, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* A piece of three cells on offer that every line of it captures (Solver.triple): cell X's only free line `line` is a
   side of Y, whose other free line m is the only free line of a third cell Z. Drawing either captures one cell and
   leaves the other line closing two: an opened loop of three hexagons (X and Z adjacent by a drawn line) or a
   chain of three opened at both ends. Returns m, or -1. */
static int triple(const Core *c, u128 drawn, int line) {
    if (c->n_touch[line] != 2) return -1;
    for (int t = 0; t < 2; t++) {
        int y = c->touch[line][t];
        u128 left = c->cell_mask[y] & ~drawn & ~bit(line);
        if (!single(left) || !(c->cell_mask[y] & ~drawn & bit(line))) continue;
        int m = lowest(left);
        if (c->n_touch[m] != 2) continue;
        int z = c->touch[m][0] == y ? c->touch[m][1] : c->touch[m][0];
        if ((c->cell_mask[z] & ~drawn) == bit(m) && (c->cell_mask[c->touch[line][1 - t]] & ~drawn) == bit(line))
            return m;
    }
    return -1;
}

/* Draw every capturable cell's last line that makes no other cell capturable (Solver.take_free), cell by cell in
   order, pass after pass until one takes nothing. `suspects`: cells that may be capturable, a superset of those
   that are (all_cells when nothing is known; after a move, the parent's capturable cells and the move's own): only
   those are looked at, and the cells of each line drawn are added, the ones after the current cell in this pass
   as the full scan would meet them. `singles` (unless NULL): the capturable cells left (each one's line would make
   another capturable). */
static int take_free(const Core *c, u128 *drawn_io, uint64_t suspects, uint64_t *singles) {
    u128 drawn = *drawn_io;
    int gain = 0, changed = 1;
    uint64_t left_on_offer = 0;
    while (changed) {
        changed = 0;
        left_on_offer = 0;
        for (uint64_t todo = suspects; todo; todo &= todo - 1) {
            int cell = __builtin_ctzll(todo);
            u128 rest = c->cell_mask[cell] & ~drawn;
            if (!single(rest)) {
                suspects &= ~(1ULL << cell);  /* capturable again only once a line of it is drawn */
                continue;
            }
            left_on_offer |= 1ULL << cell;
            int line = lowest(rest);
            u128 after = drawn | rest;
            int safe = 1, closed = 0;
            for (int t = 0; t < c->n_touch[line]; t++) {
                u128 left = c->cell_mask[c->touch[line][t]] & ~after;
                if (!left) closed++;
                else if (single(left)) safe = 0;
            }
            if (safe) {
                drawn = after;
                gain += closed;
                changed = 1;
                suspects |= c->touch_cells[line];
                todo |= c->touch_cells[line] & ~((2ULL << cell) - 1);
            }
        }
    }
    *drawn_io = drawn;
    if (singles) *singles = left_on_offer;
    return gain;
}

/* Length of the chain taken from `line` on (Solver._walk), -1 if it branches or meets `offered`, -2 if `line` starts a
   piece of three. */
static int walk(const Core *c, u128 drawn, int line, u128 offered, int *second) {
    int length = 1;
    for (;;) {
        drawn |= bit(line);
        int found = 0, next = -1;
        for (int t = 0; t < c->n_touch[line]; t++) {
            u128 left = c->cell_mask[c->touch[line][t]] & ~drawn;
            if (single(left)) {
                found++;
                next = lowest(left);
            }
        }
        if (!found) return length;
        if (found != 1) return -1;
        /* met an offered cell at once: the first cell's line made one cell capturable, by a line that also closes a
           cell already on offer, so `line` starts a piece of three (triple() says so too) */
        if (offered & bit(next)) return length == 1 ? -2 : -1;
        line = next;
        if (length == 1) *second = line;
        length++;
    }
}

/* The only lines worth trying when a chain is on offer (Solver.chain_moves), normal play only; 0 when none.
   `singles`: a superset of the capturable cells (all_cells when not known). */
static u128 chain_moves(const Core *c, u128 drawn, uint64_t singles) {
    u128 offered = 0;
    for (; singles; singles &= singles - 1) {
        u128 rest = c->cell_mask[__builtin_ctzll(singles)] & ~drawn;
        if (single(rest)) offered |= rest;
    }
    int count = popcount(offered);
    for (u128 rest = offered; rest; rest &= rest - 1) {
        int line = lowest(rest), second = -1;
        int length = walk(c, drawn, line, offered, &second);
        if (length >= 3) return bit(line);
        if (length == 2 && count == 1) return bit(line) | bit(second);
        /* a piece of three: take its first cell (the next node takes the other two among the free captures) */
        if (length == -2) return bit(line);
    }
    return 0;
}

/* The least image of `drawn` under the symmetries, and which symmetry gave it (Solver._key). */
static u128 key_of(const Core *c, u128 drawn, int *which) {
    u128 key = drawn;
    *which = 0;
    for (int p = 1; p < c->n_perms; p++) {
        u128 image = 0, rest = drawn;
        for (int k = 0; k < c->chunks; k++) {
            image |= c->images[p - 1][k][(unsigned)(rest & 0xFF)];
            rest >>= 8;
        }
        if (image < key) {
            key = image;
            *which = p;
        }
    }
    return key;
}

/* The key's bucket: the hash scaled to any number of buckets (not only powers of two), so the table can take
   whatever share of memory it is given. Part of the checkpoint format (LAYOUT, NARROW_LAYOUT). */
static inline uint64_t slot_of(const Core *c, u128 key) {
    uint64_t h = (uint64_t)key * 0x9E3779B97F4A7C15ULL ^ (uint64_t)(key >> 64) * 0xC2B2AE3D27D4EB4FULL;
    h ^= h >> 31;
    h *= 0xD6E8FEB86659FD93ULL;
    h ^= h >> 32;
    return (uint64_t)(((u128)h * c->buckets) >> 64);
}

/* In a bucket of n entries: the key's entry (*found = 1), else (*found = 0) the slot a new entry takes: an empty one
   or the one with the smallest subtree. One body for both tables; SAME tells whether an entry holds the key. */
#define DEFINE_FIND(name, type, n, SAME)                                                                   \
    static inline type *name(type *bucket, uint64_t k0, uint64_t k1, int *found) {                        \
        type *target = bucket;                                                                            \
        (void)k1;                                                                                         \
        for (int i = 0; i < n; i++) {                                                                     \
            if (bucket[i].rank && SAME(bucket[i])) {                                                      \
                *found = 1;                                                                               \
                return &bucket[i];                                                                        \
            }                                                                                             \
            if (bucket[i].rank < target->rank) target   = &bucket[i];                                     \
        }                                                                                                 \
        *found = 0;                                                                                       \
        return target;                                                                                    \
    }
#define SAME_NARROW(e) ((e).k0 == k0)
#define SAME_WIDE(e) ((e).k0 == k0 && (e).k1 == k1)
DEFINE_FIND(find_narrow, Narrow, NARROW_BUCKET, SAME_NARROW)
DEFINE_FIND(find_wide, Entry, BUCKET, SAME_WIDE)

/* Ask the memory for the key's bucket without waiting for it (a wide bucket may straddle two cache lines). */
static inline void prefetch_bucket(const Core *c, u128 key) {
    const char *bucket = (const char *)c->table + slot_of(c, key) * c->bucket_bytes;
    __builtin_prefetch(bucket);
    __builtin_prefetch(bucket + c->bucket_bytes - 1);
}

static Probe lookup(Core *c, u128 key) {
    uint64_t k0 = (uint64_t)key, k1 = (uint64_t)(key >> 64);
    int found;
    if (c->narrow) {
        Narrow *e = find_narrow(((NarrowBucket *)c->table)[slot_of(c, key)].entry, k0, k1, &found);
        return found ? (Probe){1, e->low, e->high, e->best} : (Probe){0, 0, 0, 0};
    }
    Entry *e = find_wide((Entry *)c->table + slot_of(c, key) * BUCKET, k0, k1, &found);
    return found ? (Probe){1, e->low, e->high, e->best} : (Probe){0, 0, 0, 0};
}

/* The table: zeroed anonymous memory, in 2 MiB pages where the kernel offers them (transparent huge pages:
   a random probe then rarely misses the TLB, and filling the table faults 512 times less). */
static void *table_alloc(size_t bytes) {
    void *table = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (table == MAP_FAILED) return NULL;
#ifdef MADV_HUGEPAGE
    madvise(table, bytes, MADV_HUGEPAGE);
#endif
    return table;
}

static void table_free(Core *c) {
    if (c->table) munmap(c->table, c->buckets * c->bucket_bytes);
    c->table = NULL;
}

/* Put an entry in its bucket: over the same key (keeping the larger rank: a position proved again from the table
   is cheap only while its children stay there), else over an empty slot or the one of the smallest rank; with
   `keep` (when a grown table takes back the old one's entries), never over an entry of as large a rank. */
static void place(Core *c, u128 key, int low, int high, int best, int rank, int keep) {
    uint64_t k0 = (uint64_t)key, k1 = (uint64_t)(key >> 64);
    int found;
    if (c->narrow) {
        Narrow *target = find_narrow(((NarrowBucket *)c->table)[slot_of(c, key)].entry, k0, k1, &found);
        if (keep && target->rank >= rank) return;
        if (found && target->rank > rank) rank = target->rank;
        if (!target->rank) c->filled++;
        *target = (Narrow){k0, (int8_t)low, (int8_t)high, (uint8_t)best, (uint8_t)rank};
        return;
    }
    Entry *target = find_wide((Entry *)c->table + slot_of(c, key) * BUCKET, k0, k1, &found);
    if (keep && target->rank >= rank) return;
    if (found && target->rank > rank) rank = target->rank;
    if (!target->rank) c->filled++;  /* grown at a quarter full: few buckets overflow before */
    *target = (Entry){k0, k1, (int8_t)low, (int8_t)high, (uint8_t)best, (uint8_t)rank};
}

/* An entry of a table of this layout, read from slot i of bucket b: where it is, its key and its fields (rank 0: the
   slot is empty). */
typedef struct {
    void *at;
    size_t size;
    u128 key;
    int low, high, best, rank;
} Stored;

static inline Stored stored_at(const Core *c, const void *table, uint64_t b, int i) {
    if (c->narrow) {
        const Narrow *e = &((const NarrowBucket *)table)[b].entry[i];
        return (Stored){(void *)e, sizeof *e, e->k0, e->low, e->high, e->best, e->rank};
    }
    const Entry *e = (const Entry *)table + b * BUCKET + i;
    return (Stored){(void *)e, sizeof *e, (u128)e->k1 << 64 | e->k0, e->low, e->high, e->best, e->rank};
}

/* Put every entry of `buckets` buckets of another table of this layout (of any size) into this one, none over an
   entry of as large a subtree: how a checkpoint's table is read into one of another size. */
static void put_back(Core *c, const void *from, uint64_t buckets) {
    for (uint64_t b = 0; b < buckets; b++)
        for (int i = 0; i < c->bucket; i++) {
            Stored e = stored_at(c, from, b, i);
            if (e.rank) place(c, e.key, e.low, e.high, e.best, e.rank, 1);
        }
}

/* The table's mapping made `bytes` long, its entries where they were and the rest zero; NULL where the memory cannot
   be had. Linux moves the pages (mremap): the old and the new table are never both in memory. */
static void *table_extend(void *table, size_t old_bytes, size_t bytes) {
#ifdef MREMAP_MAYMOVE
    void *extended = mremap(table, old_bytes, bytes, MREMAP_MAYMOVE);
    if (extended == MAP_FAILED) return NULL;
#ifdef MADV_HUGEPAGE
    madvise(extended, bytes, MADV_HUGEPAGE);
#endif
    return extended;
#else
    void *extended = table_alloc(bytes);
    if (!extended) return NULL;
    memcpy(extended, table, old_bytes);
    munmap(table, old_bytes);
    return extended;
#endif
}

/* Double the table (up to max_buckets) in place: a table grows with the solve, so a small solve never pays for
   zeroing the gigabytes a large one may take, and a large one never holds its old and new table at once (1.5 times
   --memory at the last growth, which killed a solve of 15 GiB on a 24 GiB machine). An entry's bucket only moves up
   as the table grows (slot_of scales the hash to the buckets), so the old buckets are visited from the last down:
   where an entry moves to has been visited, and holds nothing left to move. Where the memory cannot be had it
   stays. */
static void grow(Core *c) {
    uint64_t old_buckets = c->buckets, buckets = old_buckets * 2;
    if (buckets > c->max_buckets) buckets = c->max_buckets;
    void *table = table_extend(c->table, old_buckets * c->bucket_bytes, buckets * c->bucket_bytes);
    if (!table) {
        c->max_buckets = old_buckets;
        return;
    }
    c->table = table;
    c->buckets = buckets;
    for (uint64_t b = old_buckets; b-- > 0;)
        for (int i = 0; i < c->bucket; i++) {
            Stored e = stored_at(c, c->table, b, i);
            if (!e.rank || slot_of(c, e.key) == b) continue;
            memset(e.at, 0, e.size);
            c->filled--;
            place(c, e.key, e.low, e.high, e.best, e.rank, 1);
        }
}

/* Keep the entry for the same key, else replace the one with the smallest subtree. An entry's rank is 1 + log2 of the
   nodes searched to prove it, not the free lines it had: a position with many free lines that a cut settled at once
   is cheap to prove again. In a full 16 MiB table that took hexagons 3x5 with border, misère, after
   17,36,48,46,45 from 551.5 M to 288.4 M nodes (its value), 4x3 with border, misère 9.35 M -> 7.98 M, and
   hexagons 2x4 after 0,1,2 10.36 M -> 9.42 M; keeping a key's larger rank when it is stored again: 7.98 M ->
   7.81 M, 9.42 M -> 9.39 M, and 3x5 after 17,36,48,46,45,13,23 6.80 M -> 6.67 M. */
static void store(Core *c, u128 key, int low, int high, int best, uint64_t nodes) {
    place(c, key, low, high, best, 64 - __builtin_clzll(nodes), 0);
    if (c->filled * 4 > c->buckets * c->bucket && c->buckets < c->max_buckets) grow(c);
}

/* A child position as its search begins, worked out by its parent's transposition cutoffs (etc_cut): its lines
   after its free captures, what they took, its key (and the symmetry that gave it), the capturable cells left. */
typedef struct {
    u128 drawn, key;
    uint64_t singles;
    int gain, which;
} Prepared;

typedef struct {
    int line, closed;
    uint64_t suspects; /* normal play: the cells that may be capturable after it (take_free's `suspects`) */
    uint64_t order;
    u128 after;
} Move;

/* Enhanced transposition cutoff: whether the table already proves one of the moves reaches beta (each child probed
   as search() would key it, after its free captures in normal play); then *best and *best_line are that move's. */
static int etc_cut(Core *c, const Move *moves, int n, int beta, int sign, int *best, int *best_line,
                   Prepared *children) {
    /* every child's bucket asked of the memory first, then read: the probes' cache misses overlap instead of
       following each other (they were most of a node's time on the large boards); what each child's search would
       work out first is kept in `children` for it */
    for (int i = 0; i < n; i++) {
        Prepared *child = &children[i];
        child->drawn = moves[i].after;
        child->gain = 0;
        child->singles = 0;
        if (c->chain_rules && !c->misere)
            child->gain = take_free(c, &child->drawn, moves[i].suspects, &child->singles);
        child->key = key_of(c, child->drawn, &child->which);
        prefetch_bucket(c, child->key);
    }
    for (int i = 0; i < n; i++) {
        Probe entry = lookup(c, children[i].key);
        if (!entry.found) continue;
        int gain = children[i].gain;
        int value = moves[i].closed ? moves[i].closed * sign + gain + entry.low : -(gain + entry.high);
        if (value >= beta) {
            *best = value;
            *best_line = moves[i].line;
            return 1;
        }
    }
    return 0;
}

/* Negamax: the mover's best objective (cells won minus lost, negated in misère). `suspects`: take_free's (in
   normal play, the cells of `drawn` that may be capturable); `ready` (or NULL): what the parent's transposition
   cutoffs worked out of `drawn` already. */
static int search(Core *c, u128 drawn, int alpha, int beta, int open_cells, uint64_t suspects, const Prepared *ready) {
    uint64_t nodes_before = c->nodes;
    c->nodes++;
    if ((c->nodes & 4095) == 0) {
        if (c->has_deadline && now(c->clock_id) > c->deadline) {
            c->stop = 1;
            return 0;
        }
        if ((c->nodes & 0xFFFFF) == 0 && PyErr_CheckSignals() < 0) {
            c->stop = 2;
            return 0;
        }
        if (c->tick && (c->nodes & 0x3FFFF) == 0 && now(CLOCK_MONOTONIC) >= c->next_tick) {
            PyObject *done = PyObject_CallNoArgs(c->tick);
            if (!done) {
                c->stop = 2;
                return 0;
            }
            Py_DECREF(done);
            c->next_tick = now(CLOCK_MONOTONIC) + c->tick_seconds;
        }
    }
    int sign = c->misere ? -1 : 1;
    /* misère has no capture or chain rule: the one it had (double-dealing where no safe line is left) fails in 4
       positions of hexagons 3x4 and 4x3 with border, and saved no nodes (bots/brains/proof.py) */
    int normal_rules = c->chain_rules && !c->misere;
    int gain = 0;
    uint64_t singles = 0;
    if (ready) {
        drawn = ready->drawn;
        gain = ready->gain;
        singles = ready->singles;
    } else if (normal_rules) {
        gain = take_free(c, &drawn, suspects, &singles);
    }
    alpha -= gain;
    beta -= gain;
    open_cells -= gain;
    if (!open_cells) return gain;
    if (alpha >= open_cells) return gain + open_cells;
    if (beta <= -open_cells) return gain - open_cells;
    int which = ready ? ready->which : 0;
    u128 key = ready ? ready->key : key_of(c, drawn, &which);
    Probe entry = lookup(c, key);
    int low, high, hint = -1;
    if (entry.found) {
        low = entry.low;
        high = entry.high;
        if (low >= beta || low == high) return gain + low;
        if (high <= alpha) return gain + high;
        if (alpha < low) alpha = low;
        if (beta > high) beta = high;
        hint = c->inverse[which][entry.best];
    } else {
        low = -open_cells;
        high = open_cells;
    }
    u128 candidates = normal_rules && singles ? chain_moves(c, drawn, singles) : 0;
    u128 free = c->full & ~drawn;
    if (!candidates) {
        candidates = free & c->internal;
        for (int cell = 0; cell < c->n_cells; cell++) {
            u128 border = c->border_mask[cell] & free;
            if (border) candidates |= border & -border;
        }
    }
    /* order: the table's line, captures, safe lines (between two cells first, then fewest free
       sides left), sacrifices; each group in line order */
    Move moves[MAX_LINES];
    int n = 0;
    for (u128 rest = candidates; rest; rest &= rest - 1) {
        int line = lowest(rest);
        u128 after = drawn | bit(line);
        int closed = 0, spare = 0, risky = 0;
        for (int t = 0; t < c->n_touch[line]; t++) {
            u128 left = c->cell_mask[c->touch[line][t]] & ~after;
            if (!left) closed++;
            else if (single(left)) risky = 1;
            spare += popcount(left);
        }
        /* group (2 bits); in misère the history (most cutoffs first: 0.82-1.11x the nodes, 0.94x over six positions;
           in normal play 2.4x the nodes of hexagons 2x4 after 3 lines, so it orders misère only); the kind of safe
           line (between two cells first, then fewest free sides left); the line */
        uint64_t group, kind = 0, rank = 0;
        if (line == hint) group = 0;
        else if (closed) group = 1;  /* misère too: captures last or sacrifices first cost 1.5-4x the nodes */
        else {
            group = risky ? 3 : 2;
            if (c->misere) rank = HISTORY_CAP - (c->history[line] < HISTORY_CAP ? c->history[line] : HISTORY_CAP);
            if (!risky) kind = (2 - c->n_touch[line]) * 16 + spare;
        }
        Move move = {line, closed, singles | c->touch_cells[line], group << 60 | rank << 16 | kind << 8 |
                     (uint64_t)line, after};
        int i = n++;
        while (i > 0 && moves[i - 1].order > move.order) {
            moves[i] = moves[i - 1];
            i--;
        }
        moves[i] = move;
    }
    int start_alpha = alpha;
    int best = -open_cells - 1, best_line = -1;
    Prepared children[MAX_LINES];
    int prepared = popcount(free) >= c->etc_free;
    int cut = prepared && etc_cut(c, moves, n, beta, sign, &best, &best_line, children);
    int ply = c->ply;
    if (ply < PATH_PLIES) c->path_n[ply] = n;
    for (int i = 0; i < n && !cut; i++) {
        if (ply < PATH_PLIES) {
            c->path_i[ply] = i + 1;
            if (ply + 1 < PATH_PLIES) c->path_n[ply + 1] = 0;
        }
        int value;
        c->ply = ply + 1;
        if (moves[i].closed) {
            int won = moves[i].closed * sign;
            value = won + search(c, moves[i].after, alpha - won, beta - won, open_cells - moves[i].closed,
                                 moves[i].suspects, prepared ? &children[i] : NULL);
        } else {
            value = -search(c, moves[i].after, -beta, -alpha, open_cells, moves[i].suspects,
                            prepared ? &children[i] : NULL);
        }
        c->ply = ply;
        if (c->stop) return 0;
        if (value > best) {
            best = value;
            best_line = moves[i].line;
            if (value > alpha) {
                alpha = value;
                if (alpha >= beta) {
                    if (c->misere) c->history[moves[i].line] += (uint64_t)popcount(free) * popcount(free);
                    break;
                }
            }
        }
    }
    if (best <= start_alpha) {
        if (best < high) high = best;
    } else if (best >= beta) {
        if (best > low) low = best;
    } else {
        low = high = best;
    }
    store(c, key, low, high, c->perm[which][best_line], c->nodes - nodes_before);
    return gain + best;
}

/* ---- the proof of the reductions against plain search (bots/brains/proof.py) -------------- */

enum { R_FREE, R_CHAIN, R_BORDER, R_SYMMETRY, R_TWINS, R_SEARCH, RULES };
static const char *const RULE_NAMES[RULES] = {"free captures", "chain rule", "border lines", "symmetries",
                                              "pieces of three", "search"};

typedef struct {
    const int8_t *value; /* plain search's value of every subset of the free lines (bots/brains/_retrograde.c) */
    u128 predrawn;
    uint32_t index[CHUNKS][256]; /* a position's index among the subsets, a byte of the lines at a time */
    u128 lines[4][256];          /* and back: the lines of a byte of an index */
} Proof;

static inline uint32_t index_of(const Proof *p, u128 drawn) {
    uint32_t out = 0;
    for (int k = 0; k < CHUNKS && drawn; k++, drawn >>= 8) out |= p->index[k][(unsigned)(drawn & 0xFF)];
    return out;
}

/* Plain search's value of drawing `line` in `drawn`: the cells it closes (the move stays) or the next mover's. */
static inline int move_value(const Core *c, const Proof *p, u128 drawn, int line) {
    u128 after = drawn | bit(line);
    int closed = 0;
    for (int t = 0; t < c->n_touch[line]; t++) closed += !(c->cell_mask[c->touch[line][t]] & ~after);
    int next = p->value[index_of(p, after)];
    return closed ? closed * (c->misere ? -1 : 1) + next : -next;
}

/* prove(values, predrawn_low64, predrawn_high64, search) -> [(rule, positions it applied in, wrong, first wrong)]:
   each reduction this core's search makes, evaluated by the search's own functions in every position (every subset
   of the free lines, 2**len(values) of them), against plain search's values. With `search`, the whole search too:
   the null windows just below and just above each position's value, from the full board down in one table. */
static PyObject *Core_prove(Core *c, PyObject *args) {
    Py_buffer view;
    unsigned long long lo, hi;
    int with_search;
    if (!PyArg_ParseTuple(args, "y*KKp", &view, &lo, &hi, &with_search)) return NULL;
    Proof *p = calloc(1, sizeof *p);
    if (!p) {
        PyBuffer_Release(&view);
        return PyErr_NoMemory();
    }
    p->value = view.buf;
    p->predrawn = (u128)hi << 64 | lo;
    int free_lines[32], k = 0;
    for (u128 rest = c->full & ~p->predrawn; rest; rest &= rest - 1) {
        if (k == 30) break;
        free_lines[k++] = lowest(rest);
    }
    if (popcount(c->full & ~p->predrawn) != k || view.len != (Py_ssize_t)1 << k) {
        PyErr_Format(PyExc_ValueError, "prove: %zd values for %d free lines (at most 30)", view.len,
                     popcount(c->full & ~p->predrawn));
        PyBuffer_Release(&view);
        free(p);
        return NULL;
    }
    for (int i = 0; i < k; i++)
        for (int byte = 0; byte < 256; byte++) {
            int line = free_lines[i];
            if (byte >> (line & 7) & 1) p->index[line >> 3][byte] |= (uint32_t)1 << i;
            if (byte >> (i & 7) & 1) p->lines[i >> 3][byte] |= bit(line);
        }
    uint64_t applied[RULES] = {0}, wrong[RULES] = {0};
    u128 example[RULES] = {0};
    int normal_rules = c->chain_rules && !c->misere;
    c->stop = 0;
    for (uint64_t s = ((uint64_t)1 << k); s-- > 0;) {
        u128 drawn = p->predrawn;
        for (int b = 0; b < 4; b++) drawn |= p->lines[b][(s >> (8 * b)) & 0xFF];
        int v = p->value[s], bad;
#define VERDICT(rule, is_wrong)                                 \
    do {                                                        \
        applied[rule]++;                                        \
        if ((is_wrong) && !wrong[rule]++) example[rule] = drawn; \
    } while (0)
        if (normal_rules) {
            u128 after = drawn;
            int gain = take_free(c, &after, c->all_cells, NULL);
            if (after != drawn) VERDICT(R_FREE, v != gain + p->value[index_of(p, after)]);
        }
        u128 forced = normal_rules ? chain_moves(c, drawn, c->all_cells) : 0;
        if (forced) {
            int best = -1000;
            for (u128 rest = forced; rest; rest &= rest - 1) {
                int value = move_value(c, p, drawn, lowest(rest));
                if (value > best) best = value;
            }
            VERDICT(R_CHAIN, best != v);
        }
        /* a cell's free border lines: only the lowest is searched */
        int border_cells = 0;
        bad = 0;
        for (int cell = 0; cell < c->n_cells; cell++) {
            u128 border = c->border_mask[cell] & ~drawn;
            if (popcount(border) < 2) continue;
            border_cells++;
            int first = move_value(c, p, drawn, lowest(border));
            for (u128 rest = border & (border - 1); rest; rest &= rest - 1)
                bad |= move_value(c, p, drawn, lowest(rest)) != first;
        }
        if (border_cells) VERDICT(R_BORDER, bad);
        /* the table's key is the least image under the symmetries: each image has the same value */
        bad = 0;
        int images = 0;
        for (int q = 1; q < c->n_perms; q++) {
            u128 image = 0, rest = drawn;
            for (int b = 0; b < c->chunks; b++, rest >>= 8) image |= c->images[q - 1][b][(unsigned)(rest & 0xFF)];
            if ((image & p->predrawn) != p->predrawn) continue;
            images++;
            bad |= p->value[index_of(p, image)] != v;
        }
        if (images) VERDICT(R_SYMMETRY, bad);
        /* a piece of three on offer: normal play takes it (chain_moves), so taking it is worth the position's value;
           in both rule sets its two lines are worth the same (misère does not use that: it saved no time) */
        bad = 0;
        int pieces = 0;
        for (int cell = 0; cell < c->n_cells; cell++) {
            u128 rest = c->cell_mask[cell] & ~drawn;
            if (!single(rest)) continue;
            int line = lowest(rest), m = triple(c, drawn, line);
            if (m < line) continue;
            pieces++;
            bad |= move_value(c, p, drawn, line) != move_value(c, p, drawn, m);
            if (!c->misere) bad |= v != 3 + p->value[index_of(p, drawn | bit(line) | bit(m))];
        }
        if (pieces) VERDICT(R_TWINS, bad);
        if (with_search) {
            int open = 0;
            for (int cell = 0; cell < c->n_cells; cell++) open += (c->cell_mask[cell] & ~drawn) != 0;
            int below = search(c, drawn, v - 1, v, open, c->all_cells, NULL);
            int above = c->stop ? 0 : search(c, drawn, v, v + 1, open, c->all_cells, NULL);
            if (c->stop) break;
            VERDICT(R_SEARCH, below < v || above > v);
        }
#undef VERDICT
    }
    PyBuffer_Release(&view);
    free(p);
    if (c->stop == 2) return NULL;
    if (c->stop == 1) Py_RETURN_NONE;
    PyObject *out = PyList_New(0);
    for (int rule = 0; out && rule < RULES; rule++) {
        PyObject *first = wrong[rule] ? PyLong_FromUnsignedLongLong((uint64_t)example[rule]) : Py_NewRef(Py_None);
        if (first && wrong[rule] && example[rule] >> 64) {
            Py_DECREF(first);
            PyObject *low = PyLong_FromUnsignedLongLong((uint64_t)example[rule]);
            PyObject *high = PyLong_FromUnsignedLongLong((uint64_t)(example[rule] >> 64));
            PyObject *shift = PyLong_FromLong(64);
            PyObject *up = high && shift ? PyNumber_Lshift(high, shift) : NULL;
            first = up && low ? PyNumber_Or(up, low) : NULL;
            Py_XDECREF(low);
            Py_XDECREF(high);
            Py_XDECREF(shift);
            Py_XDECREF(up);
        }
        PyObject *row = first ? Py_BuildValue("(sKKN)", RULE_NAMES[rule], applied[rule], wrong[rule], first) : NULL;
        if (!row || PyList_Append(out, row) < 0) Py_CLEAR(out);
        Py_XDECREF(row);
    }
    return out;
}

/* ---- the Python type ---------------------------------------------------------------------- */

static void Core_dealloc(Core *c) {
    Py_XDECREF(c->tick);
    table_free(c);
    free(c->images);
    Py_TYPE(c)->tp_free((PyObject *)c);
}

static int read_ints(PyObject *seq, int *out, int max, const char *what) {
    PyObject *fast = PySequence_Fast(seq, what);
    if (!fast) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    if (n > max) {
        PyErr_Format(PyExc_ValueError, "%s: %zd items, at most %d", what, n, max);
        Py_DECREF(fast);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, i));
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(fast);
            return -1;
        }
        out[i] = (int)v;
    }
    Py_DECREF(fast);
    return (int)n;
}

/* The ints of seq[index] (at most MAX_LINES), or -1 with a Python error. */
static int read_item(PyObject *seq, Py_ssize_t index, int *out, const char *what) {
    PyObject *item = PySequence_GetItem(seq, index);
    if (!item) return -1;
    int count = read_ints(item, out, MAX_LINES, what);
    Py_DECREF(item);
    return count;
}

/* Core(n_lines, cells, perms, misere, chain_rules, max_entries, entries, etc_free=0): a table of `entries` growing
   to `max_entries`; enhanced transposition cutoffs where at least `etc_free` lines are free */
static int Core_init(Core *c, PyObject *args, PyObject *kwds) {
    int n_lines, misere, chain_rules, etc_free = 0;
    unsigned long long max_entries, entries;
    PyObject *cells, *perms;
    if (!PyArg_ParseTuple(args, "iOOppKK|i", &n_lines, &cells, &perms, &misere, &chain_rules, &max_entries, &entries,
                          &etc_free))
        return -1;
    if (entries > max_entries) entries = max_entries;
    if (n_lines < 1 || n_lines > MAX_LINES) {
        PyErr_Format(PyExc_ValueError, "the C solver handles 1-%d lines, not %d", MAX_LINES, n_lines);
        return -1;
    }
    if (entries < 16 || max_entries > (1ULL << 36)) {
        PyErr_SetString(PyExc_ValueError, "table entries must be 16 to 2**36");
        return -1;
    }
    c->n_lines = n_lines;
    c->misere = misere;
    c->chain_rules = chain_rules;
    c->etc_free = etc_free;
    c->full = n_lines == 128 ? ~(u128)0 : bit(n_lines) - 1;
    memset(c->n_touch, 0, sizeof c->n_touch);
    memset(c->history, 0, sizeof c->history);
    int n_cells = (int)PySequence_Size(cells);
    if (n_cells < 0) return -1;
    if (n_cells > MAX_CELLS) {
        PyErr_Format(PyExc_ValueError, "the C solver handles at most %d cells, not %d", MAX_CELLS, n_cells);
        return -1;
    }
    c->n_cells = n_cells;
    for (int cell = 0; cell < n_cells; cell++) {
        int lines[MAX_LINES];
        int count = read_item(cells, cell, lines, "cell lines");
        if (count < 0) return -1;
        c->cell_mask[cell] = 0;
        for (int i = 0; i < count; i++) {
            int line = lines[i];
            if (line < 0 || line >= n_lines || c->n_touch[line] == 2) {
                PyErr_Format(PyExc_ValueError, "cell %d: bad line %d", cell, line);
                return -1;
            }
            c->cell_mask[cell] |= bit(line);
            c->touch[line][c->n_touch[line]++] = cell;
        }
    }
    memset(c->touch_cells, 0, sizeof c->touch_cells);
    for (int line = 0; line < n_lines; line++)
        for (int t = 0; t < c->n_touch[line]; t++) c->touch_cells[line] |= 1ULL << c->touch[line][t];
    c->all_cells = n_cells == 64 ? ~0ULL : (1ULL << n_cells) - 1;
    c->internal = 0;
    for (int line = 0; line < n_lines; line++)
        if (c->n_touch[line] == 2) c->internal |= bit(line);
    for (int cell = 0; cell < n_cells; cell++) c->border_mask[cell] = c->cell_mask[cell] & ~c->internal;
    int n_perms = (int)PySequence_Size(perms);
    if (n_perms < 1 || n_perms > MAX_PERMS) {
        PyErr_Format(PyExc_ValueError, "1-%d symmetries (the identity first), not %d", MAX_PERMS, n_perms);
        return -1;
    }
    c->n_perms = n_perms;
    c->chunks = (n_lines + 7) / 8;
    free(c->images);
    c->images = calloc(n_perms, sizeof *c->images);
    if (!c->images) {
        PyErr_NoMemory();
        return -1;
    }
    for (int p = 0; p < n_perms; p++) {
        int image[MAX_LINES];
        int count = read_item(perms, p, image, "symmetry");
        if (count < 0) return -1;
        if (count != n_lines) {
            PyErr_Format(PyExc_ValueError, "symmetry %d maps %d lines, not %d", p, count, n_lines);
            return -1;
        }
        for (int line = 0; line < n_lines; line++) {
            if (image[line] < 0 || image[line] >= n_lines) {
                PyErr_Format(PyExc_ValueError, "symmetry %d: bad image %d", p, image[line]);
                return -1;
            }
            c->perm[p][line] = (uint8_t)image[line];
            c->inverse[p][image[line]] = (uint8_t)line;
        }
        if (p == 0) continue;
        for (int k = 0; k < c->chunks; k++)
            for (int byte = 0; byte < 256; byte++) {
                u128 out = 0;
                for (int b = 0; b < 8; b++) {
                    int line = k * 8 + b;
                    if ((byte >> b & 1) && line < n_lines) out |= bit(image[line]);
                }
                c->images[p - 1][k][byte] = out;
            }
    }
    table_free(c);
    c->narrow = n_lines <= 64;
    c->bucket = c->narrow ? NARROW_BUCKET : BUCKET;
    c->bucket_bytes = c->narrow ? sizeof(NarrowBucket) : BUCKET * sizeof(Entry);
    c->buckets = entries / c->bucket;
    c->max_buckets = max_entries / c->bucket;
    if (c->buckets < 4) c->buckets = 4;
    if (c->max_buckets < c->buckets) c->max_buckets = c->buckets;
    c->table = table_alloc(c->buckets * c->bucket_bytes);
    if (!c->table) {
        PyErr_NoMemory();
        return -1;
    }
    c->filled = 0;
    c->nodes = 0;
    c->has_deadline = 0;
    return 0;
}

static PyObject *Core_search(Core *c, PyObject *args) {
    unsigned long long lo, hi;
    int alpha, beta, open_cells;
    if (!PyArg_ParseTuple(args, "KKiii", &lo, &hi, &alpha, &beta, &open_cells)) return NULL;
    c->stop = 0;
    c->ply = 0;
    memset(c->path_n, 0, sizeof c->path_n);
    int value = search(c, (u128)hi << 64 | lo, alpha, beta, open_cells, c->all_cells, NULL);
    if (c->stop == 2) return NULL;
    if (c->stop == 1) Py_RETURN_NONE;
    return PyLong_FromLong(value);
}

/* set_deadline(seconds or None, cpu): a time.monotonic (or time.process_time, cpu=True) instant */
static PyObject *Core_set_deadline(Core *c, PyObject *args) {
    PyObject *deadline;
    int cpu;
    if (!PyArg_ParseTuple(args, "Op", &deadline, &cpu)) return NULL;
    c->clock_id = cpu ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_MONOTONIC;
    c->has_deadline = deadline != Py_None;
    if (c->has_deadline) {
        c->deadline = PyFloat_AsDouble(deadline);
        if (PyErr_Occurred()) return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *Core_clear(Core *c, PyObject *Py_UNUSED(ignored)) {
    memset(c->table, 0, c->buckets * c->bucket_bytes);
    c->filled = 0;
    Py_RETURN_NONE;
}

/* table(): the table's bytes as a writable memoryview (a checkpoint writes and reads them whole) */
static PyObject *Core_table(Core *c, PyObject *Py_UNUSED(ignored)) {
    return PyMemoryView_FromMemory((char *)c->table, (Py_ssize_t)(c->buckets * c->bucket_bytes), PyBUF_WRITE);
}

/* absorb(buffer): put the entries of whole buckets of a table of this layout but another size (a checkpoint's,
   read a part at a time) into this table, none over an entry of as large a subtree; returns the entries in use */
static PyObject *Core_absorb(Core *c, PyObject *args) {
    Py_buffer view;
    if (!PyArg_ParseTuple(args, "y*", &view)) return NULL;
    if (view.len % (Py_ssize_t)c->bucket_bytes) {
        PyErr_Format(PyExc_ValueError, "absorb: %zd bytes are not whole buckets of %zu", view.len, c->bucket_bytes);
        PyBuffer_Release(&view);
        return NULL;
    }
    put_back(c, view.buf, (uint64_t)view.len / c->bucket_bytes);
    PyBuffer_Release(&view);
    return PyLong_FromUnsignedLongLong(c->filled);
}

/* recount(): count the entries in use again (after the table was read back), and return the count */
static PyObject *Core_recount(Core *c, PyObject *Py_UNUSED(ignored)) {
    uint64_t filled = 0;
    for (uint64_t b = 0; b < c->buckets; b++)
        for (int i = 0; i < c->bucket; i++)
            filled += c->narrow ? ((NarrowBucket *)c->table)[b].entry[i].rank != 0
                                : ((Entry *)c->table)[b * BUCKET + i].rank != 0;
    c->filled = filled;
    return PyLong_FromUnsignedLongLong(filled);
}

/* probe(low64, high64): (low, high, best line) stored for a position, or None */
static PyObject *Core_probe(Core *c, PyObject *args) {
    unsigned long long lo, hi;
    if (!PyArg_ParseTuple(args, "KK", &lo, &hi)) return NULL;
    int which;
    u128 key = key_of(c, (u128)hi << 64 | lo, &which);
    Probe entry = lookup(c, key);
    if (!entry.found) Py_RETURN_NONE;
    return Py_BuildValue("iii", entry.low, entry.high, c->inverse[which][entry.best]);
}

/* set_tick(callable or None, seconds): call it about every `seconds` (time.monotonic) while searching */
static PyObject *Core_set_tick(Core *c, PyObject *args) {
    PyObject *tick;
    double seconds;
    if (!PyArg_ParseTuple(args, "Od", &tick, &seconds)) return NULL;
    Py_XDECREF(c->tick);
    c->tick = tick == Py_None ? NULL : tick;
    Py_XINCREF(c->tick);
    c->tick_seconds = seconds;
    c->next_tick = now(CLOCK_MONOTONIC) + seconds;
    Py_RETURN_NONE;
}

static PyObject *Core_get_nodes(Core *c, void *Py_UNUSED(closure)) { return PyLong_FromUnsignedLongLong(c->nodes); }

static PyObject *Core_get_filled(Core *c, void *Py_UNUSED(closure)) { return PyLong_FromUnsignedLongLong(c->filled); }

static PyObject *Core_get_entries(Core *c, void *Py_UNUSED(closure)) {
    return PyLong_FromUnsignedLongLong(c->buckets * c->bucket);
}

static PyObject *Core_get_max_entries(Core *c, void *Py_UNUSED(closure)) {
    return PyLong_FromUnsignedLongLong(c->max_buckets * c->bucket);
}

static PyObject *Core_get_layout(Core *c, void *Py_UNUSED(closure)) {
    return PyLong_FromLong(c->narrow ? NARROW_LAYOUT : LAYOUT);
}

static PyObject *Core_get_entry_bytes(Core *c, void *Py_UNUSED(closure)) {
    return PyLong_FromLong(c->narrow ? (long)sizeof(Narrow) : (long)sizeof(Entry));
}

static int Core_set_nodes(Core *c, PyObject *value, void *Py_UNUSED(closure)) {
    unsigned long long nodes = PyLong_AsUnsignedLongLong(value);
    if (nodes == (unsigned long long)-1 && PyErr_Occurred()) return -1;
    c->nodes = nodes;
    return 0;
}

static PyMethodDef Core_methods[] = {
    {"search", (PyCFunction)Core_search, METH_VARARGS,
     "search(low64, high64, alpha, beta, open_cells) -> the mover's objective, or None past the deadline"},
    {"set_deadline", (PyCFunction)Core_set_deadline, METH_VARARGS,
     "set_deadline(instant or None, cpu): stop searching past time.monotonic() (cpu: time.process_time())"},
    {"clear", (PyCFunction)Core_clear, METH_NOARGS, "forget the transposition table"},
    {"table", (PyCFunction)Core_table, METH_NOARGS, "the table's bytes, a writable memoryview"},
    {"recount", (PyCFunction)Core_recount, METH_NOARGS, "count the entries in use again; returns the count"},
    {"absorb", (PyCFunction)Core_absorb, METH_VARARGS,
     "absorb(buffer): put the entries of whole buckets of another table of this layout into this one"},
    {"probe", (PyCFunction)Core_probe, METH_VARARGS, "probe(low64, high64) -> (low, high, best line) or None"},
    {"prove", (PyCFunction)Core_prove, METH_VARARGS,
     "prove(values, predrawn_low64, predrawn_high64, search) -> [(rule, applied, wrong, first wrong position)]"},
    {"set_tick", (PyCFunction)Core_set_tick, METH_VARARGS,
     "set_tick(callable or None, seconds): call it about every `seconds` while searching"},
    {NULL, NULL, 0, NULL},
};

static PyObject *Core_get_etc_free(Core *c, void *Py_UNUSED(closure)) { return PyLong_FromLong(c->etc_free); }

static PyObject *Core_get_path(Core *c, void *Py_UNUSED(closure)) {
    PyObject *path = PyList_New(0);
    for (int ply = 0; path && ply < PATH_PLIES && c->path_n[ply]; ply++) {
        PyObject *step = Py_BuildValue("(ii)", c->path_i[ply], c->path_n[ply]);
        if (!step || PyList_Append(path, step) < 0) Py_CLEAR(path);
        Py_XDECREF(step);
    }
    return path;
}

static int Core_set_etc_free(Core *c, PyObject *value, void *Py_UNUSED(closure)) {
    long etc_free = PyLong_AsLong(value);
    if (etc_free == -1 && PyErr_Occurred()) return -1;
    c->etc_free = (int)etc_free;
    return 0;
}

static PyGetSetDef Core_getset[] = {
    {"etc_free", (getter)Core_get_etc_free, (setter)Core_set_etc_free,
     "transposition cutoffs where at least this many lines are free", NULL},
    {"nodes", (getter)Core_get_nodes, (setter)Core_set_nodes, "positions searched since the counter was reset", NULL},
    {"path", (getter)Core_get_path, NULL,
     "where the last search stands (or stopped): [(move searched, moves)] at its first plies, from the top", NULL},
    {"filled", (getter)Core_get_filled, NULL, "table entries in use", NULL},
    {"entries", (getter)Core_get_entries, NULL, "table entries (the table grows as it fills)", NULL},
    {"max_entries", (getter)Core_get_max_entries, NULL, "the most entries the table grows to", NULL},
    {"layout", (getter)Core_get_layout, NULL, "the table's layout: LAYOUT (wide) or NARROW_LAYOUT (64 lines or fewer)",
     NULL},
    {"entry_bytes", (getter)Core_get_entry_bytes, NULL, "bytes of one entry (ENTRY_BYTES or NARROW_ENTRY_BYTES)", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject CoreType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "bots.brains._solvecore.Core",
    .tp_basicsize = sizeof(Core),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Core(n_lines, cells, symmetries, misere, chain_rules, max_entries, entries, etc_free=0): the solver's search",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Core_init,
    .tp_dealloc = (destructor)Core_dealloc,
    .tp_methods = Core_methods,
    .tp_getset = Core_getset,
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_solvecore", "The exact solver's search in C (see bots/brains/solver.py).", -1, NULL,
};

PyMODINIT_FUNC PyInit__solvecore(void) {
    if (PyType_Ready(&CoreType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    Py_INCREF(&CoreType);
    if (PyModule_AddObject(m, "Core", (PyObject *)&CoreType) < 0) {
        Py_DECREF(&CoreType);
        Py_DECREF(m);
        return NULL;
    }
    PyModule_AddIntConstant(m, "MAX_LINES", MAX_LINES);
    PyModule_AddIntConstant(m, "MAX_CELLS", MAX_CELLS);
    PyModule_AddIntConstant(m, "ENTRY_BYTES", sizeof(Entry));
    /* what a wide table's bytes mean (Entry, slot_of, BUCKET, place): a checkpoint of another layout is refused */
    PyModule_AddIntConstant(m, "LAYOUT", LAYOUT);
    /* boards of up to 64 lines: 12-byte entries, five in a 64-byte bucket (NarrowBucket) */
    PyModule_AddIntConstant(m, "NARROW_LAYOUT", NARROW_LAYOUT);
    PyModule_AddIntConstant(m, "NARROW_ENTRY_BYTES", sizeof(Narrow));
    PyModule_AddIntConstant(m, "NARROW_BUCKET", NARROW_BUCKET);
    return m;
}

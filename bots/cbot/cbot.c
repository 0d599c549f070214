/* cbot: a hexarena bot in C with libzmq, speaking protocol v1 (protocol/PROTOCOL.md).
 *
 * It reads the whole board from GAME (cells as line lists, pre-drawn lines) and keeps
 * the drawn lines in sync from DRAWN, so it has no geometry code and plays every
 * size, geometry and option. Strategy: close a cell when it can; otherwise draw a
 * line that leaves every cell at least two sides short; otherwise the line that
 * lets the next player take the fewest cells. Ties are broken by a generator seeded
 * with the game's seed, so a game is reproducible.
 *
 * Environment (§2): HEXARENA_ENDPOINT, HEXARENA_TOKEN, HEXARENA_NAME; over tcp with
 * CURVE also HEXARENA_SERVER_KEY, HEXARENA_PUBLIC_KEY, HEXARENA_SECRET_KEY (Z85).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

/* ---- the game as the bot sees it ---------------------------------------- */

typedef struct {
    int seat, players, misere;
    int nlines, ncells;
    int *cell_start, *cell_lines;  /* cell c has lines cell_lines[cell_start[c] .. cell_start[c+1]) */
    int *line_cells;               /* two cells per line, -1 when the line borders one cell */
    unsigned char *drawn;          /* per line */
    int *count;                    /* drawn sides per cell */
    uint64_t rng;
} Game;

static Game game;
static int in_game = 0;

static uint64_t next_random(void) {  /* xorshift64* */
    game.rng ^= game.rng >> 12;
    game.rng ^= game.rng << 25;
    game.rng ^= game.rng >> 27;
    return game.rng * 2685821657736338717ULL;
}

static int sides(int cell) { return game.cell_start[cell + 1] - game.cell_start[cell]; }

static void draw(int line, int delta) {
    game.drawn[line] = delta > 0;
    for (int k = 0; k < 2; k++) {
        int cell = game.line_cells[2 * line + k];
        if (cell >= 0) game.count[cell] += delta;
    }
}

/* ---- a small JSON reader, enough for the GAME object --------------------- */

static const char *skip_ws(const char *p) {
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
    return p;
}

static const char *skip_value(const char *p) {
    p = skip_ws(p);
    if (*p == '"') {
        for (p++; *p && *p != '"'; p++)
            if (*p == '\\' && p[1]) p++;
        return *p ? p + 1 : p;
    }
    if (*p == '[' || *p == '{') {
        int depth = 0;
        for (; *p; p++) {
            if (*p == '"') { p = skip_value(p) - 1; continue; }
            if (*p == '[' || *p == '{') depth++;
            if ((*p == ']' || *p == '}') && --depth == 0) return p + 1;
        }
        return p;
    }
    while (*p && *p != ',' && *p != '}' && *p != ']') p++;
    return p;
}

/* The value of top-level key `key` in object `json`, or NULL. */
static const char *find_key(const char *json, const char *key) {
    const char *p = skip_ws(json);
    if (*p != '{') return NULL;
    p++;
    size_t len = strlen(key);
    while (*(p = skip_ws(p)) == '"') {
        const char *name = p + 1;
        const char *end = skip_value(p);
        int match = (size_t)(end - 1 - name) == len && strncmp(name, key, len) == 0;
        p = skip_ws(end);
        if (*p != ':') return NULL;
        p = skip_ws(p + 1);
        if (match) return p;
        p = skip_ws(skip_value(p));
        if (*p == ',') p++;
    }
    return NULL;
}

/* Reads the integers of a flat list "[1,2,3]" into out (may be NULL); returns how many. */
static int read_ints(const char *p, int *out) {
    int n = 0;
    if (!p || *p != '[') return 0;
    for (p++; *p && *p != ']'; ) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p) { p++; continue; }
        if (out) out[n] = (int)v;
        n++;
        p = end;
    }
    return n;
}

static void free_game(void) {
    free(game.cell_start); free(game.cell_lines); free(game.line_cells);
    free(game.drawn); free(game.count);
    memset(&game, 0, sizeof game);
    in_game = 0;
}

static int start_game(const char *json) {
    free_game();
    const char *seat = find_key(json, "seat"), *players = find_key(json, "players");
    const char *lines = find_key(json, "lines"), *cells = find_key(json, "cells");
    const char *predrawn = find_key(json, "predrawn"), *seed = find_key(json, "seed");
    const char *misere = find_key(json, "misere");
    if (!seat || !players || !lines || !cells || !predrawn || *lines != '[' || *cells != '[') return -1;
    game.seat = atoi(seat);
    game.players = atoi(players);
    game.misere = misere && strncmp(misere, "true", 4) == 0;

    /* count lines and cells, then the total of cell sides */
    for (const char *p = skip_ws(lines + 1); *p == '['; p = skip_ws(p)) {
        game.nlines++;
        p = skip_ws(skip_value(p));
        if (*p == ',') p++;
    }
    int total = 0;
    for (const char *p = skip_ws(cells + 1); *p == '['; p = skip_ws(p)) {
        game.ncells++;
        total += read_ints(p, NULL);
        p = skip_ws(skip_value(p));
        if (*p == ',') p++;
    }
    game.cell_start = calloc(game.ncells + 1, sizeof(int));
    game.cell_lines = calloc(total + 1, sizeof(int));
    game.line_cells = malloc(2 * (game.nlines + 1) * sizeof(int));
    game.drawn = calloc(game.nlines + 1, 1);
    game.count = calloc(game.ncells + 1, sizeof(int));
    int *pre = calloc(game.nlines + 1, sizeof(int));
    for (int i = 0; i < 2 * game.nlines; i++) game.line_cells[i] = -1;

    int c = 0, at = 0;
    for (const char *p = skip_ws(cells + 1); *p == '['; p = skip_ws(p), c++) {
        game.cell_start[c] = at;
        int n = read_ints(p, game.cell_lines + at);
        for (int k = at; k < at + n; k++) {
            int line = game.cell_lines[k];
            if (line < 0 || line >= game.nlines) { free(pre); return -1; }
            game.line_cells[2 * line + (game.line_cells[2 * line] >= 0)] = c;
        }
        at += n;
        p = skip_ws(skip_value(p));
        if (*p == ',') p++;
    }
    game.cell_start[c] = at;
    int npre = read_ints(predrawn, pre);
    for (int i = 0; i < npre; i++)
        if (pre[i] >= 0 && pre[i] < game.nlines && !game.drawn[pre[i]]) draw(pre[i], +1);
    free(pre);
    game.rng = (seed ? strtoull(seed, NULL, 10) : 1) * 0x9E3779B97F4A7C15ULL + (uint64_t)game.seat + 1;
    in_game = 1;
    return 0;
}

/* ---- choosing a line ------------------------------------------------------ */

/* Does drawing `line` close a cell (1), bring one to its last missing side (-1), or neither (0)? */
static int effect(int line) {
    int result = 0;
    for (int k = 0; k < 2; k++) {
        int cell = game.line_cells[2 * line + k];
        if (cell < 0) continue;
        int after = game.count[cell] + 1;
        if (after == sides(cell)) return 1;
        if (after == sides(cell) - 1) result = -1;
    }
    return result;
}

/* How many cells the next player can take in a row after `line` is drawn. */
static int given_away(int line) {
    int *taken = malloc(game.nlines * sizeof(int)), ntaken = 0, cells = 0;
    draw(line, +1);
    for (int progress = 1; progress; ) {
        progress = 0;
        for (int l = 0; l < game.nlines; l++) {
            if (game.drawn[l] || effect(l) != 1) continue;
            for (int k = 0; k < 2; k++) {
                int cell = game.line_cells[2 * l + k];
                if (cell >= 0 && game.count[cell] + 1 == sides(cell)) cells++;
            }
            draw(l, +1);
            taken[ntaken++] = l;
            progress = 1;
        }
    }
    while (ntaken) draw(taken[--ntaken], -1);
    draw(line, -1);
    free(taken);
    return cells;
}

static int choose(void) {
    int *pool = malloc(game.nlines * sizeof(int)), n = 0, nsafe = 0, best = -1, fewest = 1 << 30;
    for (int l = 0; l < game.nlines; l++) {
        if (game.drawn[l]) continue;
        int e = effect(l);
        if (e == 1) { free(pool); return l; }
        if (e == 0) pool[nsafe++] = l;
    }
    if (nsafe) {
        int line = pool[next_random() % nsafe];
        free(pool);
        return line;
    }
    for (int l = 0; l < game.nlines; l++) {
        if (game.drawn[l]) continue;
        int cost = given_away(l);
        if (cost < fewest) { fewest = cost; n = 0; }
        if (cost == fewest) pool[n++] = l;
    }
    if (n) best = pool[next_random() % n];
    free(pool);
    return best;
}

/* ---- the conversation ----------------------------------------------------- */

static void send_text(void *socket, const char *text) {
    if (zmq_send(socket, text, strlen(text), 0) < 0) {
        fprintf(stderr, "cbot: send failed: %s\n", zmq_strerror(zmq_errno()));
        exit(1);
    }
}

/* The next message as a NUL-terminated string (caller frees). */
static char *receive(void *socket) {
    zmq_msg_t msg;
    zmq_msg_init(&msg);
    if (zmq_msg_recv(&msg, socket, 0) < 0) {
        fprintf(stderr, "cbot: receive failed: %s\n", zmq_strerror(zmq_errno()));
        exit(1);
    }
    size_t size = zmq_msg_size(&msg);
    char *text = malloc(size + 1);
    memcpy(text, zmq_msg_data(&msg), size);
    text[size] = '\0';
    zmq_msg_close(&msg);
    return text;
}

static void set_key(void *socket, int option, const char *variable) {
    const char *key = getenv(variable);
    if (!key || strlen(key) != 40 || zmq_setsockopt(socket, option, key, 41) != 0) {
        fprintf(stderr, "cbot: %s must be a 40-character Z85 key\n", variable);
        exit(2);
    }
}

int main(void) {
    const char *endpoint = getenv("HEXARENA_ENDPOINT"), *token = getenv("HEXARENA_TOKEN");
    const char *name = getenv("HEXARENA_NAME");
    if (!endpoint || !token) {
        fprintf(stderr, "cbot: HEXARENA_ENDPOINT and HEXARENA_TOKEN not set: bots are started by the referee\n");
        return 2;
    }
    void *context = zmq_ctx_new();
    void *socket = zmq_socket(context, ZMQ_DEALER);
    int linger = 1000;
    zmq_setsockopt(socket, ZMQ_LINGER, &linger, sizeof linger);
    if (getenv("HEXARENA_SERVER_KEY")) {
        set_key(socket, ZMQ_CURVE_SERVERKEY, "HEXARENA_SERVER_KEY");
        set_key(socket, ZMQ_CURVE_PUBLICKEY, "HEXARENA_PUBLIC_KEY");
        set_key(socket, ZMQ_CURVE_SECRETKEY, "HEXARENA_SECRET_KEY");
    }
    if (zmq_connect(socket, endpoint) != 0) {
        fprintf(stderr, "cbot: cannot connect to %s: %s\n", endpoint, zmq_strerror(zmq_errno()));
        return 1;
    }
    char line[512];
    snprintf(line, sizeof line, "HELLO v1 %s %s", token, name && *name && !strchr(name, ' ') ? name : "cbot");
    send_text(socket, line);

    for (;;) {
        char *text = receive(socket);
        if (strncmp(text, "GAME ", 5) == 0) {
            if (start_game(text + 5) != 0) fprintf(stderr, "cbot: cannot read GAME\n");
        } else if (strncmp(text, "DRAWN ", 6) == 0 && in_game) {
            int seat, drawn;
            if (sscanf(text + 6, "%d %d", &seat, &drawn) == 2 && drawn >= 0 && drawn < game.nlines
                && !game.drawn[drawn])
                draw(drawn, +1);
        } else if (strncmp(text, "TURN ", 5) == 0 && in_game) {
            long id = strtol(text + 5, NULL, 10);
            snprintf(line, sizeof line, "MOVE %ld %d", id, choose());
            send_text(socket, line);
        } else if (strncmp(text, "END ", 4) == 0) {
            free_game();
        } else if (strncmp(text, "BYE", 3) == 0) {
            free(text);
            break;
        } else if (strncmp(text, "WELCOME ", 8) != 0 && strncmp(text, "FORFEIT ", 8) != 0) {
            fprintf(stderr, "cbot: unexpected message: %.60s\n", text);
        }
        free(text);
    }
    free_game();
    zmq_close(socket);
    zmq_ctx_term(context);
    return 0;
}

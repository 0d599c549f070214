/* Plain search by retrograde analysis: the value of every position of a board, for checking the solver.
 *
 * Written apart from the solver's search (bots/brains/_solvecore.c) and sharing none of its code, so that it checks
 * it rather than repeating it: no reductions, no table, no pruning, no symmetry. A position is a subset of the free
 * lines, numbered 0..k-1 (bit i: the i-th free line is drawn); a line only ever adds a bit, so a position's value
 * depends on its supersets alone, and one pass from the full set down to the empty set gives them all:
 *
 *     value[s] = max over free lines b of s:  closed(s, b) * sign + value[s | b]   if b closes a cell (the move stays)
 *                                             -value[s | b]                        otherwise (the move passes)
 *
 * value is the mover's future margin (cells it takes minus cells the other takes from here on; negated in misère,
 * sign = -1), int8 (at most 64 cells). values(k, cells, misere) -> bytearray of 2**k values, k at most 30.
 *
 * solve() below is the same pass as the solver's exact method (bots/brains/retrograde.py), over fewer positions: a
 * cell's border lines counted, not told apart. It still shares nothing with the search, which the proofs check
 * against values().
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>

#define MAX_FREE 30
#define MAX_CELLS 128

static PyObject *values(PyObject *Py_UNUSED(module), PyObject *args) {
    int k, misere;
    PyObject *cells;
    if (!PyArg_ParseTuple(args, "iOp", &k, &cells, &misere)) return NULL;
    if (k < 0 || k > MAX_FREE) {
        PyErr_Format(PyExc_ValueError, "retrograde: 0-%d free lines, not %d", MAX_FREE, k);
        return NULL;
    }
    /* per free line: the masks (over the free lines) of the cells it is a side of, at most two */
    uint32_t touch[MAX_FREE][2];
    int n_touch[MAX_FREE] = {0};
    Py_ssize_t n_cells = PySequence_Size(cells);
    if (n_cells < 0) return NULL;
    if (n_cells > MAX_CELLS) {
        PyErr_Format(PyExc_ValueError, "retrograde: at most %d cells, not %zd", MAX_CELLS, n_cells);
        return NULL;
    }
    for (Py_ssize_t c = 0; c < n_cells; c++) {
        PyObject *cell = PySequence_GetItem(cells, c);
        if (!cell) return NULL;
        PyObject *fast = PySequence_Fast(cell, "retrograde: a cell is a sequence of free-line numbers");
        Py_DECREF(cell);
        if (!fast) return NULL;
        uint32_t mask = 0;
        Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
        for (Py_ssize_t i = 0; i < n; i++) {
            long line = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, i));
            if (line < 0 || line >= k) {
                Py_DECREF(fast);
                if (!PyErr_Occurred()) PyErr_Format(PyExc_ValueError, "retrograde: free line %ld of 0-%d", line, k - 1);
                return NULL;
            }
            mask |= (uint32_t)1 << line;
        }
        Py_DECREF(fast);
        for (int line = 0; line < k; line++)
            if (mask >> line & 1) {
                if (n_touch[line] == 2) {
                    PyErr_Format(PyExc_ValueError, "retrograde: free line %d is a side of three cells", line);
                    return NULL;
                }
                touch[line][n_touch[line]++] = mask;
            }
    }
    uint64_t count = (uint64_t)1 << k, full = count - 1;
    PyObject *out = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)count);
    if (!out) return NULL;
    int8_t *value = (int8_t *)PyByteArray_AS_STRING(out);
    int sign = misere ? -1 : 1;
    Py_BEGIN_ALLOW_THREADS
    value[full] = 0;
    for (uint64_t s = full; s-- > 0;) {
        int best = -128;
        for (uint64_t rest = full & ~s; rest; rest &= rest - 1) {
            int line = __builtin_ctzll(rest);
            uint64_t after = s | (uint64_t)1 << line;
            int closed = 0;
            for (int t = 0; t < n_touch[line]; t++) closed += (touch[line][t] & ~after) == 0;
            int v = closed ? closed * sign + value[after] : -value[after];
            if (v > best) best = v;
        }
        value[s] = (int8_t)best;
    }
    Py_END_ALLOW_THREADS
    return out;
}

/* solve(internal, cells, misere, watch=None, every=2**22) -> (value, internal_moves, border_moves): the solver's
 * exact method where the positions fit in memory (bots/brains/retrograde.py). The same pass as `values`, over a
 * smaller set of positions: a cell's free border lines (sides of that cell only) are interchangeable, so a position
 * is the subset of the `internal` free lines drawn (bits 0..internal-1) and, per cell, how many of its free border
 * lines are drawn (a mixed-radix digit). Every move adds to the index, so one pass from the last index down gives
 * every value, keeping a ring of the last blocks only (the cells' order sets its size: the cell with the most border
 * lines last makes it smallest, bots/brains/retrograde.py). cells: per cell, (its free internal lines, its number of
 * free border lines). The result: the root's
 * value, and the value of each first move (None where it is not a move), internal lines then each cell's border.
 * `watch` is called every `every` positions with the positions done (an exception it raises stops the pass), and
 * SIGINT is checked there too.
 */
#define MAX_INTERNAL 40
#define MAX_SOLVE_CELLS 64

static PyObject *solve(PyObject *Py_UNUSED(module), PyObject *args) {
    int n_internal, misere;
    PyObject *cells, *watch = Py_None;
    unsigned long long every = 1ULL << 22;
    if (!PyArg_ParseTuple(args, "iOp|OK", &n_internal, &cells, &misere, &watch, &every)) return NULL;
    if (n_internal < 0 || n_internal > MAX_INTERNAL) {
        PyErr_Format(PyExc_ValueError, "retrograde: 0-%d internal lines, not %d", MAX_INTERNAL, n_internal);
        return NULL;
    }
    Py_ssize_t n_cells = PySequence_Size(cells);
    if (n_cells < 0) return NULL;
    if (n_cells > MAX_SOLVE_CELLS) {
        PyErr_Format(PyExc_ValueError, "retrograde: at most %d cells, not %zd", MAX_SOLVE_CELLS, n_cells);
        return NULL;
    }
    uint64_t inner[MAX_SOLVE_CELLS], radix[MAX_SOLVE_CELLS];
    int border[MAX_SOLVE_CELLS], touch[MAX_INTERNAL][2], n_touch[MAX_INTERNAL] = {0};
    double high_size = 1; /* blocks of 2**n_internal positions, one per combination of border counts */
    for (Py_ssize_t c = 0; c < n_cells; c++) {
        long lines_border;
        PyObject *lines;
        PyObject *cell = PySequence_GetItem(cells, c);
        if (!cell) return NULL;
        int ok = PyArg_ParseTuple(cell, "Ol", &lines, &lines_border);
        if (ok && (lines_border < 0 || lines_border > 6)) {
            PyErr_Format(PyExc_ValueError, "retrograde: a cell has 0-6 free border lines, not %ld", lines_border);
            ok = 0;
        }
        PyObject *fast = ok ? PySequence_Fast(lines, "retrograde: a cell's internal lines are a sequence") : NULL;
        Py_DECREF(cell);
        if (!fast) return NULL;
        inner[c] = 0;
        for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(fast); i++) {
            long line = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, i));
            if (line < 0 || line >= n_internal || n_touch[line] == 2) {
                Py_DECREF(fast);
                if (!PyErr_Occurred())
                    PyErr_Format(PyExc_ValueError, "retrograde: internal line %ld is not one of 0-%d or a side of "
                                 "three cells", line, n_internal - 1);
                return NULL;
            }
            inner[c] |= (uint64_t)1 << line;
            touch[line][n_touch[line]++] = (int)c;
        }
        Py_DECREF(fast);
        border[c] = (int)lines_border;
        radix[c] = (uint64_t)high_size;
        high_size *= lines_border + 1;
    }
    double total = high_size * (double)((uint64_t)1 << n_internal);
    if (total > (double)((uint64_t)1 << 40)) {
        PyErr_Format(PyExc_MemoryError, "retrograde: %.0f positions, more than 2**40", total);
        return NULL;
    }
    /* a block is read by the blocks at most one radix below it: with the cells ordered by their border lines, the
       last cell's radix, so a ring of that many blocks plus one holds all the pass reads (slot: block % ring) */
    uint64_t low_size = (uint64_t)1 << n_internal, low_full = low_size - 1, blocks = (uint64_t)high_size, ring = 1;
    for (Py_ssize_t c = 0; c < n_cells; c++)
        if (border[c] && radix[c] + 1 > ring) ring = radix[c] + 1;
    int8_t *value = malloc(low_size * ring);
    if (!value) return PyErr_NoMemory();
    int sign = misere ? -1 : 1, failed = 0, bordered[MAX_SOLVE_CELLS], n_bordered = 0;
    for (Py_ssize_t c = 0; c < n_cells; c++)
        if (border[c]) bordered[n_bordered++] = (int)c; /* the cells a border move can be drawn in */
    uint64_t done = 0, next_watch = every ? every : UINT64_MAX;
    Py_BEGIN_ALLOW_THREADS
    for (uint64_t hi = blocks; hi-- > 0 && !failed;) {
        int count[MAX_SOLVE_CELLS];
        uint64_t complete = 0; /* the cells whose border lines are all drawn */
        for (Py_ssize_t c = 0; c < n_cells; c++) {
            count[c] = (int)(hi / radix[c] % (uint64_t)(border[c] + 1));
            if (count[c] == border[c]) complete |= (uint64_t)1 << c;
        }
        int8_t *block = value + hi % ring * low_size;
        for (uint64_t s = low_size; s-- > 0;) {
            int best = -128, moved = 0;
            for (uint64_t rest = low_full & ~s; rest; rest &= rest - 1) {
                int line = __builtin_ctzll(rest);
                uint64_t after = s | (uint64_t)1 << line;
                int closed = 0;
                for (int t = 0; t < n_touch[line]; t++) {
                    int c = touch[line][t];
                    closed += (complete >> c & 1) && !(inner[c] & ~after);
                }
                int v = closed ? closed * sign + block[after] : -block[after];
                if (v > best) best = v;
                moved = 1;
            }
            for (int k = 0; k < n_bordered; k++) {
                int c = bordered[k];
                if (count[c] == border[c]) continue;
                int8_t next = value[(hi + radix[c]) % ring * low_size + s];
                int v = count[c] + 1 == border[c] && !(inner[c] & ~s) ? sign + next : -next;
                if (v > best) best = v;
                moved = 1;
            }
            block[s] = (int8_t)(moved ? best : 0);
            if (++done == next_watch) {
                next_watch += every;
                Py_BLOCK_THREADS
                if (PyErr_CheckSignals() < 0) failed = 1;
                if (!failed && watch != Py_None) {
                    PyObject *answer = PyObject_CallFunction(watch, "K", (unsigned long long)done);
                    if (answer) Py_DECREF(answer);
                    else failed = 1;
                }
                Py_UNBLOCK_THREADS
                if (failed) break;
            }
        }
    }
    Py_END_ALLOW_THREADS
    if (failed) {
        free(value);
        return NULL;
    }
    /* the first moves from the root (index 0: nothing of the free lines drawn) */
    PyObject *internal_moves = PyList_New(n_internal), *border_moves = PyList_New(n_cells);
    if (!internal_moves || !border_moves) {
        Py_XDECREF(internal_moves);
        Py_XDECREF(border_moves);
        free(value);
        return NULL;
    }
    uint64_t root_complete = 0;
    for (Py_ssize_t c = 0; c < n_cells; c++)
        if (border[c] == 0) root_complete |= (uint64_t)1 << c;
    for (int line = 0; line < n_internal; line++) {
        uint64_t after = (uint64_t)1 << line;
        int closed = 0;
        for (int t = 0; t < n_touch[line]; t++) {
            int c = touch[line][t];
            closed += (root_complete >> c & 1) && !(inner[c] & ~after);
        }
        PyList_SET_ITEM(internal_moves, line, PyLong_FromLong(closed ? closed * sign + value[after] : -value[after]));
    }
    for (Py_ssize_t c = 0; c < n_cells; c++) {
        PyObject *item = Py_None;
        if (border[c]) {
            int8_t next = value[radix[c] * low_size];
            item = PyLong_FromLong(border[c] == 1 && !inner[c] ? sign + next : -next);
        } else {
            Py_INCREF(item);
        }
        PyList_SET_ITEM(border_moves, c, item);
    }
    int root = value[0];
    free(value);
    return Py_BuildValue("(iNN)", root, internal_moves, border_moves);
}

static PyMethodDef methods[] = {
    {"values", values, METH_VARARGS,
     "values(k, cells, misere) -> bytearray: the mover's future margin (negated in misère) of every subset of k free "
     "lines; cells: each cell's free lines (0..k-1)"},
    {"solve", solve, METH_VARARGS,
     "solve(internal, cells, misere, watch=None, every=2**22) -> (value, internal_moves, border_moves): the root's "
     "value and each first move's, a cell's free border lines counted, not told apart; cells: (internal lines, free "
     "border lines) each"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_retrograde", "Plain retrograde search over every position (checks the solver).", -1,
    methods,
};

PyMODINIT_FUNC PyInit__retrograde(void) { return PyModule_Create(&module); }

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
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

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

static PyMethodDef methods[] = {
    {"values", values, METH_VARARGS,
     "values(k, cells, misere) -> bytearray: the mover's future margin (negated in misère) of every subset of k free "
     "lines; cells: each cell's free lines (0..k-1)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_retrograde", "Plain retrograde search over every position (checks the solver).", -1,
    methods,
};

PyMODINIT_FUNC PyInit__retrograde(void) { return PyModule_Create(&module); }

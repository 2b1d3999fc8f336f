/* The plain-JSON check of reference/canonical.py (`_scan`) at C speed.
 *
 * scan(value) -> 1 when `value` is plain JSON holding a float, 0 when it is plain JSON without one,
 * -1 when the Python check would refuse it. Plain JSON: exact dict (exact str keys), exact list,
 * exact str, bool, None, exact int in [-2^63, 2^64 - 1], finite exact float, no dict or list
 * nested 128 or more deep (the root container is at depth 1). The caller runs the Python check
 * on -1 to raise its exact error, so this file only decides, never words a refusal.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>

#define MAX_JSON_DEPTH 128

enum { REFUSED = -1, PLAIN = 0, HAS_FLOAT = 1 };

static int scan_value(PyObject *value, int depth, int *has_float);

static int scan_int(PyObject *value) {
    int overflow = 0;
    long long as_signed = PyLong_AsLongLongAndOverflow(value, &overflow);
    if (as_signed == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        return REFUSED;
    }
    if (overflow == 0) {
        return PLAIN; /* within i64 */
    }
    if (overflow < 0) {
        return REFUSED; /* below i64 */
    }
    unsigned long long as_unsigned = PyLong_AsUnsignedLongLong(value);
    if (as_unsigned == (unsigned long long)-1 && PyErr_Occurred()) {
        PyErr_Clear();
        return REFUSED; /* above u64 */
    }
    return PLAIN;
}

static int scan_value(PyObject *value, int depth, int *has_float) {
    /* `depth`: the nesting `value` has if it is a container (the root is at 1). */
    if (value == Py_None || value == Py_True || value == Py_False || PyUnicode_CheckExact(value)) {
        return PLAIN;
    }
    if (PyLong_CheckExact(value)) {
        return scan_int(value);
    }
    if (PyFloat_CheckExact(value)) {
        if (!isfinite(PyFloat_AS_DOUBLE(value))) {
            return REFUSED;
        }
        *has_float = 1;
        return PLAIN;
    }
    if (PyDict_CheckExact(value)) {
        if (depth >= MAX_JSON_DEPTH) {
            return REFUSED;
        }
        PyObject *key;
        PyObject *item;
        Py_ssize_t position = 0;
        while (PyDict_Next(value, &position, &key, &item)) {
            if (!PyUnicode_CheckExact(key)) {
                return REFUSED;
            }
            if (scan_value(item, depth + 1, has_float) == REFUSED) {
                return REFUSED;
            }
        }
        return PLAIN;
    }
    if (PyList_CheckExact(value)) {
        if (depth >= MAX_JSON_DEPTH) {
            return REFUSED;
        }
        /* The list may not change under us: nothing here runs Python code. */
        for (Py_ssize_t index = 0; index < PyList_GET_SIZE(value); index++) {
            if (scan_value(PyList_GET_ITEM(value, index), depth + 1, has_float) == REFUSED) {
                return REFUSED;
            }
        }
        return PLAIN;
    }
    return REFUSED;
}

static PyObject *scan(PyObject *module, PyObject *value) {
    (void)module;
    int has_float = 0;
    if (scan_value(value, 1, &has_float) == REFUSED) {
        return PyLong_FromLong(REFUSED);
    }
    return PyLong_FromLong(has_float ? HAS_FLOAT : PLAIN);
}

static PyMethodDef methods[] = {
    {"scan", scan, METH_O,
     "scan(value) -> 1 plain JSON with a float, 0 plain JSON without one, -1 not plain JSON."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_definition = {
    PyModuleDef_HEAD_INIT, "_jsonscan", "The plain-JSON check of reference.canonical at C speed.", -1, methods,
};

PyMODINIT_FUNC PyInit__jsonscan(void) { return PyModule_Create(&module_definition); }

/* Checks of reference/canonical.py and reference/json_scan.py at C speed. Each function only decides
 * the common, well-formed case; on anything else it answers "ask Python", and the Python code (the
 * definition of the check) decides and words every refusal. So nothing here can accept what the
 * Python code refuses, or refuse with another message.
 *
 * scan(value) -> 1 when `value` is plain JSON holding a float, 0 when it is plain JSON without one,
 * -1 when the Python check (`canonical._scan`) would refuse it. Plain JSON: exact dict (exact str
 * keys), exact list, exact str, bool, None, exact int in [-2^63, 2^64 - 1], finite exact float, no
 * dict or list nested 128 or more deep (the root container is at depth 1).
 *
 * members(value) -> the number of object members in a plain JSON value, or -1 when it holds a float.
 *
 * text_facts(data, limit) -> (depth, colons, negative_zero) of JSON text, read as
 * `json_scan._chunk_structure` reads it: a quote opens or closes a string unless an odd run of
 * backslashes stands right before it; brackets, commas and colons outside strings are structure.
 * `depth` is the deepest nesting (json_scan.max_depth), or -1 once it reaches `limit`; `colons` the
 * colons outside strings (one per object member in valid JSON); `negative_zero` whether a number
 * outside strings is the integer -0.
 *
 * root_separators(data, max_members) -> the (position, byte, level) of every comma and colon of the
 * root object and of its closing brace, as json_scan.root_members collects them, or None when the
 * text is not one cleanly closed object with at most `max_members` members (json_scan then decides).
 *
 * The text passes jump over string interiors (memchr to the next quote or backslash) and whitespace runs,
 * which are most of the bytes of a base64 parameter or a padded wire.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <string.h>

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

static Py_ssize_t count_members(PyObject *value) {
    /* Members of every object in a plain JSON value; -1 when it holds a float. */
    if (PyFloat_CheckExact(value)) {
        return -1;
    }
    Py_ssize_t total = 0;
    if (PyDict_CheckExact(value)) {
        PyObject *key;
        PyObject *item;
        Py_ssize_t position = 0;
        total = PyDict_GET_SIZE(value);
        while (PyDict_Next(value, &position, &key, &item)) {
            Py_ssize_t inner = count_members(item);
            if (inner < 0) {
                return -1;
            }
            total += inner;
        }
    } else if (PyList_CheckExact(value)) {
        for (Py_ssize_t index = 0; index < PyList_GET_SIZE(value); index++) {
            Py_ssize_t inner = count_members(PyList_GET_ITEM(value, index));
            if (inner < 0) {
                return -1;
            }
            total += inner;
        }
    }
    return total;
}

static PyObject *members(PyObject *module, PyObject *value) {
    (void)module;
    return PyLong_FromSsize_t(count_members(value));
}

/* One pass over JSON text, as json_scan reads it. */
typedef struct {
    int in_string;
    Py_ssize_t backslashes; /* the run of backslashes ending right before the current byte */
} Reader;

/* Whether `byte` at the reader's position is structure outside strings; updates the string state. */
static int structural(Reader *reader, unsigned char byte) {
    if (byte == '\\') {
        reader->backslashes++;
        return 0;
    }
    Py_ssize_t run = reader->backslashes;
    reader->backslashes = 0;
    if (byte == '"') {
        if (run % 2 == 0) {
            reader->in_string = !reader->in_string;
        }
        return 0;
    }
    if (reader->in_string) {
        return 0;
    }
    return byte == '[' || byte == ']' || byte == '{' || byte == '}' || byte == ',' || byte == ':';
}

static int is_whitespace(unsigned char byte) {
    return byte == ' ' || byte == '\t' || byte == '\n' || byte == '\r';
}

/* The first position from `index` whose byte `structural` has to see: the bytes skipped could change
 * nothing (inside a string with no backslash run pending: every byte but a quote or a backslash; outside
 * strings: whitespace), except ending a backslash run, which is done here. */
static Py_ssize_t next_to_read(Reader *reader, const unsigned char *data, Py_ssize_t index, Py_ssize_t size) {
    if (index >= size) {
        return index;
    }
    if (reader->in_string && reader->backslashes == 0) {
        const unsigned char *from = data + index;
        const unsigned char *quote = memchr(from, '"', (size_t)(size - index));
        Py_ssize_t stop = quote == NULL ? size : quote - data;
        const unsigned char *backslash = memchr(from, '\\', (size_t)(stop - index));
        return backslash == NULL ? stop : backslash - data;
    }
    if (!reader->in_string && is_whitespace(data[index])) {
        reader->backslashes = 0;
        while (size - index >= 8 && memcmp(data + index, "        ", 8) == 0) {
            index += 8;
        }
        while (index < size && is_whitespace(data[index])) {
            index++;
        }
    }
    return index;
}

static int is_number_continuation(unsigned char byte) {
    return byte == '.' || byte == 'e' || byte == 'E' || (byte >= '0' && byte <= '9');
}

/* The bytes and the integer of a (data, number) call; -1, with the exception set, on other arguments. */
static int text_and_number(PyObject *const *args, Py_ssize_t nargs, const char *usage, Py_buffer *view,
                           Py_ssize_t *number) {
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, usage);
        return -1;
    }
    if (PyObject_GetBuffer(args[0], view, PyBUF_SIMPLE) < 0) {
        return -1;
    }
    *number = PyLong_AsSsize_t(args[1]);
    if (*number == -1 && PyErr_Occurred()) {
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

static PyObject *text_facts(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    Py_buffer view;
    Py_ssize_t limit;
    if (text_and_number(args, nargs, "text_facts(data, limit)", &view, &limit) < 0) {
        return NULL;
    }
    const unsigned char *data = view.buf;
    Py_ssize_t size = view.len;
    Reader reader = {0, 0};
    Py_ssize_t depth = 0;
    Py_ssize_t deepest = 0;
    Py_ssize_t colons = 0;
    int negative_zero = 0;
    for (Py_ssize_t index = next_to_read(&reader, data, 0, size); index < size;
         index = next_to_read(&reader, data, index + 1, size)) {
        unsigned char byte = data[index];
        if (byte == '-' && !reader.in_string) {
            reader.backslashes = 0;
            if (index + 1 < size && data[index + 1] == '0' &&
                (index + 2 >= size || !is_number_continuation(data[index + 2]))) {
                negative_zero = 1;
            }
            continue;
        }
        if (!structural(&reader, byte)) {
            continue;
        }
        if (byte == '[' || byte == '{') {
            depth++;
        } else if (byte == ']' || byte == '}') {
            depth--;
        } else if (byte == ':') {
            colons++;
        }
        if (depth > deepest) {
            deepest = depth;
        }
    }
    PyBuffer_Release(&view);
    return Py_BuildValue("(nnO)", deepest >= limit ? (Py_ssize_t)-1 : deepest, colons,
                         negative_zero ? Py_True : Py_False);
}

static PyObject *root_separators(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    Py_buffer view;
    Py_ssize_t max_members;
    if (text_and_number(args, nargs, "root_separators(data, max_members)", &view, &max_members) < 0) {
        return NULL;
    }
    const unsigned char *data = view.buf;
    Py_ssize_t size = view.len;
    PyObject *found = PyList_New(0);
    if (found == NULL) {
        PyBuffer_Release(&view);
        return NULL;
    }
    Py_ssize_t start = 0;
    while (start < size && is_whitespace(data[start])) {
        start++;
    }
    int clean = start < size && data[start] == '{';
    Reader reader = {0, 0};
    Py_ssize_t depth = 0;
    Py_ssize_t level = 0;
    Py_ssize_t close = -1;
    for (Py_ssize_t index = next_to_read(&reader, data, start, size); clean && index < size;
         index = next_to_read(&reader, data, index + 1, size)) {
        unsigned char byte = data[index];
        if (!structural(&reader, byte)) {
            continue;
        }
        if (byte == '[' || byte == '{') {
            depth++;
        } else if (byte == ']' || byte == '}') {
            depth--;
        }
        if (depth < 0) {
            clean = 0;
            break;
        }
        if (depth > level) {
            level = depth;
        }
        if (depth == 0 || (depth == 1 && (byte == ',' || byte == ':'))) {
            PyObject *entry = Py_BuildValue("(nin)", index, (int)byte, level);
            if (entry == NULL || PyList_Append(found, entry) < 0) {
                Py_XDECREF(entry);
                Py_DECREF(found);
                PyBuffer_Release(&view);
                return NULL;
            }
            Py_DECREF(entry);
            level = 0;
            if (PyList_GET_SIZE(found) > 2 * max_members + 1) {
                clean = 0;
                break;
            }
            if (depth == 0) {
                close = index;
                break;
            }
        }
    }
    if (clean && close >= 0) {
        for (Py_ssize_t index = close + 1; index < size; index++) {
            if (!is_whitespace(data[index])) {
                clean = 0;
                break;
            }
        }
    }
    PyBuffer_Release(&view);
    if (!clean || close < 0) {
        Py_DECREF(found);
        Py_RETURN_NONE;
    }
    return found;
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
    {"members", members, METH_O, "members(value) -> object members of a plain JSON value, -1 when it holds a float."},
    {"text_facts", (PyCFunction)(void (*)(void))text_facts, METH_FASTCALL,
     "text_facts(data, limit) -> (deepest nesting or -1 once it reaches limit, colons, integer -0 seen)."},
    {"root_separators", (PyCFunction)(void (*)(void))root_separators, METH_FASTCALL,
     "root_separators(data, max_members) -> [(position, byte, level)] of a cleanly closed root object, or None."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_definition = {
    .m_base = PyModuleDef_HEAD_INIT,
    .m_name = "_jsonscan",
    .m_doc = "Checks of reference.canonical and reference.json_scan at C speed.",
    .m_size = -1,
    .m_methods = methods,
};

PyMODINIT_FUNC PyInit__jsonscan(void) { return PyModule_Create(&module_definition); }

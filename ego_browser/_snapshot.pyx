# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Cython core of the snapshot engine: compaction, rendering and ref assignment.

Same contract and same output as ``ego_browser/snapshot/twin.py`` (read that module for the
node table and the rules); ``tests/test_snapshot_core.py`` checks them against each other.
"""

from cpython.unicode cimport PyUnicode_GET_LENGTH
from libc.stdlib cimport malloc, free
from cpython.object cimport PyObject
from cpython.dict cimport PyDict_GetItem

cdef extern from "Python.h":
    PyObject *PyDict_SetDefault(object d, object key, object default)
    bint PyUnicode_IS_ASCII(object u)
    Py_UCS4 PyUnicode_READ_CHAR(object u, Py_ssize_t index)
    bint Py_UNICODE_ISSPACE(Py_UCS4 ch)
    const char *PyUnicode_AsUTF8AndSize(object u, Py_ssize_t *size) except NULL
    object PyUnicode_DecodeUTF8(const char *s, Py_ssize_t size, const char *errors)

from libc.string cimport memcpy
from libc.stdlib cimport realloc


cdef struct Buf:
    char *data
    Py_ssize_t len
    Py_ssize_t cap


cdef int buf_grow(Buf *b, Py_ssize_t extra) except -1:
    cdef Py_ssize_t cap = b.cap
    cdef char *nd
    if b.len + extra <= cap:
        return 0
    while b.len + extra > cap:
        cap = cap * 2 + 64
    nd = <char *>realloc(b.data, cap)
    if nd == NULL:
        raise MemoryError()
    b.data = nd
    b.cap = cap
    return 0


cdef inline int buf_raw(Buf *b, const char *s, Py_ssize_t n) except -1:
    if b.len + n > b.cap:
        buf_grow(b, n)
    memcpy(b.data + b.len, s, n)
    b.len += n
    return 0


cdef inline int buf_str(Buf *b, str s) except -1:
    cdef Py_ssize_t n
    cdef const char *p = PyUnicode_AsUTF8AndSize(s, &n)
    return buf_raw(b, p, n)


cdef inline int buf_int(Buf *b, long v) except -1:
    cdef char tmp[24]
    cdef int i = 24
    if v == 0:
        return buf_raw(b, "0", 1)
    while v > 0:
        i -= 1
        tmp[i] = <char>(48 + v % 10)
        v //= 10
    return buf_raw(b, tmp + i, 24 - i)


cdef inline bint ascii_clean(str s) noexcept:
    """True when ``s`` is ASCII and clean_name would return it unchanged (fast path)."""
    cdef Py_ssize_t n, i
    cdef const unsigned char *p
    cdef unsigned char c
    cdef bint prev_space = True
    if not PyUnicode_IS_ASCII(s):
        return False
    p = <const unsigned char *>PyUnicode_AsUTF8AndSize(s, &n)
    for i in range(n):
        c = p[i]
        if c == 34 or c == 92:
            return False
        if c == 32:
            if prev_space:
                return False
            prev_space = True
        elif c <= 32 or (c >= 9 and c <= 13) or (c >= 28 and c <= 31):
            return False
        else:
            prev_space = False
    return not prev_space

__all__ = ["FLAG_REF", "INDENT", "render_tree", "is_blank", "clean_name"]

FLAG_REF = 1
DEF C_FLAG_REF = 1
#: spaces per level (same as twin.INDENT)
INDENT = 1
DEF C_INDENT = 1

cdef inline bint _zero_width(Py_UCS4 c) noexcept:
    if c == 0x00ad or c == 0x180e or c == 0xfeff:
        return True
    if 0x200b <= c <= 0x200f:
        return True
    if 0x2060 <= c <= 0x2064:
        return True
    if 0x202a <= c <= 0x202e:
        return True
    if 0x2066 <= c <= 0x2069:
        return True
    return False


cpdef bint is_blank(str text):
    cdef Py_ssize_t i, n = PyUnicode_GET_LENGTH(text)
    cdef Py_UCS4 c
    if n:
        c = PyUnicode_READ_CHAR(text, 0)
        if c > 32 and c < 127:
            return False
    for i in range(n):
        c = PyUnicode_READ_CHAR(text, i)
        if not (Py_UNICODE_ISSPACE(c) or _zero_width(c)):
            return False
    return True


cpdef str clean_name(str name):
    """Collapse whitespace runs to one space, trim, escape ``\\`` and ``"``."""
    cdef Py_ssize_t i, n = PyUnicode_GET_LENGTH(name)
    cdef Py_UCS4 c
    cdef bint prev_space = True
    cdef bint slow = False
    for i in range(n):
        c = PyUnicode_READ_CHAR(name, i)
        if c == 34 or c == 92:
            slow = True
            break
        if Py_UNICODE_ISSPACE(c):
            if c != 32 or prev_space:
                slow = True
                break
            prev_space = True
        else:
            prev_space = False
    if not slow and n and prev_space:
        slow = True  # trailing space
    if not slow:
        return name
    name = " ".join(name.split())
    if "\\" in name:
        name = name.replace("\\", "\\\\")
    if '"' in name:
        name = name.replace('"', '\\"')
    return name


# Scratch memory kept between calls: fresh megabyte-sized blocks cost page faults on every
# call. Calls are serialised by the GIL (nothing here runs Python code); a nested call, which
# cannot happen today, would take fresh memory.
cdef Py_ssize_t *g_ix = NULL
cdef Py_ssize_t g_ix_cap = 0
cdef char *g_out = NULL
cdef Py_ssize_t g_out_cap = 0
cdef bint g_busy = False
DEF KEEP_BYTES = 16 * 1024 * 1024


cdef inline Py_ssize_t _printed_children(const Py_ssize_t *first_child, const Py_ssize_t *next_sibling,
                                          const Py_ssize_t *eff, Py_ssize_t i) noexcept:
    """How many of node i's children print (0, 1, or 2 meaning "more than one")."""
    cdef Py_ssize_t count = 0
    cdef Py_ssize_t c = first_child[i]
    while c != -1:
        if eff[c] != -1:
            count += 1
            if count > 1:
                break
        c = next_sibling[c]
    return count


def render_tree(list depth, list role, list name, list flags, list key, list url, list loc,
                list state, list value, dict refs, long next_ref, bint marks, bint locs):
    """Compact and print the node table; see ``twin.render_tree``."""
    global g_ix, g_ix_cap, g_out, g_out_cap, g_busy
    cdef Py_ssize_t n = len(depth)
    if n == 0:
        return "", next_ref, []
    cdef Py_ssize_t i, j, c, count, single, sp, p, q
    cdef Py_ssize_t d
    cdef Py_ssize_t need = 10 * (n + 1)
    cdef Py_ssize_t *ix
    cdef Py_ssize_t *nix
    cdef bint own = not g_busy
    cdef Buf b
    b.len = 0
    if own:
        if g_ix_cap < need:
            nix = <Py_ssize_t *>realloc(g_ix, need * sizeof(Py_ssize_t))
            if nix == NULL:
                raise MemoryError()
            g_ix = nix
            g_ix_cap = need
        if g_out == NULL:
            g_out = <char *>malloc(65536)
            if g_out == NULL:
                raise MemoryError()
            g_out_cap = 65536
        ix = g_ix
        b.data = g_out
        b.cap = g_out_cap
        g_busy = True
    else:
        ix = <Py_ssize_t *>malloc(need * sizeof(Py_ssize_t))
        b.data = <char *>malloc(n * 48 + 64)
        b.cap = n * 48 + 64
        if ix == NULL or b.data == NULL:
            free(ix); free(b.data)
            raise MemoryError()
    cdef Py_ssize_t *dep = ix
    cdef Py_ssize_t *fl = ix + (n + 1)
    cdef Py_ssize_t *first_child = ix + 2 * (n + 1)
    cdef Py_ssize_t *next_sibling = ix + 3 * (n + 1)
    cdef Py_ssize_t *last_child = ix + 4 * (n + 1)
    cdef Py_ssize_t *eff = ix + 5 * (n + 1)
    cdef Py_ssize_t *stack = ix + 6 * (n + 1)
    cdef Py_ssize_t *wnode = ix + 7 * (n + 1)
    cdef Py_ssize_t *wdepth = ix + 8 * (n + 1)
    cdef Py_ssize_t *par = ix + 9 * (n + 1)
    cdef str pr
    cdef Py_ssize_t ws = 0
    cdef str r, nm, lc, u, st
    cdef object k, ref, cand
    cdef Py_ssize_t rl
    cdef list shown = []
    cdef bint opened, first = True
    cdef PyObject *found
    try:
        sp = 0
        for i in range(n):
            d = <Py_ssize_t>depth[i]
            dep[i] = d
            fl[i] = <Py_ssize_t>flags[i]
            first_child[i] = -1
            next_sibling[i] = -1
            last_child[i] = -1
            par[i] = -1
            while sp > d:
                sp -= 1
            if sp:
                p = stack[sp - 1]
                par[i] = p
                if last_child[p] == -1:
                    first_child[p] = i
                else:
                    next_sibling[last_child[p]] = i
                last_child[p] = i
            stack[sp] = i
            sp += 1
        # first pass: which containers print in their single child's place (wnode[i] = 1; the
        # print stack reuses the array later). The cell/listitem rule never drops a node, so it
        # does not change these counts; it needs them to see a cell's or item's printed parent
        for i in range(n - 1, -1, -1):
            r = <str>role[i]
            rl = PyUnicode_GET_LENGTH(r)
            wnode[i] = 0
            if rl == 4 and r == "text":
                eff[i] = -1 if is_blank(<str>name[i]) else i
            elif rl == 9 and r == "container" and not (fl[i] & C_FLAG_REF) and is_blank(<str>name[i]):
                count = _printed_children(first_child, next_sibling, eff, i)
                eff[i] = -1 if count == 0 else i
                wnode[i] = 1 if count == 1 else 0
            elif rl == 9 and r == "paragraph" and not (fl[i] & C_FLAG_REF) and is_blank(<str>name[i]) \
                    and PyUnicode_GET_LENGTH(<str>state[i]) == 0 and PyUnicode_GET_LENGTH(<str>value[i]) == 0:
                # a bare paragraph of one node prints that node in its place (twin.render_tree)
                count = _printed_children(first_child, next_sibling, eff, i)
                eff[i] = i
                wnode[i] = 1 if count == 1 else 0
            else:
                eff[i] = i
        for i in range(n - 1, -1, -1):
            r = <str>role[i]
            rl = PyUnicode_GET_LENGTH(r)
            if rl == 4 and r == "text":
                eff[i] = -1 if is_blank(<str>name[i]) else i
            elif ((rl == 4 and r == "cell") or (rl == 8 and r == "listitem")) and par[i] != -1 \
                    and not (fl[i] & C_FLAG_REF) and is_blank(<str>name[i]) \
                    and PyUnicode_GET_LENGTH(<str>state[i]) == 0 and PyUnicode_GET_LENGTH(<str>value[i]) == 0:
                # a cell in a row / listitem in a list with one child prints that child in its
                # place; "in" is the printed parent (containers that print their child skipped),
                # so a second rendering of the printed text changes nothing
                p = par[i]
                while p != -1 and wnode[p]:
                    p = par[p]
                pr = <str>role[p] if p != -1 else ""
                count = 0
                single = -1
                if (rl == 4 and pr == "row") or (rl == 8 and pr == "list"):
                    c = first_child[i]
                    while c != -1:
                        if eff[c] != -1:
                            count += 1
                            single = eff[c]
                        c = next_sibling[c]
                eff[i] = single if count == 1 else i
            elif wnode[i] and rl == 9 and r == "paragraph":
                # wnode: bare, one child that prints (first pass); that child's printed node
                c = first_child[i]
                single = -1
                while c != -1:
                    if eff[c] != -1:
                        single = eff[c]
                    c = next_sibling[c]
                eff[i] = single
            elif rl == 9 and r == "container" and not (fl[i] & C_FLAG_REF) and is_blank(<str>name[i]):
                count = 0
                single = -1
                c = first_child[i]
                while c != -1:
                    if eff[c] != -1:
                        count += 1
                        single = eff[c]
                        if count > 1:
                            break
                    c = next_sibling[c]
                if count == 0:
                    eff[i] = -1
                elif count == 1:
                    eff[i] = single
                else:
                    eff[i] = i
            else:
                eff[i] = i
        # work stack of (node, print depth); top-level nodes pushed in reverse
        for i in range(n - 1, -1, -1):
            if dep[i] == 0:
                wnode[ws] = i
                wdepth[ws] = 0
                ws += 1
        while ws:
            ws -= 1
            i = wnode[ws]
            d = wdepth[ws]
            j = eff[i]
            if j == -1:
                continue
            if not first:
                buf_raw(&b, "\n", 1)
            first = False
            buf_grow(&b, C_INDENT * d)
            for q in range(C_INDENT * d):
                b.data[b.len + q] = 32
            b.len += C_INDENT * d
            nm = <str>name[j]
            if PyUnicode_GET_LENGTH(nm) and not ascii_clean(nm):
                nm = clean_name(nm)
            # a quoted string alone is text (the twin's rule)
            if not (PyUnicode_GET_LENGTH(nm) and PyUnicode_GET_LENGTH(<str>role[j]) == 4 and <str>role[j] == "text"):
                buf_str(&b, <str>role[j])
                if PyUnicode_GET_LENGTH(nm):
                    buf_raw(&b, ' "', 2)
                    buf_str(&b, nm)
                    buf_raw(&b, '"', 1)
            else:
                buf_raw(&b, '"', 1)
                buf_str(&b, nm)
                buf_raw(&b, '"', 1)
            st = <str>state[j]
            if PyUnicode_GET_LENGTH(st):
                buf_raw(&b, " ", 1)
                buf_str(&b, st)
            opened = False
            if marks and fl[j] & C_FLAG_REF:
                k = key[j]
                # one hash and probe: insert the next number unless the key has one
                cand = next_ref
                found = PyDict_SetDefault(refs, k, cand)
                if found == NULL:
                    raise MemoryError()
                ref = <object>found
                if found == <PyObject *>cand:
                    next_ref += 1
                shown.append(ref)
                buf_raw(&b, " [ref=", 6)
                buf_int(&b, <long>ref)
                opened = True
            if locs:
                lc = <str>loc[j]
                if PyUnicode_GET_LENGTH(lc):
                    if opened:
                        buf_raw(&b, ", loc=", 6)
                    else:
                        buf_raw(&b, " [loc=", 6)
                    buf_str(&b, lc)
                    opened = True
            u = <str>url[j]
            if PyUnicode_GET_LENGTH(u):
                if opened:
                    buf_raw(&b, ", url=", 6)
                else:
                    buf_raw(&b, " [url=", 6)
                buf_str(&b, u)
                opened = True
            if opened:
                buf_raw(&b, "]", 1)
            st = <str>value[j]
            if PyUnicode_GET_LENGTH(st):
                buf_raw(&b, ": ", 2)
                buf_str(&b, st)
            # children in reverse so that the first is printed first
            c = first_child[j]
            if c != -1:
                sp = 0
                while c != -1:
                    stack[sp] = c
                    sp += 1
                    c = next_sibling[c]
                while sp:
                    sp -= 1
                    wnode[ws] = stack[sp]
                    wdepth[ws] = d + 1
                    ws += 1
        return PyUnicode_DecodeUTF8(b.data, b.len, "surrogatepass"), next_ref, shown
    finally:
        if own:
            g_out = b.data  # buf_grow may have moved it
            g_out_cap = b.cap
            if g_out_cap > KEEP_BYTES:
                free(g_out)
                g_out = NULL
                g_out_cap = 0
            if g_ix_cap * <Py_ssize_t>sizeof(Py_ssize_t) > KEEP_BYTES:
                free(g_ix)
                g_ix = NULL
                g_ix_cap = 0
            g_busy = False
        else:
            free(ix)
            free(b.data)

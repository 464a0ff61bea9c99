# The far part of the clock's timer queue: a hierarchical timing wheel (the Linux kernel's and
# Kafka's design) of the timers due after the near heap's epoch (timer_queue.pxi).
#
# Why: a heap of every timer moves a timer through all its levels at each firing, and with
# 10**5 timers those levels are cache misses (each level a line of keys, one of handles and the
# moved Timer itself). The wheel files a far timer in O(1) by its epoch (its due tick's
# 64-tick block), and hands a whole epoch to the near heap when that heap runs out: a
# timer moves down a level at most a few times between firings, and the heap it fires from
# holds one epoch, small and in cache. The near heap keeps the exact order (due tick, then
# creation order), so the wheel need only keep epochs apart.
#
# Levels: a timer of epoch e, while the near epoch is `now` (< e), files at the level of the
# highest 6-bit group where e and now differ, in the bucket of e's digit there. Every timer at
# a lower level is due before every timer at a higher one, and in a level the lower digit
# first; so the first occupied bucket of the lowest occupied level holds the next epoch's
# timers. Pulling it moves `now` to that bucket's first epoch (never past a timer) and files
# its timers again: each lands a level lower, or in the near heap. Moving `now` so leaves
# every other timer's level and digit as they were.
#
# A bucket is a C array of the queue's references to its timers (timer_queue.pxi says who
# owns them and how the garbage collector sees them); a Timer's _slot is its bucket and _pos
# its place there. The wheel (a C struct, not an object: the clock owns it) is made with the
# clock's first timer, its buckets with the first timer filed far.

from cpython.mem cimport PyMem_Calloc
from libc.stdint cimport INT32_MAX, int16_t
from libc.string cimport memmove

# The reference counts and the collector's slots the queue uses (timer_queue.pxi).
cdef extern from "Python.h":
    void _incref "Py_INCREF"(PyObject *o) noexcept
    void _decref "Py_DECREF"(PyObject *o) noexcept
    ctypedef int (*_visitproc "visitproc")(PyObject *o, void *arg) noexcept
    ctypedef int (*_traverseproc "traverseproc")(PyObject *o, _visitproc visit, void *arg) noexcept
    ctypedef int (*_inquiry "inquiry")(PyObject *o) noexcept
    ctypedef struct _GCSlots "PyTypeObject":
        _traverseproc tp_traverse
        _inquiry tp_clear


cdef extern from "timer_wheel.h" nogil:
    int cvc_highest_bit(uint64_t x)
    int cvc_lowest_bit(uint64_t x)
    void cvc_prefetch(const void *p)

cdef enum:
    EPOCH_SHIFT = 6          # an epoch: 64 ticks, the most the near heap holds at once but
                             # for timers made due before it (measured: a 64-tick heap fires
                             # 10**5 staggered timers ~7% faster than a 256-tick one)
    WHEEL_BITS = 6           # 64 buckets a level: a level's occupancy is one 64-bit word
    WHEEL_SIZE = 64
    WHEEL_LEVELS = 10        # epochs reach MAX_TICK >> 6 = 2**56: bits 0 to 56
    WHEEL_SLOTS = WHEEL_LEVELS * WHEEL_SIZE
    BUCKET_KEPT = 256        # a bucket emptied by a pull keeps an array this small for reuse
    FETCH_AHEAD = 16         # a pull prefetches the Timer this many places ahead: its
                             # cache misses then overlap instead of following one another


cdef struct _Bucket:
    PyObject **items         # the queue's references; NULL until the first timer filed here
    int32_t n
    int32_t cap


cdef struct _Wheel:
    Py_ssize_t count         # timers filed in the buckets
    int64_t now_epoch        # the near heap's epoch: it holds every timer due up to its end
    uint64_t bits[WHEEL_LEVELS]   # each level's occupied buckets
    _Bucket *buckets         # NULL, or WHEEL_SLOTS of them


cdef inline Py_ssize_t _wheel_slot(_Wheel *wheel, int64_t due) noexcept:
    """The bucket (level * WHEEL_SIZE + digit) of a timer due at ``due``, after the near epoch."""
    cdef int64_t epoch = due >> EPOCH_SHIFT
    cdef int level = cvc_highest_bit(<uint64_t>(epoch ^ wheel.now_epoch)) // WHEEL_BITS
    return level * WHEEL_SIZE + ((epoch >> (level * WHEEL_BITS)) & (WHEEL_SIZE - 1))


cdef _Wheel *_wheel_new() except NULL:
    cdef _Wheel *wheel = <_Wheel*>PyMem_Calloc(1, sizeof(_Wheel))
    if wheel is NULL:
        raise MemoryError()
    return wheel


cdef inline int _wheel_reserve(_Wheel *wheel, Py_ssize_t slot) except -1:
    """Room for one more timer in bucket ``slot``: the only step of filing that can fail, so
    it comes before anything moves."""
    if wheel.buckets is not NULL and wheel.buckets[slot].n < wheel.buckets[slot].cap:
        return 0
    return _wheel_grow(wheel, slot)


cdef int _wheel_grow(_Wheel *wheel, Py_ssize_t slot) except -1:
    cdef _Bucket *bucket
    cdef PyObject **items
    cdef Py_ssize_t cap
    if wheel.buckets is NULL:
        wheel.buckets = <_Bucket*>PyMem_Calloc(WHEEL_SLOTS, sizeof(_Bucket))
        if wheel.buckets is NULL:
            raise MemoryError()
    bucket = &wheel.buckets[slot]
    if bucket.n < bucket.cap:
        return 0
    cap = bucket.cap + (bucket.cap >> 1) + 8
    if cap > INT32_MAX:
        raise MemoryError("a timer wheel bucket holds at most 2**31 - 1 timers")
    items = <PyObject**>PyMem_Realloc(bucket.items, cap * sizeof(PyObject*))
    if items is NULL:
        raise MemoryError()
    bucket.items, bucket.cap = items, <int32_t>cap
    return 0


cdef inline void _wheel_put(_Wheel *wheel, Py_ssize_t slot, PyObject *timer) noexcept:
    """File ``timer`` (the queue's reference moves in) in bucket ``slot``, reserved."""
    cdef _Bucket *bucket = &wheel.buckets[slot]
    (<Timer>timer)._pos = bucket.n
    (<Timer>timer)._slot = <int16_t>slot
    bucket.items[bucket.n] = timer
    bucket.n += 1
    wheel.bits[slot // WHEEL_SIZE] |= (<uint64_t>1) << (slot % WHEEL_SIZE)
    wheel.count += 1


cdef PyObject *_wheel_take(_Wheel *wheel, Timer timer) noexcept:
    """Take ``timer`` out of its bucket (the last timer there fills its place); return the
    queue's reference to it, now the caller's."""
    cdef Py_ssize_t slot = timer._slot
    cdef _Bucket *bucket = &wheel.buckets[slot]
    cdef Py_ssize_t i = timer._pos
    cdef PyObject *last
    cdef PyObject **items
    bucket.n -= 1
    last = bucket.items[bucket.n]
    if last != <PyObject*>timer:
        bucket.items[i] = last
        (<Timer>last)._pos = <int32_t>i
    if not bucket.n:
        wheel.bits[slot // WHEEL_SIZE] &= ~((<uint64_t>1) << (slot % WHEEL_SIZE))
    if bucket.cap > BUCKET_KEPT and bucket.n < bucket.cap // 4:
        # Shrink as a list does, so a wheel that once held many timers does not keep
        # their room (a shrinking realloc that fails leaves the array as it was).
        items = <PyObject**>PyMem_Realloc(bucket.items, (bucket.cap // 2) * sizeof(PyObject*))
        if items is not NULL:
            bucket.items, bucket.cap = items, bucket.cap // 2
    wheel.count -= 1
    timer._pos = -1
    timer._slot = -1
    return <PyObject*>timer


cdef int _wheel_pull(WorldClock clock) except -1:
    """The near heap ran out: move the near epoch to the next occupied epoch's bucket and
    bring its timers there, filing those of later epochs a level lower on the way."""
    cdef _Wheel *wheel = clock._wheel
    cdef int level, digit, shift
    cdef Py_ssize_t slot, n, cap
    cdef PyObject **items
    cdef _Bucket *bucket
    while not clock._heap_n and wheel.count:
        level = 0
        while not wheel.bits[level]:
            level += 1
        digit = cvc_lowest_bit(wheel.bits[level])
        slot = level * WHEEL_SIZE + digit
        bucket = &wheel.buckets[slot]
        n = bucket.n
        if not level:
            # A level-0 bucket is one epoch, all of it due now: the near heap takes it whole.
            _heap_reserve(clock, n)
        items, cap = bucket.items, bucket.cap
        bucket.items, bucket.n, bucket.cap = NULL, 0, 0
        wheel.bits[level] &= ~((<uint64_t>1) << digit)
        wheel.count -= n
        shift = WHEEL_BITS * (level + 1)
        wheel.now_epoch = (((wheel.now_epoch >> shift) << shift)
                           | ((<int64_t>digit) << (WHEEL_BITS * level)))
        if not level:
            _heap_fill(clock, items, n)
        else:
            _wheel_refile(clock, wheel, slot, items, n, cap)
        if cap <= BUCKET_KEPT:        # (a refile that raised gave the bucket its array back)
            wheel.buckets[slot].items, wheel.buckets[slot].cap = items, <int32_t>cap
        else:
            PyMem_Free(items)
    return 0


cdef int _wheel_refile(WorldClock clock, _Wheel *wheel, Py_ssize_t slot, PyObject **items,
                       Py_ssize_t n, Py_ssize_t cap) except -1:
    """File again the ``n`` timers of the bucket ``slot`` just emptied, in the order filed
    (mostly due order: the heap then takes each at its bottom). Each lands in the near heap or
    a lower level, never back in that bucket. Should room run out (MemoryError), the timers
    not yet filed go back to that bucket, each still where its _slot says."""
    cdef Py_ssize_t i = 0, j
    try:                     # one try a pull, not one a timer: entering one saves state
        while i < n:
            if i + FETCH_AHEAD < n:
                cvc_prefetch(<char*>items[i + FETCH_AHEAD] + sizeof(PyObject))
            _queue_file(clock, wheel, items[i])
            i += 1
    except MemoryError:
        for j in range(i, n):
            items[j - i] = items[j]
            (<Timer>items[j - i])._pos = <int32_t>(j - i)
        wheel.buckets[slot].items, wheel.buckets[slot].n = items, <int32_t>(n - i)
        wheel.buckets[slot].cap = <int32_t>cap
        wheel.bits[slot // WHEEL_SIZE] |= (<uint64_t>1) << (slot % WHEEL_SIZE)
        wheel.count += n - i
        raise
    return 0


cdef int _wheel_visit(_Wheel *wheel, _visitproc visit, void *arg) noexcept:
    """tp_traverse's part: each timer the wheel holds a reference to."""
    cdef Py_ssize_t slot, i
    cdef int r
    if wheel is NULL or wheel.buckets is NULL:
        return 0
    for slot in range(WHEEL_SLOTS):
        for i in range(wheel.buckets[slot].n):
            r = visit(wheel.buckets[slot].items[i], arg)
            if r:
                return r
    return 0


cdef int _wheel_list(_Wheel *wheel, list into) except -1:
    """Append each timer the wheel holds to ``into``, in no order."""
    cdef Py_ssize_t slot, i
    if wheel is NULL or wheel.buckets is NULL:
        return 0
    for slot in range(WHEEL_SLOTS):
        for i in range(wheel.buckets[slot].n):
            into.append(<object>wheel.buckets[slot].items[i])
    return 0

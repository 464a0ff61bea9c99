# The clock's timer queue: a near heap of the timers due up to the end of the near epoch (a
# 64-tick block, timer_wheel.pxi), and a timing wheel of the later ones, which hands the near
# heap the next epoch's timers whenever it runs out. So the heap's top is always the timer due
# first: the firing loop, the idle check and next_due_tick read keys[0] alone.
#
# The near heap is a 4-ary min-heap keyed by (due tick, creation order). The keys are C
# integers in one array, so the heap's depth costs integer compares on contiguous memory; the
# Timers sit at the same positions in a C array. While the heap is sorted (as a pull leaves
# it when its bucket was filed in due order, and as timers moving to its end keep it) it is
# a queue: the top leaves by the arrays' start moving on (_heap_lo), not by a sift. Each Timer knows where it is (_slot: -1 in
# the heap, else its wheel bucket; _pos: its place there), so pausing or cancelling removes it
# at once: no stale entries.
#
# References: the queue holds one reference to each timer it schedules, in whichever array
# the timer is in: taken when scheduled, moved (never counted again) as the timer moves
# between the heap and the buckets, dropped when it leaves. C arrays rather than Python lists
# because a firing otherwise spends most of its queue work in list calls and reference counts
# (perf: list operations and stores were a third of a firing among 10**5 timers). The garbage
# collector sees these references through WorldClock's tp_traverse, which the end of this
# file extends (and its tp_clear, which drops them): a cycle through a timer's callback and
# its clock is then collected as one through a list was.
#
# No reference is dropped while the queue is half changed: dropping the last one runs code
# (the Timer's and its callback's deallocation), which may use the clock. And no filing
# fails after anything moved: the one step that can fail (making room) comes first.
# The driver's alone (threads.pxi): every call that changes or reads it claims the clock.

cdef struct TimerKey:
    int64_t due
    int64_t seq


# The sifts carry the moving timer's key as two integers, not a TimerKey: a 16-byte struct
# passed by value is stored as two halves and reloaded whole, a store-forwarding stall that
# perf put at half of a sift's time.

cdef inline bint _before(int64_t due, int64_t seq, TimerKey *key) noexcept:
    return due < key.due or (due == key.due and seq < key.seq)


cdef inline void _move(WorldClock clock, Py_ssize_t to, Py_ssize_t frm) noexcept:
    """Move the timer at heap position ``frm`` to position ``to``."""
    clock._keys[to] = clock._keys[frm]
    clock._items[to] = clock._items[frm]
    (<Timer>clock._items[to])._pos = <int32_t>(to + clock._heap_lo)


cdef inline void _place(WorldClock clock, Py_ssize_t i, int64_t due, int64_t seq,
                        PyObject *timer) noexcept:
    """Put ``timer`` with key (``due``, ``seq``) at heap position ``i``."""
    clock._keys[i].due = due
    clock._keys[i].seq = seq
    clock._items[i] = timer
    (<Timer>timer)._pos = <int32_t>(i + clock._heap_lo)


cdef void _sift_up(WorldClock clock, Py_ssize_t i, int64_t due, int64_t seq,
                   PyObject *timer) noexcept:
    """Put ``timer`` in the hole at ``i`` or, moving parents down, above it."""
    cdef TimerKey *keys = clock._keys
    cdef Py_ssize_t parent
    while i > 0:
        parent = (i - 1) >> 2
        if not _before(due, seq, &keys[parent]):
            break
        _move(clock, i, parent)
        i = parent
    _place(clock, i, due, seq, timer)


cdef inline Py_ssize_t _earlier(TimerKey *keys, Py_ssize_t a, Py_ssize_t b) noexcept:
    """Whichever of positions a and b comes first; written without branches, because which
    child is smallest is data the branch predictor cannot learn."""
    cdef bint b_first = ((keys[b].due < keys[a].due)
                         | ((keys[b].due == keys[a].due) & (keys[b].seq < keys[a].seq)))
    return b if b_first else a


cdef void _sift_down(WorldClock clock, Py_ssize_t i, int64_t due, int64_t seq,
                     PyObject *timer) noexcept:
    """Put ``timer`` in the hole at ``i`` or, moving children up, below it."""
    cdef Py_ssize_t n = clock._heap_n
    cdef TimerKey *keys = clock._keys
    cdef Py_ssize_t child, best
    while True:
        child = 4 * i + 1
        if child + 3 < n:      # four children: a branch-free tournament
            best = _earlier(keys, _earlier(keys, child, child + 1),
                            _earlier(keys, child + 2, child + 3))
        elif child < n:
            best = child
            child += 1
            while child < n:
                best = _earlier(keys, best, child)
                child += 1
        else:
            break
        if _before(due, seq, &keys[best]):     # keys are distinct: seq is unique
            break
        _move(clock, i, best)
        i = best
    _place(clock, i, due, seq, timer)


cdef inline int _heap_reserve(WorldClock clock, Py_ssize_t extra) except -1:
    """Room in the near heap for ``extra`` more timers."""
    if clock._heap_lo + clock._heap_n + extra <= clock._heap_cap:
        return 0
    return _heap_grow(clock, extra)


cdef int _heap_grow(WorldClock clock, Py_ssize_t extra) except -1:
    cdef Py_ssize_t n = clock._heap_n, lo = clock._heap_lo, i
    cdef Py_ssize_t need = lo + n + extra, cap
    cdef TimerKey *keys
    cdef PyObject **items
    if lo and lo >= n:
        # The room sorted pops freed at the front is at least the heap's size: move the heap
        # back to it (each Timer then moves once for the pops that freed its room).
        memmove(clock._keys - lo, clock._keys, n * sizeof(TimerKey))
        memmove(clock._items - lo, clock._items, n * sizeof(PyObject*))
        clock._keys, clock._items, clock._heap_lo = clock._keys - lo, clock._items - lo, 0
        for i in range(n):
            (<Timer>clock._items[i])._pos = <int32_t>i
        lo, need = 0, n + extra
        if need <= clock._heap_cap:
            return 0
    if need > INT32_MAX:
        raise MemoryError("a clock's near heap holds at most 2**31 - 1 timers")
    cap = min(need + (need >> 3) + 8, <Py_ssize_t>INT32_MAX)   # a list's growth: little slack
    keys = <TimerKey*>PyMem_Realloc(clock._keys - lo, cap * sizeof(TimerKey))
    if keys is NULL:
        raise MemoryError()
    clock._keys = keys + lo      # grown, the items not yet: the old capacity still holds
    items = <PyObject**>PyMem_Realloc(clock._items - lo, cap * sizeof(PyObject*))
    if items is NULL:
        raise MemoryError()
    clock._items, clock._heap_cap = items + lo, cap
    return 0


cdef inline void _heap_push(WorldClock clock, PyObject *timer) noexcept:
    """Put ``timer`` (its _due set; the queue's reference moves in) on the near heap, which
    has room: at the end of a sorted heap if it comes after the rest (it stays sorted)."""
    cdef Py_ssize_t n = clock._heap_n
    cdef int64_t due = (<Timer>timer)._due, seq = (<Timer>timer)._seq
    (<Timer>timer)._slot = -1
    clock._heap_n = n + 1
    if not n or (clock._heap_sorted and not _before(due, seq, &clock._keys[n - 1])):
        clock._heap_sorted = True
        _place(clock, n, due, seq, timer)
    else:
        clock._heap_sorted = False
        _sift_up(clock, n, due, seq, timer)


cdef void _heap_fill(WorldClock clock, PyObject **timers, Py_ssize_t n) noexcept:
    """The empty near heap takes ``timers`` (their references move in; it has room), in
    their order if that is already heap order (a sorted array is a heap: timers filed in due
    order, the common case), else heapified."""
    cdef TimerKey *keys = clock._keys
    cdef PyObject **items = clock._items
    cdef PyObject *timer
    cdef bint ordered = True
    cdef Py_ssize_t i
    for i in range(n):
        if i + FETCH_AHEAD < n:
            cvc_prefetch(<char*>timers[i + FETCH_AHEAD] + sizeof(PyObject))
        timer = timers[i]
        keys[i].due = (<Timer>timer)._due
        keys[i].seq = (<Timer>timer)._seq
        items[i] = timer
        (<Timer>timer)._pos = <int32_t>i
        (<Timer>timer)._slot = -1
        if i and _before(keys[i].due, keys[i].seq, &keys[i - 1]):
            ordered = False
    clock._heap_n = n
    clock._heap_sorted = ordered
    if not ordered:
        for i in range((n - 2) // 4, -1, -1):
            _sift_down(clock, i, keys[i].due, keys[i].seq, items[i])


cdef PyObject *_heap_take(WorldClock clock, Py_ssize_t i) noexcept:
    """Take the timer at heap position ``i`` out; return the queue's reference to it, now the
    caller's. The top of a sorted heap leaves by the front moving on (no sift); else the last
    timer fills its place."""
    cdef PyObject *timer = clock._items[i]
    cdef Py_ssize_t last = clock._heap_n - 1
    cdef int64_t due, seq
    clock._heap_n = last
    if i == 0 and clock._heap_sorted:
        clock._keys, clock._items, clock._heap_lo = (clock._keys + 1, clock._items + 1,
                                                     clock._heap_lo + 1)
    elif i != last:
        clock._heap_sorted = False
        due, seq = clock._keys[last].due, clock._keys[last].seq
        if i > 0 and _before(due, seq, &clock._keys[(i - 1) >> 2]):
            _sift_up(clock, i, due, seq, clock._items[last])
        else:
            _sift_down(clock, i, due, seq, clock._items[last])
    if not last:                 # empty: back to the front of its room
        clock._keys, clock._items = clock._keys - clock._heap_lo, clock._items - clock._heap_lo
        clock._heap_lo = 0
    (<Timer>timer)._pos = -1
    return timer


cdef int _queue_file(WorldClock clock, _Wheel *wheel, PyObject *timer) except -1:
    """File a timer (its _due set) by its due tick: the near heap up to the near epoch's end,
    the wheel after it. The queue's reference moves in, unless it raises (MemoryError), when
    nothing changed."""
    cdef int64_t due = (<Timer>timer)._due
    cdef Py_ssize_t slot
    if (due >> EPOCH_SHIFT) > wheel.now_epoch:
        slot = _wheel_slot(wheel, due)
        _wheel_reserve(wheel, slot)
        _wheel_put(wheel, slot, timer)
    else:
        _heap_reserve(clock, 1)
        _heap_push(clock, timer)
    return 0


cdef int _queue_push(WorldClock clock, Timer timer, int64_t due) except -1:
    """Schedule ``timer`` at ``due``."""
    if clock._wheel is NULL:
        clock._wheel = _wheel_new()
    cdef _Wheel *wheel = clock._wheel
    if not clock._heap_n and not wheel.count:   # an empty queue: its near epoch is this one's
        wheel.now_epoch = due >> EPOCH_SHIFT
    timer._due = due
    _queue_file(clock, wheel, <PyObject*>timer)
    _incref(<PyObject*>timer)                    # the queue's reference
    timer._state = TIMER_SCHEDULED
    return 0


cdef int _queue_remove(WorldClock clock, Timer timer) except -1:
    """Take a scheduled ``timer`` off the queue (the caller, holding its own reference to it,
    sets its new state)."""
    cdef PyObject *ref
    if timer._pos < 0:
        return 0                 # not queued (never so while scheduled; a cheap guard)
    if timer._slot >= 0:
        ref = _wheel_take(clock._wheel, timer)
    else:
        ref = _heap_take(clock, timer._pos - clock._heap_lo)
    _decref(ref)                       # the caller's reference outlives it: no code runs
    if not clock._heap_n and clock._wheel.count:
        _wheel_pull(clock)             # the top is always the timer due first
    return 0


cdef inline int _queue_move_top(WorldClock clock, int64_t due) except -1:
    """The top timer falls due next at ``due`` (later than now): move it down in place, or to
    the wheel if that lies past the near epoch. Its reference stays the queue's throughout."""
    cdef PyObject *timer = clock._items[0]
    cdef _Wheel *wheel = clock._wheel
    cdef Py_ssize_t slot
    cdef int64_t seq = (<Timer>timer)._seq
    if (due >> EPOCH_SHIFT) <= wheel.now_epoch:
        if (clock._heap_sorted and clock._heap_n > 1
                and not _before(due, seq, &clock._keys[clock._heap_n - 1])):
            _heap_reserve(clock, 1)    # it goes to the end: the heap stays sorted
            _heap_take(clock, 0)
            (<Timer>timer)._due = due
            _heap_push(clock, timer)
            return 0
        clock._heap_sorted = clock._heap_n == 1
        (<Timer>timer)._due = due
        _sift_down(clock, 0, due, seq, timer)
        return 0
    slot = _wheel_slot(wheel, due)
    _wheel_reserve(wheel, slot)        # before it moves: the rest cannot fail
    _heap_take(clock, 0)
    (<Timer>timer)._due = due
    _wheel_put(wheel, slot, timer)
    if not clock._heap_n:
        _wheel_pull(clock)
    return 0


cdef list _queue_timers(WorldClock clock):
    """The scheduled timers, in no order."""
    cdef list timers = [<object>clock._items[i] for i in range(clock._heap_n)]
    _wheel_list(clock._wheel, timers)
    return timers


cdef list _queue_clear(WorldClock clock):
    """Empty the queue; return its timers, in creation order, still marked scheduled."""
    cdef list timers = _queue_timers(clock)    # their references outlive the queue's
    _queue_release(clock, False)
    timers.sort(key=_timer_seq_of)
    return timers


cdef void _queue_release(WorldClock clock, bint end) noexcept:
    """Empty the queue and drop its references (``end``: marking its timers ended). The queue
    is empty before the first is dropped, so code a drop runs sees it empty."""
    cdef PyObject **items = clock._items
    cdef PyObject **room = clock._items - clock._heap_lo
    cdef Py_ssize_t n = clock._heap_n
    cdef _Bucket *buckets = NULL
    cdef Py_ssize_t i, slot
    cdef int level
    PyMem_Free(clock._keys - clock._heap_lo)
    clock._keys, clock._items, clock._heap_n, clock._heap_cap = NULL, NULL, 0, 0
    clock._heap_lo, clock._heap_sorted = 0, False
    if clock._wheel is not NULL:
        buckets, clock._wheel.buckets, clock._wheel.count = clock._wheel.buckets, NULL, 0
        for level in range(WHEEL_LEVELS):
            clock._wheel.bits[level] = 0
    for i in range(n):
        _unqueued(items[i], end)
    if buckets is not NULL:
        for slot in range(WHEEL_SLOTS):
            for i in range(buckets[slot].n):
                _unqueued(buckets[slot].items[i], end)
    for i in range(n):
        _decref(items[i])
    PyMem_Free(room)
    if buckets is not NULL:
        for slot in range(WHEEL_SLOTS):
            for i in range(buckets[slot].n):
                _decref(buckets[slot].items[i])
            PyMem_Free(buckets[slot].items)
        PyMem_Free(buckets)


cdef inline void _unqueued(PyObject *timer, bint end) noexcept:
    (<Timer>timer)._pos = -1
    (<Timer>timer)._slot = -1
    if end:
        (<Timer>timer)._state = TIMER_ENDED


def _timer_seq_of(Timer timer):
    return timer._seq


# -- the garbage collector's view of the queue ---------------------------------------------
# WorldClock's tp_traverse and tp_clear, as Cython makes them, see its object fields; these
# add the queue's references. They are set on the type as the module loads, before any
# instance exists (a Python subclass's slots call the base's, so they cover it too). The
# traversal reads pointers only: under free threading the collector repurposes reference
# count fields while it runs, so it must not count references.

cdef _traverseproc _clock_fields_traverse = NULL
cdef _inquiry _clock_fields_clear = NULL


cdef int _clock_traverse(PyObject *o, _visitproc visit, void *arg) noexcept:
    cdef int r = _clock_fields_traverse(o, visit, arg)
    cdef Py_ssize_t i
    cdef PyObject **items = (<WorldClock>o)._items
    if r:
        return r
    for i in range((<WorldClock>o)._heap_n):
        r = visit(items[i], arg)
        if r:
            return r
    return _wheel_visit((<WorldClock>o)._wheel, visit, arg)


cdef int _clock_clear(PyObject *o) noexcept:
    _queue_release(<WorldClock>o, True)
    return _clock_fields_clear(o)


cdef _see_the_queue_in_the_collector():
    cdef _GCSlots *slots = <_GCSlots*>WorldClock
    global _clock_fields_traverse, _clock_fields_clear
    if slots.tp_traverse is NULL or slots.tp_clear is NULL:
        raise ImportError("WorldClock is not a garbage-collected type")
    _clock_fields_traverse, _clock_fields_clear = slots.tp_traverse, slots.tp_clear
    slots.tp_traverse, slots.tp_clear = _clock_traverse, _clock_clear


_see_the_queue_in_the_collector()

# The clock's timer queue: a near heap of the timers due up to the end of the near epoch (a
# 64-tick block, timer_wheel.pxi), and a timing wheel of the later ones, which hands the near
# heap the next epoch's timers whenever it runs out. So the heap's top is always the timer due
# first: the firing loop, the idle check and next_due_tick read keys[0] alone.
#
# The near heap is a 4-ary min-heap keyed by (due tick, creation order). The keys are C
# integers in one array, so the heap's depth costs integer compares on contiguous memory; the
# Timer handles sit at the same positions in a Python list, which holds their references (and
# so stays visible to the garbage collector). Each Timer knows its position (in the heap, or in
# its wheel bucket), so pausing or cancelling removes it at once: no stale entries.
# The driver's alone (threads.pxi): every call that changes or reads it claims the clock.

cdef struct TimerKey:
    int64_t due
    int64_t seq


cdef extern from "Python.h":
    ctypedef struct PyListObject:
        PyObject **ob_item


cdef inline bint _key_before(TimerKey a, TimerKey b) noexcept:
    return a.due < b.due or (a.due == b.due and a.seq < b.seq)


cdef inline void _place(WorldClock clock, Py_ssize_t i, TimerKey key, PyObject *timer) noexcept:
    """Put ``timer`` with ``key`` at heap position ``i`` (the list's reference moves with it)."""
    clock._keys[i] = key
    (<PyListObject*>clock._queue).ob_item[i] = timer
    (<Timer>timer)._heap_index = <int32_t>i


cdef void _sift_up(WorldClock clock, Py_ssize_t i) noexcept:
    cdef TimerKey key = clock._keys[i]
    cdef PyObject **items = (<PyListObject*>clock._queue).ob_item
    cdef PyObject *timer = items[i]
    cdef Py_ssize_t parent
    while i > 0:
        parent = (i - 1) >> 2
        if not _key_before(key, clock._keys[parent]):
            break
        _place(clock, i, clock._keys[parent], items[parent])
        i = parent
    _place(clock, i, key, timer)


cdef inline Py_ssize_t _earlier(TimerKey *keys, Py_ssize_t a, Py_ssize_t b) noexcept:
    """Whichever of positions a and b comes first; written without branches, because which
    child is smallest is data the branch predictor cannot learn."""
    cdef bint b_first = ((keys[b].due < keys[a].due)
                         | ((keys[b].due == keys[a].due) & (keys[b].seq < keys[a].seq)))
    return b if b_first else a


cdef void _sift_down(WorldClock clock, Py_ssize_t i) noexcept:
    cdef Py_ssize_t n = len(clock._queue)
    cdef TimerKey *keys = clock._keys
    cdef TimerKey key = keys[i]
    cdef PyObject **items = (<PyListObject*>clock._queue).ob_item
    cdef PyObject *timer = items[i]
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
        if not _key_before(keys[best], key):
            break
        _place(clock, i, keys[best], items[best])
        i = best
    _place(clock, i, key, timer)


cdef int _heap_push(WorldClock clock, Timer timer) except -1:
    """Put ``timer`` (its _due set) on the near heap."""
    cdef Py_ssize_t n = len(clock._queue)
    cdef Py_ssize_t cap
    cdef TimerKey *keys
    if n == clock._keys_cap:
        cap = n + (n >> 3) + 8         # the growth a Python list uses: little slack
        keys = <TimerKey*>PyMem_Realloc(clock._keys, cap * sizeof(TimerKey))
        if keys is NULL:
            raise MemoryError()
        clock._keys, clock._keys_cap = keys, cap
    clock._queue.append(timer)
    clock._keys[n].due = timer._due
    clock._keys[n].seq = timer._seq
    timer._heap_index = <int32_t>n
    _sift_up(clock, n)
    return 0


cdef inline int _queue_file(WorldClock clock, _TimerWheel wheel, Timer timer) except -1:
    """File a scheduled timer by its due tick: the near heap up to the near epoch's end,
    the wheel after it."""
    if (timer._due >> EPOCH_SHIFT) > wheel.now_epoch:
        return _wheel_add(wheel, timer)
    return _heap_push(clock, timer)


cdef int _queue_push(WorldClock clock, Timer timer, int64_t due) except -1:
    """Schedule ``timer`` at ``due``."""
    cdef _TimerWheel wheel = clock._wheel
    if wheel is None:
        wheel = clock._wheel = _TimerWheel.__new__(_TimerWheel)
    timer._due = due
    timer._state = TIMER_SCHEDULED
    if not clock._queue and not wheel.count:   # an empty queue: its near epoch is this one's
        wheel.now_epoch = due >> EPOCH_SHIFT
    return _queue_file(clock, wheel, timer)


cdef int _queue_remove(WorldClock clock, Timer timer) except -1:
    """Take a scheduled ``timer`` off the queue (the caller sets its new state)."""
    if timer._in_wheel:
        return _wheel_remove(clock._wheel, timer)
    cdef Py_ssize_t i = timer._heap_index
    cdef Py_ssize_t last = len(clock._queue) - 1
    cdef TimerKey moved
    timer._heap_index = -1
    if i != last:
        moved = clock._keys[last]
        # The last entry fills the hole: the list drops the removed timer's reference.
        clock._queue[i] = clock._queue[last]
        clock._keys[i] = moved
        (<Timer>clock._queue[i])._heap_index = <int32_t>i
    clock._queue.pop()             # a pop, not del: del goes through list_ass_slice
    if i != last:
        if i > 0 and _key_before(moved, clock._keys[(i - 1) >> 2]):
            _sift_up(clock, i)
        else:
            _sift_down(clock, i)
    elif not clock._queue and clock._wheel.count:
        _wheel_pull(clock)             # the top is always the timer due first
    return 0


cdef inline int _queue_move_top(WorldClock clock, int64_t due) except -1:
    """The top timer falls due next at ``due`` (later than now): move it down in place, or to
    the wheel if that lies past the near epoch."""
    cdef Timer timer = <Timer>(<PyListObject*>clock._queue).ob_item[0]
    if (due >> EPOCH_SHIFT) <= clock._wheel.now_epoch:
        clock._keys[0].due = due
        timer._due = due
        _sift_down(clock, 0)
        return 0
    _queue_remove(clock, timer)
    return _queue_push(clock, timer, due)


cdef inline Timer _queue_top(WorldClock clock):
    """The timer due first, or None."""
    return <Timer>clock._queue[0] if clock._queue else None


cdef list _queue_clear(WorldClock clock):
    """Empty the queue; return its timers, in creation order, still marked scheduled."""
    cdef list timers = clock._queue
    cdef Timer timer
    for timer in timers:
        timer._heap_index = -1
    clock._queue = []
    PyMem_Free(clock._keys)
    clock._keys, clock._keys_cap = NULL, 0
    if clock._wheel is not None:
        timers.extend(_wheel_clear(clock._wheel))
    timers.sort(key=_timer_seq_of)
    return timers


cdef list _queue_timers(WorldClock clock):
    """The scheduled timers, in no order."""
    cdef list timers = list(clock._queue)
    if clock._wheel is not None and clock._wheel.count:
        timers.extend(_wheel_timers(clock._wheel))
    return timers


def _timer_seq_of(Timer timer):
    return timer._seq

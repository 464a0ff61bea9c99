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
# every other timer's level and digit as they were, so a timer's bucket is a function of its
# due tick and `now`, which removing it (cancel, pause) recomputes.
#
# Each bucket is a Python list holding its timers' references (visible to the garbage
# collector), made when first needed; a Timer's _heap_index is its place in that list while
# _in_wheel. A clock holds a wheel from its first timer on (a clock without timers pays one
# pointer), and its buckets from the first timer filed far.

cdef extern from "timer_wheel.h" nogil:
    int cvc_highest_bit(uint64_t x)
    int cvc_lowest_bit(uint64_t x)

cdef enum:
    EPOCH_SHIFT = 6          # an epoch: 64 ticks, the most the near heap holds at once but
                             # for timers made due before it (measured: a 64-tick heap fires
                             # 10**5 staggered timers ~7% faster than a 256-tick one)
    WHEEL_BITS = 6           # 64 buckets a level: a level's occupancy is one 64-bit word
    WHEEL_SIZE = 64
    WHEEL_LEVELS = 10        # epochs reach MAX_TICK >> 6 = 2**56: bits 0 to 56




cdef class _TimerWheel:
    """A clock's timer wheel; the driver's alone, like the rest of its queue (threads.pxi)."""
    cdef list buckets            # None, or WHEEL_LEVELS * WHEEL_SIZE of None or a list
    cdef Py_ssize_t count        # timers filed here
    cdef int64_t now_epoch       # the near heap's epoch: it holds every timer due up to its end
    cdef uint64_t bits[WHEEL_LEVELS]   # each level's occupied buckets


cdef inline Py_ssize_t _wheel_slot(_TimerWheel wheel, int64_t due) noexcept:
    """The bucket (level * WHEEL_SIZE + digit) of a timer due at ``due``, after the near epoch."""
    cdef int64_t epoch = due >> EPOCH_SHIFT
    cdef int level = cvc_highest_bit(<uint64_t>(epoch ^ wheel.now_epoch)) // WHEEL_BITS
    return level * WHEEL_SIZE + ((epoch >> (level * WHEEL_BITS)) & (WHEEL_SIZE - 1))


cdef int _wheel_add(_TimerWheel wheel, Timer timer) except -1:
    """File ``timer``, due after the near epoch, in its bucket."""
    cdef Py_ssize_t slot = _wheel_slot(wheel, timer._due)
    cdef list bucket
    if wheel.buckets is None:
        wheel.buckets = [None] * (WHEEL_LEVELS * WHEEL_SIZE)
    bucket = <list>wheel.buckets[slot]
    if bucket is None:
        bucket = []
        wheel.buckets[slot] = bucket
    timer._heap_index = <int32_t>len(bucket)
    timer._in_wheel = True
    bucket.append(timer)
    wheel.bits[slot // WHEEL_SIZE] |= (<uint64_t>1) << (slot % WHEEL_SIZE)
    wheel.count += 1
    return 0


cdef int _wheel_remove(_TimerWheel wheel, Timer timer) except -1:
    """Take ``timer`` out of its bucket; the last timer there fills its place."""
    cdef Py_ssize_t slot = _wheel_slot(wheel, timer._due)
    cdef list bucket = <list>wheel.buckets[slot]
    cdef Py_ssize_t i = timer._heap_index
    cdef Timer last = <Timer>bucket.pop()
    if last is not timer:
        bucket[i] = last
        last._heap_index = <int32_t>i
    if not bucket:
        wheel.bits[slot // WHEEL_SIZE] &= ~((<uint64_t>1) << (slot % WHEEL_SIZE))
    wheel.count -= 1
    timer._heap_index = -1
    timer._in_wheel = False
    return 0


cdef int _wheel_pull(WorldClock clock) except -1:
    """The near heap ran out: move the near epoch to the next occupied epoch's bucket and
    bring its timers there, filing those of later epochs a level lower on the way."""
    cdef _TimerWheel wheel = clock._wheel
    cdef int level, digit, shift
    cdef list bucket
    cdef Timer timer
    while not clock._queue and wheel.count:
        level = 0
        while not wheel.bits[level]:
            level += 1
        digit = cvc_lowest_bit(wheel.bits[level])
        bucket = <list>wheel.buckets[level * WHEEL_SIZE + digit]
        wheel.bits[level] &= ~((<uint64_t>1) << digit)
        wheel.count -= len(bucket)
        shift = WHEEL_BITS * (level + 1)
        wheel.now_epoch = (((wheel.now_epoch >> shift) << shift)
                           | ((<int64_t>digit) << (WHEEL_BITS * level)))
        # In the order filed, which is mostly due order: the heap then takes each at its
        # bottom. Each lands in the near heap or a lower level, never back in this bucket.
        for timer in bucket:
            timer._in_wheel = False
            _queue_file(clock, wheel, timer)
        del bucket[:]
    return 0


cdef list _wheel_clear(_TimerWheel wheel):
    """Empty the wheel; return its timers (in no order)."""
    cdef list timers = []
    cdef Timer timer
    cdef int level
    if wheel.buckets is not None:
        for bucket in wheel.buckets:
            if bucket is not None:
                for timer in <list>bucket:
                    timer._heap_index = -1
                    timer._in_wheel = False
                timers.extend(<list>bucket)
    wheel.buckets = None
    for level in range(WHEEL_LEVELS):
        wheel.bits[level] = 0
    wheel.count = 0
    return timers


cdef list _wheel_timers(_TimerWheel wheel):
    """The timers filed in the wheel, in no order."""
    cdef list timers = []
    if wheel is not None and wheel.buckets is not None:
        for bucket in wheel.buckets:
            if bucket is not None:
                timers.extend(<list>bucket)
    return timers

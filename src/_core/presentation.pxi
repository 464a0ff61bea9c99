# presenting(): render code marked so that it cannot advance the clock.

cdef class Presentation:
    """Presentation(clock)
--

The context ``WorldClock.presenting()`` returns: render code inside it costs zero world
    time, and any advancing call made inside it, on the thread that entered it, raises.

    Other threads (a driver beside a render thread) are not affected. Leaving it releases
    the entering thread's mark whatever thread leaves (a render generator finalised by the
    garbage collector on another thread still unblocks the driver).

    Parameters
    ----------
    clock : WorldClock
        The clock to mark; ``clock.presenting()`` is the usual way to make one.
    """

    # Any thread enters and leaves (threads.pxi): _thread, and the clock's _presenters and
    # _presenting, change under the critical sections of this context and of its clock.
    cdef WorldClock _clock      # None only for an instance made with __new__
    cdef object _thread         # the ident of the thread that entered it; None until then

    def __init__(self, WorldClock clock not None):
        if self._thread is not None:
            raise RuntimeError("this presenting() context is entered; leave it first")
        self._clock = clock

    def __enter__(self):
        if self._clock is None:
            raise RuntimeError("this Presentation has no clock: make it with "
                               "clock.presenting() or Presentation(clock)")
        thread = threading.get_ident()
        with cython.critical_section(self, self._clock):
            if self._thread is not None:
                raise RuntimeError("this presenting() context is already entered")
            if self._clock._presenters is None:
                self._clock._presenters = {}
            presenters = self._clock._presenters
            presenters[thread] = presenters.get(thread, 0) + 1
            self._clock._presenting += 1
            self._thread = thread
        return self._clock

    def __exit__(self, exc_type, exc, tb):
        if self._clock is None:
            raise RuntimeError("presenting() exited without being entered")
        with cython.critical_section(self, self._clock):
            if self._thread is None:
                raise RuntimeError("presenting() exited without being entered")
            # Release the mark of the thread that entered, whichever thread leaves.
            thread, self._thread = self._thread, None
            presenters = self._clock._presenters
            depth = presenters.pop(thread) - 1
            if depth:
                presenters[thread] = depth
            self._clock._presenting -= 1
        return False

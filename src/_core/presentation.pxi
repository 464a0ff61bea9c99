# presenting(): render code marked so that it cannot advance the clock.

cdef class Presentation:
    """The context ``WorldClock.presenting()`` returns: render code inside it costs zero world
    time, and any advancing call made inside it, on the thread that entered it, raises.
    Other threads (a driver beside a render thread) are not affected."""

    cdef WorldClock _clock
    cdef object _thread         # the ident of the thread that entered it; None until then


    def __enter__(self):
        if self._thread is not None:
            raise RuntimeError("this presenting() context is already entered")
        self._thread = threading.get_ident()
        presenters = self._clock._presenters
        presenters[self._thread] = presenters.get(self._thread, 0) + 1
        self._clock._presenting += 1
        return self._clock

    def __exit__(self, exc_type, exc, tb):
        # Only the thread that entered leaves, and only once.
        if self._thread is None or self._thread != threading.get_ident():
            raise RuntimeError("presenting() exited without being entered on this thread")
        presenters = self._clock._presenters
        depth = presenters.pop(self._thread) - 1
        if depth:
            presenters[self._thread] = depth
        self._clock._presenting -= 1
        self._thread = None
        return False

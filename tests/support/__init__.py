"""Helpers the tests share: the pure-Python oracle, the two implementations under test, small
deterministic worlds, and set-ups several test modules build."""

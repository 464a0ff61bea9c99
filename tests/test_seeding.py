"""Random streams by name: independent of each other, the same in every process and platform."""

import hashlib
import os
import pickle
import subprocess
import sys

import numpy as np
import pytest

from cvcclock.seeding import RandomStreams, name_key, seed_sequence

TIMEOUT = 60.0


def draws(streams, name, n=5):
    return streams.get(name).integers(0, 2**32, n).tolist()


def test_the_same_seed_and_name_give_the_same_stream():
    assert draws(RandomStreams(7), "spawn") == draws(RandomStreams(7), "spawn")


def test_another_name_or_seed_gives_another_stream():
    assert draws(RandomStreams(7), "spawn") != draws(RandomStreams(7), "wind")
    assert draws(RandomStreams(7), "spawn") != draws(RandomStreams(8), "spawn")
    # Names that differ by one character, and the empty name, are streams of their own.
    assert len({tuple(draws(RandomStreams(7), n)) for n in ("a", "b", "ab", "ba", "")}) == 5


def test_a_new_consumer_does_not_shift_the_draws_of_existing_ones():
    alone = RandomStreams(7)
    expected = draws(alone, "spawn", 3) + draws(alone, "spawn", 3)

    crowded = RandomStreams(7)
    first = draws(crowded, "spawn", 3)
    crowded.get("wind").normal(size=1000)          # a consumer added later, drawing a lot
    crowded.get("noise").random()
    assert first + draws(crowded, "spawn", 3) == expected


def test_a_stream_is_the_same_object_and_continues_where_it_left_off():
    streams = RandomStreams(3)
    assert streams.get("a") is streams.get("a")
    assert streams.names == ("a",)


def test_the_name_key_is_the_sha256_of_the_utf8_name():
    digest = hashlib.sha256("spawn ü".encode()).digest()
    assert name_key("spawn ü") == tuple(int.from_bytes(digest[i:i + 4], "little")
                                        for i in range(0, 32, 4))
    sequence = seed_sequence(5, "spawn ü")
    assert (sequence.entropy, sequence.spawn_key) == (5, name_key("spawn ü"))


def test_the_bit_stream_is_pinned_on_every_platform():
    # PCG64's output is fixed by numpy on every platform; these are its first three words
    # for (seed 20240601, "spawn"). A change here means saved runs draw other numbers.
    raw = RandomStreams(20240601).get("spawn").bit_generator.random_raw(3)
    assert [int(x) for x in raw] == [0x3D96F8E58545BB66, 0xE366E45FF4693F93, 0xB6946BB774D5F0E3]
    assert isinstance(RandomStreams(1).get("x").bit_generator, np.random.PCG64)


def test_another_process_with_another_hash_seed_draws_the_same():
    code = ("from cvcclock.seeding import RandomStreams; s = RandomStreams(99); "
            "print(s.get('wind').integers(0, 2**32, 5).tolist(), "
            "s.get('spawn').integers(0, 2**32, 5).tolist())")
    outputs = set()
    for hash_seed in ("0", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              env=env, timeout=TIMEOUT)
        assert proc.returncode == 0, proc.stderr
        outputs.add(proc.stdout)
    here = RandomStreams(99)
    assert outputs == {f"{draws(here, 'wind')} {draws(here, 'spawn')}\n"}


def test_state_and_restore_put_every_stream_back():
    streams = RandomStreams(11)
    streams.get("a").random(4)
    saved = streams.state()
    assert pickle.loads(pickle.dumps(saved)) == saved
    after = draws(streams, "a") + draws(streams, "b")
    streams.restore(saved)
    assert streams.names == ("a",)          # "b" was first used after the state: forgotten
    assert draws(streams, "a") + draws(streams, "b") == after
    assert streams.state() != saved


@pytest.mark.parametrize("seed, error", [(-1, ValueError), (-2**70, ValueError),
                                         (1.0, TypeError), (True, TypeError), ("7", TypeError)])
def test_a_bad_seed_is_refused_naming_it(seed, error):
    with pytest.raises(error, match="seed"):
        RandomStreams(seed)


def test_a_seed_may_be_a_numpy_integer():
    assert draws(RandomStreams(np.int64(7)), "a") == draws(RandomStreams(7), "a")


def test_a_bad_name_or_state_is_refused_and_changes_nothing():
    streams = RandomStreams(1)
    streams.get("a")
    with pytest.raises(TypeError, match="name must be a str, got 3"):
        streams.get(3)
    with pytest.raises(TypeError, match="state must be"):
        streams.restore([("a", {})])
    with pytest.raises((TypeError, ValueError)):
        streams.restore({"a": {"bit_generator": "MT19937"}})
    assert streams.names == ("a",)


@pytest.mark.parametrize("bad, error, words", [
    (["x"], TypeError, "name must be a str, got ['x']"),
    (("x",), TypeError, "name must be a str, got ('x',)"),
    (None, TypeError, "name must be a str, got None"),
    ("\ud800", ValueError, "name must be text UTF-8 can encode, got '\\ud800' (a lone "
                           "surrogate at index 0)"),
    ("ok \udfff", ValueError, "got 'ok \\udfff' (a lone surrogate at index 3)"),
])
def test_a_name_that_is_no_stream_name_is_refused_naming_the_argument(bad, error, words):
    streams = RandomStreams(1)
    streams.get("a")
    before = streams.state()
    for call in (streams.get, name_key, lambda n: seed_sequence(1, n)):
        with pytest.raises(error) as caught:
            call(bad)
        assert str(caught.value) == words or words in str(caught.value)
    assert streams.names == ("a",) and streams.state() == before


def test_a_state_naming_no_stream_is_refused_and_changes_nothing():
    streams = RandomStreams(1)
    streams.get("a").random(3)
    before = streams.state()
    bad = {"a": before["a"], "\ud800": before["a"]}
    with pytest.raises(ValueError, match=r"a stream name in state must be text UTF-8 can "
                                         r"encode, got '\\ud800'"):
        streams.restore(bad)
    assert streams.state() == before


def test_the_stream_name_rule_lives_in_checks():
    from cvcclock.checks import check_stream_name

    assert check_stream_name("spawn ü") == "spawn ü"
    with pytest.raises(ValueError, match="wind must be text UTF-8 can encode"):
        check_stream_name("\ud83d", "wind")
    with pytest.raises(TypeError, match="wind must be a str, got b'x'"):
        check_stream_name(b"x", "wind")

"""The ``cvcclock netplay-demo`` command: two peers play Pong through a lossy relay.

``cvcclock netplay-demo [--frames N] [--delay S] [--jitter S] [--loss P] [--duplicate P]
[--seed K] [--input-delay F] [--max-prediction F] [--trace PATH]`` starts a relay on
127.0.0.1 and two peer processes, each a :class:`cvcclock.netplay.P2PSession` on its own
live clock whose scripted player follows the ball it sees (its predicted world). Headless.
It prints each peer's counters and whether both confirmed the same final state. With
``--trace`` it writes peer 0's record of the match, which ``cvcclock replay`` plays back.
Exit status: 0 the confirmed states agree; 1 they do not (or a desync was reported); 2 an
argument is wrong or a peer did not finish in time.

The ``cvcclock replay`` of a Pong trace is :func:`replay_outcome`.
"""

from __future__ import annotations

import argparse
import dataclasses
import multiprocessing
import secrets
import sys
import time
from collections.abc import Callable
from typing import Any

from cvcclock import ClockConfig, Mode, WorldClock
from cvcclock.checks import check_count, check_probability, check_seconds, check_seed
from cvcclock.cli._output import reader_may_leave
from cvcclock.netplay import PONG_WORLD, Desync, LossyRelay, P2PSession, Pong
from cvcclock.replay import InputTrace, Replayer, default_state_hash

__all__ = ["DESCRIPTION", "add_parser", "replay_outcome", "run"]

FIXED_DT = 1 / 120
FRAME_DT = 1 / 60              # one game frame: 2 quanta
LINGER = 0.3                   # seconds a finished peer goes on answering
PEER_TIMEOUT = 30.0            # seconds past the match's own length a peer may take

DESCRIPTION = """\
Play Pong between two peer processes on 127.0.0.1 through a relay that delays,
jitters, drops and duplicates their datagrams. Each peer is a rollback session on
its own live clock (60 frames a second): it predicts the other's input, rolls back
when a confirmed one differs, and exchanges state hashes. Print each peer's
rollbacks, stalls and round-trip time, and whether both confirmed the same final
state."""

EPILOG = """\
exit status: 0 both peers confirmed the same final state; 1 they did not, or a
desync was reported; 2 an argument is wrong or a peer did not finish in time;
130 interrupted."""


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]
               ) -> argparse.ArgumentParser:
    """Add the ``netplay-demo`` command and its options to ``commands``; return its parser."""
    demo = commands.add_parser("netplay-demo", help="two peers play Pong through a lossy relay",
                               description=DESCRIPTION, epilog=EPILOG,
                               formatter_class=argparse.RawDescriptionHelpFormatter)
    demo.add_argument("--frames", type=int, default=600, metavar="N",
                      help="frames to play, 1 to 100000 (default: 600, 10 s)")
    demo.add_argument("--delay", type=float, default=0.03, metavar="S",
                      help="the relay's delay in seconds (default: 0.03)")
    demo.add_argument("--jitter", type=float, default=0.03, metavar="S",
                      help="plus a uniform draw below this, in seconds (default: 0.03)")
    demo.add_argument("--loss", type=float, default=0.05, metavar="P",
                      help="the probability a datagram is dropped (default: 0.05)")
    demo.add_argument("--duplicate", type=float, default=0.02, metavar="P",
                      help="the probability a datagram is delivered twice (default: 0.02)")
    demo.add_argument("--seed", type=int, default=1, metavar="K",
                      help="the relay's seed (default: 1)")
    demo.add_argument("--input-delay", type=int, default=2, metavar="F",
                      help="frames from a local input to its frame (default: 2)")
    demo.add_argument("--max-prediction", type=int, default=8, metavar="F",
                      help="frames run ahead of the last remote input (default: 8)")
    demo.add_argument("--trace", metavar="PATH",
                      help="write peer 0's record of the match ('cvcclock replay PATH')")
    return demo


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Play the match and print the report; 0 agreed, 1 disagreed, 2 a failure."""
    config = _checked(parser, args)
    try:
        results, relay = _play_match(config)
    except TimeoutError as error:
        print(f"cvcclock netplay-demo: {error}", file=sys.stderr)
        return 2
    agree = results[0]["hash"] == results[1]["hash"] and not any(
        r["desyncs"] for r in results)
    report = _report(config, results, relay, agree)
    if args.trace is not None:
        try:
            size = InputTrace.from_lines([*results[0]["trace"], ""]).save(args.trace)
        except OSError as error:
            print(f"cvcclock netplay-demo: cannot write {args.trace}: {error.strerror}",
                  file=sys.stderr)
            return 2
        report += (f"trace: peer 0's record, {size} bytes, written to {args.trace} "
                   f"(cvcclock replay {args.trace})\n")
    status = 0 if agree else 1
    with reader_may_leave(status):
        print(report, end="")
    return status


@dataclasses.dataclass(frozen=True)
class _Config:
    frames: int
    delay: float
    jitter: float
    loss: float
    duplicate: float
    seed: int
    input_delay: int
    max_prediction: int


def _checked(parser: argparse.ArgumentParser, args: argparse.Namespace) -> _Config:
    try:
        return _Config(frames=check_count(args.frames, "--frames", minimum=1, maximum=100_000),
                       delay=check_seconds(args.delay, "--delay", maximum=10.0),
                       jitter=check_seconds(args.jitter, "--jitter", maximum=10.0),
                       loss=check_probability(args.loss, "--loss"),
                       duplicate=check_probability(args.duplicate, "--duplicate"),
                       seed=check_seed(args.seed, "--seed"),
                       input_delay=check_count(args.input_delay, "--input-delay", maximum=30),
                       max_prediction=check_count(args.max_prediction, "--max-prediction",
                                                  minimum=1, maximum=30))
    except ValueError as error:
        parser.error(str(error))


def _play_match(config: _Config) -> tuple[list[dict[str, Any]], LossyRelay]:
    """Run the relay here and a peer in each of two processes; their results."""
    relay = LossyRelay(delay=config.delay, jitter=config.jitter, loss=config.loss,
                       duplicate=config.duplicate, seed=config.seed)
    context = multiprocessing.get_context("spawn")
    key = secrets.token_bytes(32)
    procs, pipes = [], []
    budget = config.frames * FRAME_DT * 3 + PEER_TIMEOUT
    with relay:
        try:
            for player in (0, 1):
                mine, theirs = context.Pipe()
                peer = {"player": player, "peer": relay.address_of(1 - player), "key": key,
                        "frames": config.frames, "input_delay": config.input_delay,
                        "max_prediction": config.max_prediction, "budget": budget}
                proc = context.Process(target=_peer, args=(theirs, peer), daemon=True)
                proc.start()
                procs.append(proc)
                pipes.append(mine)
            results = [_result(pipe, proc, budget + 10) for pipe, proc in zip(pipes, procs,
                                                                             strict=True)]
        finally:
            for proc in procs:
                if proc.is_alive():
                    proc.kill()
                proc.join(timeout=10)
    return results, relay


def _result(pipe: Any, proc: Any, timeout: float) -> dict[str, Any]:
    """The peer's result, or TimeoutError when it dies or takes longer than ``timeout``."""
    deadline = time.monotonic() + timeout
    while (left := deadline - time.monotonic()) > 0:
        if pipe.poll(min(left, 0.5)):
            result: dict[str, Any] = pipe.recv()
            if result.get("error"):
                raise TimeoutError(result["error"])
            return result
        if not proc.is_alive() and not pipe.poll():
            raise TimeoutError(f"a peer process ended (exit status {proc.exitcode}) "
                               "without a result")
    raise TimeoutError(f"a peer did not finish within {timeout:.0f} s")


def _peer(conn: Any, config: dict[str, Any]) -> None:
    """One peer's process: play the frames, wait until the other has our inputs, report."""
    world = Pong()
    clock = WorldClock(ClockConfig(fixed_dt=FIXED_DT))
    player, frames = config["player"], config["frames"]
    session = P2PSession(world, clock, local_player=player,
                         peers={1 - player: tuple(config["peer"])},
                         session_key=config["key"], dt=FRAME_DT,
                         input_delay=config["input_delay"],
                         max_prediction=config["max_prediction"])
    deadline = time.monotonic() + config["budget"]
    desyncs = []
    last = time.monotonic()
    done_at = None
    while True:
        now = time.monotonic()
        if now > deadline:
            conn.send({"error": f"peer {player} did not finish in {config['budget']:.0f} s"})
            return
        if session.frame < frames:
            session.add_local_input(world.bot(player))
            # The last frames a quantum at a time, so that none runs past the match's end.
            clock.advance(now - last) if session.frame < frames - 4 else clock.advance_ticks(1)
        last = now
        session.pump()
        desyncs += [e.frame for e in session.events() if isinstance(e, Desync)]
        stats = session.stats()
        if done_at is None and stats.confirmed_frame == frames - 1 \
                and session.frame == frames and all(p.acked_frame >= frames - 1
                                                    or not p.connected
                                                    for p in stats.peers.values()):
            done_at = now
        # Done, it answers a little longer, so that the other peer hears its last acks.
        if done_at is not None and now - done_at > LINGER:
            break
        time.sleep(0.001)
    trace = session.trace(metadata={"world": PONG_WORLD})
    conn.send({"hash": default_state_hash(world.snapshot()), "score": list(world.score),
               "stats": stats, "desyncs": desyncs, "trace": list(trace.lines()),
               "hashes": len(trace.hashes)})
    session.close()


def _report(config: _Config, results: list[dict[str, Any]], relay: LossyRelay,
            agree: bool) -> str:
    lines = [f"netplay demo: Pong between 2 peer processes on 127.0.0.1, {config.frames} "
             f"frames of 1/60 s, through a relay: delay {config.delay * 1000:.0f} ms + "
             f"jitter {config.jitter * 1000:.0f} ms, loss {config.loss:.0%}, duplicates "
             f"{config.duplicate:.0%}"]
    for player, r in enumerate(results):
        s = r["stats"]
        rtt = s.peers[1 - player].rtt
        dropped = sum(s.dropped.values())
        lines.append(f"peer {player}: {s.confirmed_frame + 1} frames confirmed, "
                     f"{s.rollbacks} rollbacks ({s.frames_resimulated} frames re-simulated), "
                     f"{s.stalled} stalls, rtt "
                     + ("-" if rtt is None else f"{rtt * 1000:.0f} ms")
                     + f", {dropped} datagrams dropped (replayed {s.dropped['replayed']})")
    lines.append(f"relay: {relay.forwarded} datagrams forwarded, {relay.dropped} dropped, "
                 f"{relay.duplicated} duplicated")
    r0, r1 = results
    lines.append(f"final score {r0['score'][0]}-{r0['score'][1]}, state hash {r0['hash']} "
                 f"(peer 1: {r1['hash']})")
    if agree:
        lines.append(f"confirmed states agree: yes ({r0['hashes']} state hashes exchanged, "
                     "no desync)")
    else:
        lines.append("confirmed states agree: NO" + "".join(
            f"; peer {p} reported a desync at frame {r['desyncs'][0]}"
            for p, r in enumerate(results) if r["desyncs"]))
    return "".join(line + "\n" for line in lines)


# -- cvcclock replay of a Pong trace ---------------------------------------------------------

def replay_outcome(path: str, trace: InputTrace, pacing: str, speed: float | None,
                   to: int | None) -> tuple[int, str]:
    """Replay a Pong match's trace under ``pacing``; ``(status, report)``: 0 every recorded
    state hash matched, 1 one differed (the first is named)."""
    clock = WorldClock(ClockConfig(fixed_dt=trace.header.fixed_dt))
    world = Pong()
    replayer = Replayer(world, clock, trace, on_divergence="collect")
    frames: dict[str, tuple[Mode, Callable[[], object]]] = {
        "live": (Mode.LIVE, lambda: clock.advance(1 / 60)),
        "lockstep": (Mode.LOCKSTEP, lambda: clock.advance(1 / 60)),
        "batch": (Mode.LIVE, lambda: clock.advance_ticks(37)),
        "step": (Mode.STEPPING, clock.step_once),
    }
    mode, frame = frames[pacing]
    clock.mode = mode
    if mode == Mode.LOCKSTEP:
        clock.lockstep_steps = 3
    if speed is not None:
        clock.scale = speed
    end = trace.end_tick if to is None else to
    count = 0
    while clock.tick < end:
        if pacing == "batch" and end - clock.tick < 37:
            clock.advance_ticks(end - clock.tick)
        else:
            frame()
        count += 1
        replayer.pump()
    players = trace.header.metadata.get("netplay", {})
    lines = [f"trace {path}: a netplay match of Pong, "
             f"{players.get('players', '?') if isinstance(players, dict) else '?'} players, "
             f"{trace.end_tick // trace.header.period} frames (ticks "
             f"{trace.header.start_tick}-{trace.end_tick}), {len(trace.inputs)} inputs, "
             f"{len(trace.hashes)} state hashes",
             f"replayed {pacing}: {count} clock frames, {replayer.follower.steps} game frames",
             f"final tick {clock.tick}, score {world.score[0]}-{world.score[1]}, state hash "
             f"{default_state_hash(world.snapshot())}"]
    if replayer.divergences:
        first = replayer.divergences[0]
        lines.append(f"DIVERGED at tick {first.tick}: recorded state hash {first.recorded}, "
                     f"replayed {first.replayed}; {len(replayer.divergences)} of "
                     f"{len(replayer.checked)} state hashes differ")
    else:
        lines.append(f"matched: {len(replayer.checked)} state hashes checked, all equal")
    return (1 if replayer.divergences else 0), "".join(line + "\n" for line in lines)

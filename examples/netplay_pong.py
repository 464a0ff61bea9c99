"""Rollback netplay in two pygame windows: Pong between two processes through a lossy relay.

What it shows:

- a :class:`cvcclock.netplay.P2PSession` in the usual ``pygame.event.get()`` loop: the keys
  give the local input (``add_local_input``), ``clock.advance`` takes the measured frame
  time, ``session.pump()`` runs the due frames, rolls back and talks to the other peer;
- what rollback looks like: each window draws the world as its peer predicts it, and a
  late input from the other side corrects it within a frame or two, unnoticed;
- the two processes (one window each, ``--player 0`` and ``--player 1``, started by this
  script) talk through a :class:`cvcclock.netplay.LossyRelay` in the parent, which delays,
  jitters and drops their datagrams as a bad network would.

Run it::

    python examples/netplay_pong.py                   # two windows: W/S and Up/Down

Headless, with scripted players, for a fixed number of frames::

    SDL_VIDEODRIVER=dummy python examples/netplay_pong.py --frames 240 --screenshot pong.png

It prints what the match did as one line of JSON: each peer's frames, rollbacks and final
state hash, and whether the two confirmed the same state.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import subprocess
import sys
import time

# pygame prints a "Hello from the pygame community" banner on import unless this is set.
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame  # noqa: E402  (after the variable that silences its banner)

from cvcclock import ClockConfig, WorldClock  # noqa: E402
from cvcclock.netplay import LossyRelay, P2PSession, Pong  # noqa: E402
from cvcclock.replay import default_state_hash  # noqa: E402

SIZE = (640, 360)
FRAME_DT = 1 / 60
BACKGROUND = (20, 24, 32)
BALL = (255, 170, 40)
PADDLE = (200, 200, 200)
TEXT = (200, 200, 200)
KEYS = {0: (pygame.K_w, pygame.K_s), 1: (pygame.K_UP, pygame.K_DOWN)}


def key_input(player: int) -> int:
    """-1, 0 or 1 from the player's keys (W/S for player 0, Up/Down for player 1)."""
    up, down = KEYS[player]
    pressed = pygame.key.get_pressed()
    return int(pressed[down]) - int(pressed[up])


def draw(screen: pygame.Surface, font: pygame.font.Font, world: Pong, player: int,
         session: P2PSession) -> None:
    """The world as this peer sees it now (predicted frames included) and a status line."""
    screen.fill(BACKGROUND)
    pygame.draw.rect(screen, PADDLE, (12, world.left, 8, 60))
    pygame.draw.rect(screen, PADDLE, (SIZE[0] - 20, world.right, 8, 60))
    x, y, _, _ = world.ball
    pygame.draw.rect(screen, BALL, (x, y, 8, 8))
    stats = session.stats()
    rtt = stats.peers[1 - player].rtt
    line = (f"player {player}  score {world.score[0]}-{world.score[1]}  frame {stats.frame}  "
            f"rollbacks {stats.rollbacks}  rtt {'-' if rtt is None else f'{rtt * 1000:.0f} ms'}")
    screen.blit(font.render(line, True, TEXT), (8, SIZE[1] - 22))
    pygame.display.flip()


def play(player: int, peer: tuple[str, int], key: bytes, frames: int | None, bots: bool,
         screenshot: str | None) -> dict[str, object]:
    """One peer: a window, a session, the frame loop; what it did."""
    pygame.display.init()
    pygame.font.init()
    screen = pygame.display.set_mode(SIZE)
    pygame.display.set_caption(f"cvcclock netplay pong: player {player}")
    font = pygame.font.Font(None, 22)
    world = Pong()
    clock = WorldClock(ClockConfig(fixed_dt=1 / 120))
    session = P2PSession(world, clock, local_player=player, peers={1 - player: peer},
                         session_key=key, dt=FRAME_DT)
    pacer = pygame.time.Clock()
    done_at = None
    last = time.perf_counter()
    deadline = last + (60.0 + 3 * frames * FRAME_DT if frames else float("inf"))
    while time.perf_counter() < deadline:
        if any(e.type == pygame.QUIT or (e.type == pygame.KEYDOWN and e.key == pygame.K_ESCAPE)
               for e in pygame.event.get()):
            break
        now = time.perf_counter()
        if frames is None or session.frame < frames:
            session.add_local_input(world.bot(player) if bots else key_input(player))
            if frames is None or session.frame < frames - 4:
                clock.advance(now - last)
            else:
                clock.advance_ticks(1)      # the last frames one quantum at a time: none past
        last = now
        session.pump()
        if any(type(e).__name__ == "Disconnected" for e in session.events()):
            break
        draw(screen, font, world, player, session)
        stats = session.stats()
        if frames is not None and done_at is None and stats.confirmed_frame == frames - 1 \
                and all(p.acked_frame >= frames - 1 for p in stats.peers.values()):
            done_at = now
        if done_at is not None and now - done_at > 0.3:   # its last acks reach the peer
            break
        pacer.tick(120)
    if screenshot:
        pygame.image.save(screen, screenshot)
    stats = session.stats()
    session.close()
    pygame.quit()
    return {"player": player, "frames": stats.confirmed_frame + 1,
            "rollbacks": stats.rollbacks, "stalled": stats.stalled,
            "hash": default_state_hash(world.snapshot()), "score": list(world.score)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, help="stop after N confirmed frames; the "
                        "players are then scripted")
    parser.add_argument("--delay", type=float, default=0.03, help="the relay's delay (s)")
    parser.add_argument("--jitter", type=float, default=0.03, help="its jitter (s)")
    parser.add_argument("--loss", type=float, default=0.05, help="its loss probability")
    parser.add_argument("--screenshot", help="save player 0's last frame to this PNG")
    parser.add_argument("--player", type=int, choices=(0, 1), help=argparse.SUPPRESS)
    parser.add_argument("--peer", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.player is not None:            # a peer process: the key comes on stdin
        host, port = args.peer.rsplit(":", 1)
        key = bytes.fromhex(sys.stdin.readline().strip())
        print(json.dumps(play(args.player, (host, int(port)), key, args.frames,
                              args.frames is not None, args.screenshot)))
        return
    key = secrets.token_bytes(32)
    with LossyRelay(delay=args.delay, jitter=args.jitter, loss=args.loss) as relay:
        peers = []
        for player in (0, 1):
            host, port = relay.address_of(1 - player)
            argv = [sys.executable, __file__, "--player", str(player), "--peer", f"{host}:{port}"]
            if args.frames is not None:
                argv += ["--frames", str(args.frames)]
            if args.screenshot and player == 0:
                argv += ["--screenshot", args.screenshot]
            proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    text=True)
            proc.stdin.write(key.hex() + "\n")
            proc.stdin.close()
            peers.append(proc)
        try:
            # Each peer ends by itself (its frames played, its window closed, or a deadline).
            results = [json.loads(proc.stdout.read()) for proc in peers]
        finally:
            for proc in peers:
                if proc.poll() is None:
                    proc.kill()
                proc.wait()
                proc.stdout.close()
    print(json.dumps({"peers": results,
                      "agree": results[0]["hash"] == results[1]["hash"]
                      and results[0]["frames"] == results[1]["frames"],
                      "relay": {"forwarded": relay.forwarded, "dropped": relay.dropped}}))


if __name__ == "__main__":
    main()

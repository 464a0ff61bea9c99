"""A pygame frame loop on cvcclock: a world stepped at its own rate, drawn interpolated.

What it shows:

- the usual ``pygame.event.get()`` loop, with cvcclock's binding as the one driver of the
  clock: the keys write the binding's state-tree keys (Space pauses, ``.`` runs one quantum,
  Up/Down double or halve the speed) and ``binding.drive()`` applies them once per frame;
- a ball world stepped by a ``ClockFollower`` at 10 Hz, deliberately coarse: on a 60 Hz
  display it is drawn where it is between its last two steps (``alpha``), inside
  ``clock.presenting()``, and those two stepped positions are drawn faint.

Run it::

    python examples/pygame_loop.py                     # a window; Esc or closing it quits

Headless, for a fixed number of frames of exactly 1/60 s each (a capture: deterministic),
saving the last frame::

    SDL_VIDEODRIVER=dummy python examples/pygame_loop.py --frames 26 --wall-dt 0.0166666667 \\
        --screenshot ball.png

It prints what it did as one line of JSON.
"""

from __future__ import annotations

import argparse
import json
import os

# pygame prints a "Hello from the pygame community" banner on import unless this is set.
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame  # noqa: E402  (after the variable that silences its banner)

import cvcclock  # noqa: E402

SIZE = (640, 360)
STEP_DT = 0.1                      # the world's step: 12 quanta of the default 1/120 s
RADIUS = 14
BACKGROUND = (20, 24, 32)
GHOST = (90, 70, 50)               # the two stepped positions
BALL = (255, 170, 40)              # the interpolated position
TEXT = (200, 200, 200)


class Ball:
    """The world: a ball bouncing in the window, stepped only by the follower."""

    def __init__(self) -> None:
        self.x, self.y = 30.0, 150.0
        self.vx, self.vy = 1000.0, 150.0           # px per second: 100 px per step

    def step(self, dt: float) -> None:
        self.x += self.vx * dt
        self.y += self.vy * dt
        if not RADIUS <= self.x <= SIZE[0] - RADIUS:
            self.vx = -self.vx
            self.x = min(max(self.x, RADIUS), SIZE[0] - RADIUS)
        if not RADIUS <= self.y <= SIZE[1] - RADIUS:
            self.vy = -self.vy
            self.y = min(max(self.y, RADIUS), SIZE[1] - RADIUS)

    @property
    def position(self) -> tuple[float, float]:
        return (self.x, self.y)


class Game:
    """The clock, its binding and the world, with what a frame does to them."""

    def __init__(self) -> None:
        self.tree: dict[str, object] = {}      # the binding's state tree: the keys write it
        # cap_scales_with_rate: at 8x a 60 fps frame banks 16 quanta; the default cap of 8
        # per advance would drop half of them.
        self.clock = cvcclock.WorldClock(cvcclock.ClockConfig(cap_scales_with_rate=True))
        self.binding = cvcclock.WorldClockBinding(self.tree, self.clock)
        self.physics = cvcclock.ClockFollower.for_step(self.clock, STEP_DT)
        self.ball = Ball()
        self.prev = self.now = (self.clock.tick, self.ball.position)   # (tick, position)
        self.steps = 0

    def on_key(self, key: int) -> None:
        """A key writes a control key; the next drive() applies it."""
        if key == pygame.K_SPACE:
            self.tree["sim.paused"] = not self.tree["sim.paused"]
        elif key == pygame.K_PERIOD:
            self.tree["sim.step"] += 1             # each increment runs one quantum
        elif key == pygame.K_UP:
            self.tree["sim.speed"] = min(self.tree["sim.speed"] * 2, 8.0)
        elif key == pygame.K_DOWN:
            self.tree["sim.speed"] = max(self.tree["sim.speed"] / 2, 0.125)

    def update(self, wall_dt: float | None) -> None:
        """Drive the clock once (None: the binding measures the wall), step what fell due."""
        self.binding.drive(wall_dt)
        for due in self.physics.take_due(self.clock):      # the ticks the steps fell due at
            self.ball.step(STEP_DT)
            self.prev, self.now = self.now, (due, self.ball.position)
            self.steps += 1

    def alpha(self) -> float:
        """How far the clock is into the world's current step, 0 <= alpha < 1."""
        return self.physics.alpha(self.clock.tick, self.clock.alpha)

    def draw(self, screen: pygame.Surface, font: pygame.font.Font) -> None:
        with self.clock.presenting():              # drawing costs zero world time
            a = self.alpha()
            (_, (x0, y0)), (_, (x1, y1)) = self.prev, self.now
            drawn = (x0 + (x1 - x0) * a, y0 + (y1 - y0) * a)
            screen.fill(BACKGROUND)
            for tick, (x, y) in (self.prev, self.now):
                pygame.draw.circle(screen, GHOST, (x, y), RADIUS)
                label(screen, font, f"tick {tick}", (x, y - RADIUS - 12))
            pygame.draw.circle(screen, BALL, drawn, RADIUS)
            label(screen, font, f"alpha {a:.2f}", (drawn[0], drawn[1] + RADIUS + 12))
            status = status_line(self.clock.tick, self.tree)
            screen.blit(font.render(status, True, TEXT), (8, SIZE[1] - 24))


def status_line(tick: int, tree: dict[str, object]) -> str:
    """The line along the bottom: the tick, the speed, PAUSED when paused."""
    return (f"tick {tick}  speed {tree['sim.speed']:g}x{'  PAUSED' if tree['sim.paused'] else ''}"
            "  faint: last two steps, bright: between them by alpha")


def label(screen: pygame.Surface, font: pygame.font.Font, text: str,
          center: tuple[float, float]) -> None:
    image = font.render(text, True, TEXT)
    screen.blit(image, image.get_rect(center=center))


def run_frame(game: Game, screen: pygame.Surface, font: pygame.font.Font,
              wall_dt: float | None) -> bool:
    """One frame: events, one drive, draw, flip. False once the user asked to quit."""
    for event in pygame.event.get():
        if event.type == pygame.QUIT or (event.type == pygame.KEYDOWN
                                         and event.key == pygame.K_ESCAPE):
            return False
        if event.type == pygame.KEYDOWN:
            game.on_key(event.key)
    game.update(wall_dt)
    game.draw(screen, font)
    pygame.display.flip()
    return True


def main(argv: list[str] | None = None) -> dict[str, object]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, help="stop after this many frames")
    parser.add_argument("--wall-dt", type=float,
                        help="advance exactly this much wall time per frame, never sleep")
    parser.add_argument("--screenshot", help="save the last frame to this PNG")
    args = parser.parse_args(argv)

    # Only what the recipe uses: pygame.init() would also open the mixer, which on a machine
    # without a sound card fills stderr with ALSA's complaints.
    pygame.display.init()
    pygame.font.init()
    screen = pygame.display.set_mode(SIZE)
    pygame.display.set_caption("cvcclock + pygame: Space pause, . step, Up/Down speed")
    font = pygame.font.Font(None, 24)
    game = Game()
    pacer = pygame.time.Clock()
    frames = 0
    while args.frames is None or frames < args.frames:
        if not run_frame(game, screen, font, args.wall_dt):
            break
        frames += 1
        if args.wall_dt is None:
            pacer.tick(60)                         # pace the frames; the binding measures them
    if args.screenshot:
        pygame.image.save(screen, args.screenshot)
    pygame.quit()
    summary = {"frames": frames, "tick": game.clock.tick, "k": game.physics.period,
               "steps": game.steps, "dropped": game.clock.total_dropped,
               "alpha": game.alpha(), "prev": game.prev[1], "now": game.now[1]}
    print(json.dumps(summary))
    return summary


if __name__ == "__main__":
    main()

"""A pyglet app on cvcclock: the clock driven from ``pyglet.clock.schedule_interval``.

What it shows:

- ``update(dt)``, scheduled with ``pyglet.clock.schedule_interval``, is the clock's one
  driver: it hands pyglet's ``dt`` to cvcclock's binding and steps the ball world each time
  its follower says a 10 Hz step fell due;
- ``on_draw`` runs inside ``clock.presenting()`` and draws the ball interpolated by ``alpha``
  between its last two steps (drawn faint), and the status line along the bottom (tick,
  speed, PAUSED while paused);
- the keys write the binding's state-tree keys: Space pauses, ``.`` runs one quantum, Up/Down
  double or halve the speed.

Run it::

    python examples/pyglet_loop.py                     # a window; Esc or closing it quits

Headless (pyglet's EGL headless mode), 60 frames of exactly 1/60 s each, saving the last::

    PYGLET_HEADLESS=1 python examples/pyglet_loop.py --frames 60 --wall-dt 0.0166666667 \\
        --screenshot ball.png

It prints what it did as one line of JSON.
"""

from __future__ import annotations

import argparse
import json

import pyglet
from pyglet.window import key

import cvcclock

SIZE = (640, 360)
STEP_DT = 0.1                      # the world's step: 12 quanta of the default 1/120 s
RADIUS = 14
GHOST = (90, 70, 50)
BALL = (255, 170, 40)
TEXT = (200, 200, 200, 255)


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


class Game(pyglet.window.Window):
    """The window, the clock, its binding and the world."""

    def __init__(self, wall_dt: float | None = None, frames: int | None = None) -> None:
        super().__init__(*SIZE, caption="cvcclock + pyglet: Space pause, . step, Up/Down speed")
        self.wall_dt, self.frames_left = wall_dt, frames
        self.tree: dict[str, object] = {}      # the binding's state tree: the keys write it
        self.clock = cvcclock.WorldClock(cvcclock.ClockConfig(cap_scales_with_rate=True))
        self.binding = cvcclock.WorldClockBinding(self.tree, self.clock)
        self.physics = cvcclock.ClockFollower.for_step(self.clock, STEP_DT)
        self.ball = Ball()
        self.prev = self.now = (self.ball.x, self.ball.y)
        self.steps = self.frames = self.draws = 0
        self.batch = pyglet.graphics.Batch()
        self.ghosts = [pyglet.shapes.Circle(0, 0, RADIUS, color=GHOST, batch=self.batch)
                       for _ in range(2)]
        self.sprite = pyglet.shapes.Circle(0, 0, RADIUS, color=BALL, batch=self.batch)
        self.status = pyglet.text.Label("", x=8, y=8, font_size=11, color=TEXT,
                                        batch=self.batch)
        pyglet.clock.schedule_interval(self.update, 1 / 60)

    def update(self, dt: float) -> None:
        """The one driver: pyglet's dt (or the fixed wall_dt of a capture) into the binding."""
        self.binding.drive(self.wall_dt if self.wall_dt is not None else dt)
        for _ in range(self.physics.take(self.clock)):
            self.ball.step(STEP_DT)
            self.prev, self.now = self.now, (self.ball.x, self.ball.y)
            self.steps += 1
        self.frames += 1
        if self.frames_left is not None and self.frames >= self.frames_left:
            pyglet.app.exit()

    def alpha(self) -> float:
        """How far the clock is into the world's current step, 0 <= alpha < 1."""
        return self.physics.alpha(self.clock.tick, self.clock.alpha)

    def on_draw(self) -> None:
        with self.clock.presenting():          # drawing costs zero world time
            a = self.alpha()
            (x0, y0), (x1, y1) = self.prev, self.now
            self.ghosts[0].position, self.ghosts[1].position = self.prev, self.now
            self.sprite.position = (x0 + (x1 - x0) * a, y0 + (y1 - y0) * a)
            self.status.text = status_line(self.clock.tick, self.tree)
            self.clear()
            self.batch.draw()
            self.draws += 1

    def on_key_press(self, symbol: int, modifiers: int) -> None:
        if symbol == key.SPACE:
            self.tree["sim.paused"] = not self.tree["sim.paused"]
        elif symbol == key.PERIOD:
            self.tree["sim.step"] += 1             # each increment runs one quantum
        elif symbol == key.UP:
            self.tree["sim.speed"] = min(self.tree["sim.speed"] * 2, 8.0)
        elif symbol == key.DOWN:
            self.tree["sim.speed"] = max(self.tree["sim.speed"] / 2, 0.125)
        else:
            super().on_key_press(symbol, modifiers)    # Esc closes the window

    def screenshot(self, path: str) -> None:
        """Draw the current frame and save it as a PNG."""
        self.switch_to()
        self.on_draw()
        pyglet.image.get_buffer_manager().get_color_buffer().save(path)


def status_line(tick: int, tree: dict[str, object]) -> str:
    """The line along the bottom: the tick, the speed, PAUSED when paused."""
    return (f"tick {tick}  speed {tree['sim.speed']:g}x{'  PAUSED' if tree['sim.paused'] else ''}"
            "  faint: last two steps, bright: between them by alpha")


def main(argv: list[str] | None = None) -> dict[str, object]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, help="stop after this many frames")
    parser.add_argument("--wall-dt", type=float,
                        help="advance exactly this much wall time per frame")
    parser.add_argument("--screenshot", help="save the last frame to this PNG")
    args = parser.parse_args(argv)

    game = Game(args.wall_dt, args.frames)
    pyglet.app.run(1 / 60)                     # redraws (on_draw) at 60 Hz until exit()
    if args.screenshot and not game.has_exit:      # not when the user closed the window
        game.screenshot(args.screenshot)
    summary = {"frames": game.frames, "draws": game.draws, "tick": game.clock.tick,
               "k": game.physics.period, "steps": game.steps,
               "dropped": game.clock.total_dropped, "alpha": game.alpha(),
               "prev": game.prev, "now": game.now}
    game.close()
    print(json.dumps(summary))
    return summary


if __name__ == "__main__":
    main()

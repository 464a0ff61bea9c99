"""An arcade window on cvcclock: ``on_update(delta_time)`` drives it, instead of arcade's
fixed-update clock.

What it shows:

- where an arcade game would put its physics in ``on_fixed_update`` (arcade's accumulator at
  ``fixed_rate``), this one hands ``delta_time`` to cvcclock's binding in ``on_update`` and
  steps the world each time its follower says a 1/60 s step fell due. For the same frame
  times it runs the same steps as arcade's fixed clock (tests/project/test_examples.py
  compares them frame by frame), with three differences: on exact ties (steady 1/60 s
  frames) it runs one step every frame where arcade's float accumulator now and then runs 0
  then 2; a frame longer than 8 quanta (1/15 s) runs 4 steps and counts the rest as
  dropped, where arcade (``fixed_frame_cap=None``) runs them all; and pause, single-step
  and speed come through the binding's keys (Space, ``.``, Up/Down);
- ``on_draw`` inside ``clock.presenting()``, drawing the ball interpolated by ``alpha``
  between its last two steps (drawn faint), and the status line along the bottom (tick,
  speed, PAUSED while paused).

Run it::

    python examples/arcade_loop.py                     # a window; closing it quits

Headless (arcade's EGL headless mode), 60 frames of exactly 1/60 s each, saving the last::

    ARCADE_HEADLESS=1 python examples/arcade_loop.py --frames 60 --wall-dt 0.0166666667 \\
        --screenshot ball.png

It prints what it did as one line of JSON.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

import arcade

import cvcclock

SIZE = (640, 360)
STEP_DT = 1 / 60                   # arcade's default fixed_rate; 2 quanta of 1/120 s
RADIUS = 14
GHOST = (90, 70, 50)
BALL = (255, 170, 40)
TEXT = (200, 200, 200, 255)


class Ball:
    """The world: a ball bouncing in the window, stepped only by the follower."""

    def __init__(self) -> None:
        self.x, self.y = 30.0, 150.0
        self.vx, self.vy = 1000.0, 150.0           # px per second

    def step(self, dt: float) -> None:
        self.x += self.vx * dt
        self.y += self.vy * dt
        if not RADIUS <= self.x <= SIZE[0] - RADIUS:
            self.vx = -self.vx
            self.x = min(max(self.x, RADIUS), SIZE[0] - RADIUS)
        if not RADIUS <= self.y <= SIZE[1] - RADIUS:
            self.vy = -self.vy
            self.y = min(max(self.y, RADIUS), SIZE[1] - RADIUS)


class Game(arcade.Window):
    """The window, the clock, its binding and the world.

    ``window_options`` go to ``arcade.Window`` (``update_rate``, ``vsync``, ...).
    """

    def __init__(self, wall_dt: float | None = None, frames: int | None = None,
                 screenshot: str | None = None, **window_options: Any) -> None:
        super().__init__(*SIZE, "cvcclock + arcade: Space pause, . step, Up/Down speed",
                         **window_options)
        self.wall_dt, self.max_frames, self.screenshot = wall_dt, frames, screenshot
        self.tree: dict[str, object] = {}      # the binding's state tree: the keys write it
        self.clock = cvcclock.WorldClock(cvcclock.ClockConfig(cap_scales_with_rate=True))
        self.binding = cvcclock.WorldClockBinding(self.tree, self.clock)
        self.physics = cvcclock.ClockFollower.for_step(self.clock, STEP_DT)
        self.ball = Ball()
        self.prev = self.now = (self.ball.x, self.ball.y)
        self.steps = self.frames = 0
        self.background_color = arcade.color.BLACK
        self.status = arcade.Text("", 8, 8, TEXT, font_size=11)

    def on_update(self, delta_time: float) -> None:
        """The one driver: arcade's delta_time (or a capture's fixed wall_dt)."""
        self.binding.drive(self.wall_dt if self.wall_dt is not None else delta_time)
        for _ in range(self.physics.take(self.clock)):
            self.ball.step(STEP_DT)            # what on_fixed_update would have done
            self.prev, self.now = self.now, (self.ball.x, self.ball.y)
            self.steps += 1
        self.frames += 1
        if self.frames == self.max_frames:
            self.finish()

    def alpha(self) -> float:
        """How far the clock is into the world's current step, 0 <= alpha < 1."""
        return self.physics.alpha(self.clock.tick, self.clock.alpha)

    def on_draw(self) -> None:
        with self.clock.presenting():          # drawing costs zero world time
            a = self.alpha()
            (x0, y0), (x1, y1) = self.prev, self.now
            self.clear()
            arcade.draw_circle_filled(x0, y0, RADIUS, GHOST)
            arcade.draw_circle_filled(x1, y1, RADIUS, GHOST)
            arcade.draw_circle_filled(x0 + (x1 - x0) * a, y0 + (y1 - y0) * a, RADIUS, BALL)
            self.status.text = status_line(self.clock.tick, self.tree)
            self.status.draw()

    def on_key_press(self, symbol: int, modifiers: int) -> None:
        if symbol == arcade.key.SPACE:
            self.tree["sim.paused"] = not self.tree["sim.paused"]
        elif symbol == arcade.key.PERIOD:
            self.tree["sim.step"] += 1             # each increment runs one quantum
        elif symbol == arcade.key.UP:
            self.tree["sim.speed"] = min(self.tree["sim.speed"] * 2, 8.0)
        elif symbol == arcade.key.DOWN:
            self.tree["sim.speed"] = max(self.tree["sim.speed"] / 2, 0.125)

    def finish(self) -> None:
        """The last frame: save it if asked, close the window (which ends arcade.run())."""
        if self.screenshot:
            self.on_draw()
            arcade.get_image().save(self.screenshot)
        self.close()


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

    game = Game(args.wall_dt, args.frames, args.screenshot)
    arcade.run()
    summary = {"frames": game.frames, "tick": game.clock.tick, "k": game.physics.period,
               "steps": game.steps, "dropped": game.clock.total_dropped,
               "alpha": game.alpha(), "prev": game.prev, "now": game.now}
    print(json.dumps(summary))
    return summary


if __name__ == "__main__":
    main()

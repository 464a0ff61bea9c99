"""The recipes in examples/ run headless and do what their docstrings say.

Each runs in a subprocess (its own display setup and, for arcade, its global clocks) with a
timeout: as its command line with a fixed wall dt (a capture, deterministic), or as a small
driver that imports it and sends it real key events and frame times. No display is needed:
pygame runs with SDL's dummy video driver, pyglet and arcade in their EGL headless modes
(Mesa's software EGL). A test skips only when its library is not installed.

The environment is a user's: only the variables the docstrings tell them to set for a
headless run, none that would hide noise (SDL_AUDIODRIVER, PYGAME_HIDE_SUPPORT_PROMPT), so
each run's output must be the recipe's own line and nothing else: no ALSA complaints, no
pygame banner.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
TIMEOUT = 120                       # seconds per subprocess; each takes a few
WALL_DT = repr(1 / 60)
RADIUS = 14
BALL = (255, 170, 40)
GHOST = (90, 70, 50)

# Headless for every library, as the docstrings say; nothing that silences a library.
HEADLESS = {"SDL_VIDEODRIVER": "dummy", "PYGLET_HEADLESS": "1", "ARCADE_HEADLESS": "1"}
SILENCERS = ("SDL_AUDIODRIVER", "PYGAME_HIDE_SUPPORT_PROMPT")
STATUS_ROWS = 30                    # the status line is drawn along the bottom, 8 px up


def _run(argv: list[str]) -> dict:
    """Run a Python command headless; its one line of output, and nothing else, is its JSON
    result."""
    env = {k: v for k, v in os.environ.items() if k not in SILENCERS} | HEADLESS
    done = subprocess.run([sys.executable, *argv], capture_output=True, text=True,
                          timeout=TIMEOUT, cwd=EXAMPLES, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""                        # no ALSA lines, no warnings
    lines = done.stdout.splitlines()
    assert len(lines) == 1, done.stdout             # no banner: the recipe's line alone
    return json.loads(lines[0])


def run_example(name: str, *args: str) -> dict:
    return _run([str(EXAMPLES / name), *args])


def run_driver(code: str) -> dict:
    """Run driver code that imports a recipe (the examples folder is its working directory)."""
    return _run(["-c", "import sys; sys.path.insert(0, '.')\n" + textwrap.dedent(code)])


def pixels(png: Path, color: tuple[int, int, int], y_up: bool):
    """(xs, ys) of every pixel of this colour, y counted up from the bottom if y_up (pyglet
    and arcade) or down from the top (pygame).

    Within 2 of each channel: OpenGL's float colours come back one off in some channels.
    """
    image = pytest.importorskip("PIL.Image")
    rgb = np.asarray(image.open(png).convert("RGB")).astype(int)
    ys, xs = np.nonzero((abs(rgb - color) <= 2).all(axis=-1))
    return xs, (rgb.shape[0] - 1 - ys if y_up else ys)


def assert_interpolated_ball(png: Path, result: dict, y_up: bool) -> None:
    """The bright ball lies, whole, at prev + alpha * (now - prev) (the summary's state)."""
    xs, ys = pixels(png, BALL, y_up)
    (x0, y0), (x1, y1), a = result["prev"], result["now"], result["alpha"]
    assert 0.8 * math.pi * RADIUS**2 < len(xs) < 1.2 * math.pi * RADIUS**2
    assert xs.mean() == pytest.approx(x0 + (x1 - x0) * a, abs=1)
    assert ys.mean() == pytest.approx(y0 + (y1 - y0) * a, abs=1)


def assert_two_ghosts(png: Path, result: dict, y_up: bool) -> None:
    """The two stepped positions are drawn faint, each whole and apart from the ball."""
    xs, ys = pixels(png, GHOST, y_up)
    (x0, y0), (x1, y1) = result["prev"], result["now"]
    assert math.dist((x0, y0), (x1, y1)) > 4 * RADIUS       # the ball fits between them
    near_prev = (xs - x0) ** 2 + (ys - y0) ** 2 < (xs - x1) ** 2 + (ys - y1) ** 2
    for mask, (x, y) in ((near_prev, (x0, y0)), (~near_prev, (x1, y1))):
        assert 0.8 * math.pi * RADIUS**2 < mask.sum() < 1.2 * math.pi * RADIUS**2
        assert (xs[mask].mean(), ys[mask].mean()) == pytest.approx((x, y), abs=1)


def status_band(png: Path) -> np.ndarray:
    """The bottom rows of the picture, where the status line is drawn (RGB, as ints)."""
    image = pytest.importorskip("PIL.Image")
    return np.asarray(image.open(png).convert("RGB")).astype(int)[-STATUS_ROWS:]


def assert_status_line(png: Path) -> None:
    """Text runs along the bottom: many pixels unlike the background, from the left edge to
    past the middle (whatever the font: counted against the background, not matched)."""
    band = status_band(png)
    colors, counts = np.unique(band.reshape(-1, 3), axis=0, return_counts=True)
    background = colors[counts.argmax()]
    ys, xs = np.nonzero(abs(band - background).max(axis=-1) > 60)
    assert len(xs) > 300, f"{png.name}: no status line along the bottom"
    assert xs.min() < 40 and xs.max() > 320


def assert_capture_counts(result: dict, frames: int, quanta_per_frame: int) -> None:
    """Every frame banked exactly its quanta, and the world took one step per k of them."""
    assert result["frames"] == frames
    assert result["tick"] == frames * quanta_per_frame
    assert result["dropped"] == 0
    assert result["steps"] == result["tick"] // result["k"]
    assert result["alpha"] == pytest.approx(result["tick"] % result["k"] / result["k"])


# --- pygame -------------------------------------------------------------------------------

def test_pygame_capture_steps_the_world_per_k_quanta_and_draws_it_interpolated(tmp_path):
    pytest.importorskip("pygame")
    png = tmp_path / "frame.png"
    result = run_example("pygame_loop.py", "--frames", "26", "--wall-dt", WALL_DT,
                         "--screenshot", str(png))
    assert_capture_counts(result, 26, 2)
    assert result["k"] == 12 and 0 < result["alpha"] < 1
    assert_interpolated_ball(png, result, y_up=False)
    assert_two_ghosts(png, result, y_up=False)
    assert_status_line(png)
    # The README's picture is this frame (its text aside: fonts may render differently).
    committed = ROOT / "docs" / "images" / "pygame_interpolated.png"
    for color in (BALL, GHOST):
        assert np.array_equal(pixels(png, color, False), pixels(committed, color, False))


def test_pygame_keys_through_the_event_queue_pause_step_and_speed_the_world():
    pytest.importorskip("pygame")
    result = run_driver(f"""
        import json
        import pygame_loop as ex              # first: it hides pygame's banner
        import pygame

        pygame.display.init()
        pygame.font.init()
        screen = pygame.display.set_mode(ex.SIZE)
        font = pygame.font.Font(None, 24)
        game = ex.Game()

        def frames(n, *keys):
            for key in keys:             # real events, read by run_frame's pygame.event.get()
                pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=key))
            ran = [ex.run_frame(game, screen, font, {WALL_DT}) for _ in range(n)]
            return {{"ran": all(ran), "tick": game.clock.tick, "steps": game.steps,
                     "ball": game.ball.position, "tree": dict(game.tree)}}

        out = {{"live": frames(30)}}
        out["paused"] = frames(30, pygame.K_SPACE)
        out["one_step"] = frames(1, pygame.K_PERIOD)
        out["k_steps"] = frames(1, *[pygame.K_PERIOD] * 11)
        out["resumed"] = frames(10, pygame.K_SPACE)
        out["faster"] = frames(10, pygame.K_UP)
        out["slower"] = frames(10, pygame.K_DOWN, pygame.K_DOWN)
        pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_ESCAPE))
        out["quit"] = ex.run_frame(game, screen, font, {WALL_DT})
        print(json.dumps(out))
    """)
    live, paused, one, k_steps = (result[n] for n in ("live", "paused", "one_step", "k_steps"))
    assert live["tick"] == 60 and live["steps"] == 60 // 12
    # Paused: 30 frames run nothing; the world and the tick stand still.
    assert paused["tree"]["sim.paused"] is True
    assert (paused["tick"], paused["steps"], paused["ball"]) == (60, 5, live["ball"])
    # A single step runs exactly one quantum, paused; k of them make one world step.
    assert (one["tick"], one["steps"], one["ball"]) == (61, 5, live["ball"])
    assert (k_steps["tick"], k_steps["steps"]) == (72, 6) and k_steps["ball"] != live["ball"]
    # Resumed at 1x: 2 quanta a frame; Up doubles to 4; Down twice halves to 1.
    assert result["resumed"]["tick"] == 72 + 20 and result["resumed"]["tree"]["sim.paused"] is False
    assert result["faster"]["tree"]["sim.speed"] == 2.0 and result["faster"]["tick"] == 92 + 40
    assert result["slower"]["tree"]["sim.speed"] == 0.5 and result["slower"]["tick"] == 132 + 10
    assert result["slower"]["steps"] == 142 // 12
    assert all(frame["ran"] for name, frame in result.items() if name != "quit")
    assert result["quit"] is False


def test_netplay_pong_two_processes_through_the_relay_confirm_the_same_match(tmp_path):
    pytest.importorskip("pygame")
    png = tmp_path / "pong.png"
    result = run_example("netplay_pong.py", "--frames", "180", "--loss", "0.1",
                         "--screenshot", str(png))
    peers = result["peers"]
    assert result["agree"] is True and [p["player"] for p in peers] == [0, 1]
    assert [p["frames"] for p in peers] == [180, 180]
    assert peers[0]["hash"] == peers[1]["hash"]
    assert result["relay"]["dropped"] > 0 and result["relay"]["forwarded"] > 300
    xs, _ = pixels(png, BALL, y_up=False)
    assert len(xs) == 64                                  # the 8 x 8 ball, drawn once
    assert_status_line(png)


# --- pyglet -------------------------------------------------------------------------------

def test_pyglet_capture_steps_the_world_per_k_quanta_and_draws_it_interpolated(tmp_path):
    pytest.importorskip("pyglet")
    png = tmp_path / "frame.png"
    result = run_example("pyglet_loop.py", "--frames", "26", "--wall-dt", WALL_DT,
                         "--screenshot", str(png))
    assert_capture_counts(result, 26, 2)
    assert result["draws"] >= 1
    assert_interpolated_ball(png, result, y_up=True)
    assert_two_ghosts(png, result, y_up=True)
    assert_status_line(png)


def test_pyglet_schedule_interval_dt_drives_the_clock_and_the_keys_reach_it():
    pytest.importorskip("pyglet")
    # pyglet's own clock with a fake time source: schedule_interval calls update(dt) with
    # the dt it measures, as in a window, but on frame times the test chooses.
    result = run_driver("""
        import json, math, random
        import pyglet
        from pyglet.window import key

        now = [0.0]
        pyglet.clock.set_default(pyglet.clock.Clock(time_function=lambda: now[0]))
        import pyglet_loop as ex

        seen = []
        update = ex.Game.update
        def recording(self, dt):
            seen.append(dt)
            update(self, dt)
        ex.Game.update = recording     # before the window schedules it
        game = ex.Game()
        rng = random.Random(15)

        def frames(n, *keys):
            for symbol in keys:
                game.dispatch_event("on_key_press", symbol, 0)
            game.dispatch_events()             # the window's queued events, as app.run does
            for _ in range(n):
                now[0] += rng.uniform(0.004, 0.05)
                pyglet.clock.tick()
            return {"tick": game.clock.tick, "steps": game.steps, "calls": len(seen),
                    "wall": math.fsum(seen), "dropped": game.clock.total_dropped}

        out = {"live": frames(300)}
        out["paused"] = frames(50, key.SPACE)
        out["one_step"] = frames(1, key.PERIOD)
        out["resumed"] = frames(50, key.SPACE)
        game.close()
        print(json.dumps(out))
    """)
    live, paused, one, resumed = (result[n] for n in ("live", "paused", "one_step", "resumed"))
    assert live["calls"] > 200 and live["dropped"] == 0
    assert live["tick"] == math.floor(live["wall"] * 120)    # every dt pyglet passed, banked
    assert live["steps"] == live["tick"] // 12
    assert paused["calls"] > live["calls"] and paused["tick"] == live["tick"]
    assert paused["steps"] == live["steps"]
    assert one["tick"] == live["tick"] + 1
    assert resumed["tick"] > one["tick"] and resumed["steps"] == resumed["tick"] // 12


# --- arcade -------------------------------------------------------------------------------

def test_arcade_capture_steps_the_world_per_k_quanta_and_draws_it_interpolated(tmp_path):
    pytest.importorskip("arcade")
    png = tmp_path / "frame.png"
    # 40 fps: 3 quanta a frame on a 2-quantum step, so the last frame is half-way (alpha .5).
    result = run_example("arcade_loop.py", "--frames", "21", "--wall-dt", "0.025",
                         "--screenshot", str(png))
    assert_capture_counts(result, 21, 3)
    assert result["k"] == 2 and result["alpha"] == 0.5
    assert_interpolated_ball(png, result, y_up=True)
    assert_status_line(png)


ARCADE_DRIVER = """
    import json, random
    import arcade
    import pyglet

    # pyglet's own clock with a fake time source: arcade schedules its frame dispatch on it,
    # so each tick below runs arcade's real update path (fixed updates, then on_update).
    now = [0.0]
    pyglet.clock.set_default(pyglet.clock.Clock(time_function=lambda: now[0]))
    import arcade_loop as ex

    class Compared(ex.Game):
        \"\"\"The recipe, with arcade's own fixed updates counted alongside.\"\"\"
        fixed = 0
        def on_fixed_update(self, delta_time):
            self.fixed += 1
        def on_update(self, delta_time):
            before = self.steps
            super().on_update(delta_time)
            counts.append((self.fixed, self.steps - before))
            self.fixed = 0

    counts = []
    game = Compared(fixed_rate=ex.STEP_DT, update_rate=1e-4)   # every tick below is a frame
    rng = random.Random(15)
    for i, dt in enumerate({frames}):
        if i in {pause}:                                 # Space: pause, then resume
            game.dispatch_event("on_key_press", arcade.key.SPACE, 0)
        now[0] += dt
        pyglet.clock.tick()
        game.dispatch_events()                 # the window's queued events, as app.run does
    print(json.dumps({{"arcade": [a for a, _ in counts], "cvcclock": [c for _, c in counts],
                      "tick": game.clock.tick, "steps": game.steps,
                      "dropped": game.clock.total_dropped}}))
"""


def test_arcade_on_update_gives_arcades_fixed_update_counts_frame_by_frame():
    pytest.importorskip("arcade")
    # Frame times as perf_counter measures them: uneven, never an exact multiple of 1/60.
    result = run_driver(ARCADE_DRIVER.format(
        frames="[rng.uniform(0.004, 0.05) for _ in range(600)]", pause=(300, 310)))
    arcade, cvc = result["arcade"], result["cvcclock"]
    assert len(cvc) == len(arcade) == 600
    assert cvc[:300] == arcade[:300]
    # Paused for frames 300..309: the recipe's world stops, arcade's fixed clock runs on (so
    # from there on the two are out of phase, and not compared).
    assert cvc[300:310] == [0] * 10 and sum(arcade[300:310]) > 0
    assert result["steps"] == sum(cvc) == result["tick"] // 2


def test_arcade_on_update_on_steady_frames_runs_one_step_each_arcade_within_one():
    pytest.importorskip("arcade")
    # Exactly 1/60 s frames on a 1/60 s step: every frame is a tie. cvcclock counts whole
    # quanta and runs one step each frame; arcade's float accumulator may put a tie's step
    # into the next frame, so its running total is only within one step of exact.
    result = run_driver(ARCADE_DRIVER.format(frames="[1 / 60] * 600", pause=(300, 310)))
    arcade, cvc = result["arcade"], result["cvcclock"]
    assert cvc[:300] == [1] * 300 and cvc[300:310] == [0] * 10 and cvc[310:] == [1] * 290
    assert all(abs(sum(arcade[:i]) - i) <= 1 for i in range(1, 601))
    assert result["steps"] == 590 and result["tick"] == 2 * 590


def test_arcade_on_update_after_a_stall_runs_four_steps_where_arcade_runs_them_all():
    pytest.importorskip("arcade")
    # A 0.5 s stall: arcade (fixed_frame_cap=None) runs every missed step in that frame;
    # cvcclock's stall guard runs 8 quanta (4 steps) and drops the other 52, keeping the
    # fraction, so the frames after it get arcade's counts again.
    result = run_driver(ARCADE_DRIVER.format(
        frames="[rng.uniform(0.004, 0.05) for _ in range(100)] + [0.5]"
               " + [rng.uniform(0.004, 0.05) for _ in range(100)]", pause=()))
    arcade, cvc = result["arcade"], result["cvcclock"]
    assert arcade[100] == 30 and cvc[100] == 4 and result["dropped"] == 52
    assert cvc[:100] == arcade[:100] and cvc[101:] == arcade[101:]


# --- the status line, the same in all three -----------------------------------------------

# Each draws 26 frames of 1/60 s, Space, one frame (paused), Space, 10 frames, saving the
# picture after each of the three: "live", "paused" and "later". {shot} is a function that
# saves the current frame to the path it is given.
STATUS_DRIVERS = {
    "pygame": """
        import pygame_loop as ex
        import pygame

        pygame.display.init()
        pygame.font.init()
        screen = pygame.display.set_mode(ex.SIZE)
        font = pygame.font.Font(None, 24)
        game = ex.Game()

        def frames(n):
            for _ in range(n):
                ex.run_frame(game, screen, font, 1 / 60)

        def space():
            pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_SPACE))

        def shot(path):
            pygame.image.save(screen, path)
    """,
    "pyglet": """
        import pyglet_loop as ex
        from pyglet.window import key

        game = ex.Game(wall_dt=1 / 60)

        def frames(n):
            for _ in range(n):
                game.update(1 / 60)

        def space():
            game.dispatch_event("on_key_press", key.SPACE, 0)
            game.dispatch_events()

        def shot(path):
            game.screenshot(path)
    """,
    "arcade": """
        import arcade_loop as ex
        import arcade

        game = ex.Game(wall_dt=1 / 60)

        def frames(n):
            for _ in range(n):
                game.on_update(1 / 60)

        def space():
            game.on_key_press(arcade.key.SPACE, 0)

        def shot(path):
            game.on_draw()
            arcade.get_image().save(path)
    """,
}


@pytest.mark.parametrize("library", STATUS_DRIVERS)
def test_each_recipe_draws_the_status_line_tick_speed_and_paused(library, tmp_path):
    pytest.importorskip(library)
    result = run_driver(textwrap.dedent(STATUS_DRIVERS[library]) + textwrap.dedent(f"""
        import json
        out = {{}}
        for name, before in (("live", lambda: frames(26)),
                             ("paused", lambda: (space(), frames(1))),
                             ("later", lambda: (space(), frames(10)))):
            before()
            shot({str(tmp_path)!r} + "/" + name + ".png")
            out[name] = ex.status_line(game.clock.tick, game.tree)
        print(json.dumps(out))
    """))
    assert result["live"].startswith("tick 52  speed 1x ") and "PAUSED" not in result["live"]
    assert result["paused"].startswith("tick 52  speed 1x  PAUSED ")
    assert result["later"].startswith("tick 72  speed 1x ") and "PAUSED" not in result["later"]
    bands = {name: status_band(tmp_path / f"{name}.png") for name in result}
    for name in bands:
        assert_status_line(tmp_path / f"{name}.png")
    # The line drawn is the line of that moment: PAUSED appears, then the tick moves on.
    assert (bands["live"] != bands["paused"]).any(axis=-1).sum() > 50
    assert (bands["paused"] != bands["later"]).any(axis=-1).sum() > 50
    assert (bands["live"] != bands["later"]).any(axis=-1).sum() > 20

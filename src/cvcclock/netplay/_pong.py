"""Pong, the demo's two-player game: integer physics, so every peer computes the same."""

from __future__ import annotations

from typing import Any

__all__ = ["Pong", "PONG_WORLD"]

PONG_WORLD = "cvcclock netplay pong"
"""The trace metadata's ``world`` for a Pong match (``cvcclock replay`` knows it)."""

WIDTH, HEIGHT = 640, 360
PADDLE_H, PADDLE_X, SPEED = 60, 20, 6
BALL = 8


class Pong:
    """Two paddles and a ball on a 640 x 360 field, in whole pixels per frame.

    A player's input is -1 (up), 0, 1 (down) or None (no input: the paddle stands). The
    snapshot is a tuple of ints; the state is nothing else, so the world is rollback-safe.

    Attributes
    ----------
    left, right : int
        The paddles' top edges.
    ball : tuple of int
        ``(x, y, vx, vy)``.
    score : tuple of int
        Player 0's and player 1's points.
    frame : int
        Frames stepped.
    """

    def __init__(self) -> None:
        self.left = self.right = (HEIGHT - PADDLE_H) // 2
        self.moves = [0, 0]
        self.ball = (WIDTH // 2, HEIGHT // 2, 5, 3)
        self.score = (0, 0)
        self.frame = 0

    def apply(self, name: str, value: Any) -> None:
        """Player ``p0`` or ``p1`` moves up (-1), stays (0 or None) or moves down (1)."""
        self.moves[int(name[1:])] = value if type(value) is int and value in (-1, 0, 1) else 0

    def step(self, dt: float) -> None:
        """One frame: the paddles move, the ball moves and bounces or scores."""
        top = HEIGHT - PADDLE_H
        self.left = min(max(self.left + SPEED * self.moves[0], 0), top)
        self.right = min(max(self.right + SPEED * self.moves[1], 0), top)
        x, y, vx, vy = self.ball
        x, y = x + vx, y + vy
        if y < 0 or y > HEIGHT - BALL:
            vy, y = -vy, min(max(y, 0), HEIGHT - BALL)
        # A paddle returns the ball a pixel a frame faster (up to 10), angled by where it hit.
        if x <= PADDLE_X and self.left - BALL <= y <= self.left + PADDLE_H and vx < 0:
            vx, vy = min(-vx + 1, 10), vy + (y - self.left - PADDLE_H // 2) // 12
        elif x >= WIDTH - PADDLE_X - BALL and self.right - BALL <= y <= self.right + PADDLE_H \
                and vx > 0:
            vx, vy = -min(vx + 1, 10), vy + (y - self.right - PADDLE_H // 2) // 12
        vy = max(-7, min(7, vy)) or 1
        if x < 0 or x > WIDTH:
            left, right = self.score
            self.score = (left + (x > WIDTH), right + (x < 0))
            serve = 1 if x < 0 else -1
            x, y, vx, vy = WIDTH // 2, HEIGHT // 2, 5 * serve, 3 - (sum(self.score) % 7)
        self.ball = (x, y, vx, vy or 1)
        self.frame += 1

    def snapshot(self) -> tuple[int, ...]:
        """The whole state: paddles, moves, ball, score and frame, as a tuple of ints."""
        return (self.left, self.right, *self.moves, *self.ball, *self.score, self.frame)

    def restore(self, snapshot: tuple[int, ...]) -> None:
        """Put the game back to ``snapshot`` (from :meth:`snapshot`)."""
        (self.left, self.right, m0, m1, x, y, vx, vy, s0, s1, self.frame) = snapshot
        self.moves = [m0, m1]
        self.ball = (x, y, vx, vy)
        self.score = (s0, s1)

    def bot(self, player: int, skill: int = 4) -> int:
        """A scripted player's input: follow the ball while it comes towards this paddle,
        with ``skill`` paddle steps of slack (so a fast, steep ball gets past)."""
        paddle = self.left if player == 0 else self.right
        centre, y = paddle + PADDLE_H // 2, self.ball[1] + BALL // 2
        if (self.ball[2] < 0) != (player == 0):
            return 0
        return 0 if abs(centre - y) <= skill * SPEED else (1 if y > centre else -1)

    def __repr__(self) -> str:
        return f"Pong(frame={self.frame}, score={self.score})"

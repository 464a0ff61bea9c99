"""The differential suite: Scenic programs and their cvcclock equivalents (see harness)."""

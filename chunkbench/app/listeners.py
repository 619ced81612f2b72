"""The one way a view follows its state (the explorer's, the review session's): it registers a
callback, and the state calls every callback after each change."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class Listeners:
    """Callbacks registered on a state object, called in order with what the state passes."""

    def __init__(self) -> None:
        self._callbacks: list[Callable[..., Any]] = []

    def add(self, callback: Callable[..., Any]) -> None:
        self._callbacks.append(callback)

    def notify(self, *args: Any) -> None:
        for callback in self._callbacks:
            callback(*args)

"""Test helpers that watch a function without changing what it does."""
from __future__ import annotations


def spy_answered(monkeypatch, module, name: str) -> list[bool]:
    """Per call of ``module.name`` from now on: whether it gave a result (True) or handed
    the work back with None (False); the calls themselves run as before."""
    seen: list[bool] = []
    real = getattr(module, name)

    def watched(*args, **kwargs):
        got = real(*args, **kwargs)
        seen.append(got is not None)
        return got
    monkeypatch.setattr(module, name, watched)
    return seen

"""Privacy models; ``model_from_dict`` reads one ``[[privacy]]`` table of a job file."""
from __future__ import annotations

from engine.errors import JobError
from engine.privacy.base import ModelContext, PrivacyModel
from engine.privacy.k_anonymity import KAnonymity

MODELS: dict[str, type[PrivacyModel]] = {KAnonymity.name: KAnonymity}


def register_model(cls: type[PrivacyModel]) -> type[PrivacyModel]:
    MODELS[cls.name] = cls
    return cls


def model_from_dict(d: dict) -> PrivacyModel:
    name = d.get("model")
    cls = MODELS.get(name)
    if cls is None:
        raise JobError(f"[[privacy]] model = '{name}' is not known "
                       f"(one of {', '.join(MODELS)})")
    try:
        return cls.from_dict(d)
    except KeyError as e:
        raise JobError(f"[[privacy]] {name}: missing parameter {e}") from None
    except (TypeError, ValueError) as e:
        raise JobError(f"[[privacy]] {name}: {e}") from None


__all__ = ["ModelContext", "PrivacyModel", "KAnonymity", "MODELS", "model_from_dict",
           "register_model"]

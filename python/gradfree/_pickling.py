"""Checked pickles: every gradfree object that pickles carries a format tag, its class, a version
and a SHA-256 checksum, and all four are verified before anything is restored.

A pickled object's state is an *envelope*, a dict with exactly these keys:

- ``format``: ``"gradfree.pickle"``;
- ``class``: the class that wrote it, ``module.qualname`` (``gradfree.es.CMAES``);
- ``version``: the layout of the state (1);
- ``payload``: the state itself, pickled to bytes;
- ``sha256``: the SHA-256 digest (32 bytes) of the format tag, the class tag, the version and the
  payload;
- ``refs`` (optional): objects pickled beside the payload rather than inside it, so that one
  shared object (the run of a Bayesian optimizer, which every one of its GP models refers to) is
  pickled once per pickle; each of them is a checked object itself, and its type is verified.

On load the format tag, the class, the version and the checksum are checked in that order; any
difference is a :class:`~gradfree.errors.CheckpointError` naming it (``"a pickle of
gradfree.es.INGO, not of gradfree.es.CMAES"``; ``"checksum mismatch: the pickle was changed or
damaged"``), and only then is the payload unpickled and the class's own invariant checks run
(those of the Rust states: vector lengths, finite values, ...). So a changed byte anywhere in the
state is refused instead of being restored as a different state.

The checksum detects damage, not forgery: whoever can write a pickle can run code when it is
loaded, so load only pickles you trust (as with any pickle).
"""
from __future__ import annotations

import copy
import hashlib
import hmac
import pickle

from .errors import CheckpointError

FORMAT = "gradfree.pickle"
#: The envelope's layout (not the state's, which each class versions in ``_pickle_version``).
_KEYS = frozenset(("format", "class", "version", "payload", "sha256"))
#: The pickle protocol of payloads (fixed, so that the same state always gives the same bytes).
_PROTOCOL = 4


#: Class tags that classes had before they moved, and the tags they have now: a pickle written
#: under the former tag loads as the class (its checksum covers the tag it was written with).
FORMER_TAGS = {"gradfree._pycma.CMAEvolutionStrategy": "gradfree.cma.CMAEvolutionStrategy"}


def class_tag(cls: type) -> str:
    """``module.qualname`` of a class: the tag its pickles carry."""
    return f"{cls.__module__}.{cls.__qualname__}"


def _digest(tag: str, version: int, payload: bytes) -> bytes:
    h = hashlib.sha256()
    h.update(f"{FORMAT}\0{tag}\0{version}\0".encode())
    h.update(payload)
    return h.digest()


def seal(cls: type, state, version: int = 1, refs: dict | None = None) -> dict:
    """The envelope of ``state`` for class ``cls`` (see the module documentation)."""
    tag = class_tag(cls)
    payload = pickle.dumps(state, protocol=_PROTOCOL)
    env = {"format": FORMAT, "class": tag, "version": version, "payload": payload, "sha256": _digest(tag, version, payload)}
    if refs:
        env["refs"] = refs
    return env


def is_envelope(state) -> bool:
    """Whether ``state`` is (or was, before damage) an envelope: a dict with any of its keys.
    Anything else is a state from before checked pickles, or not a gradfree state at all."""
    return isinstance(state, dict) and any(k in state for k in _KEYS)


def open_envelope(env, expected: str | None = None, versions=(1,)):
    """``(tag, version, state, refs)`` of an envelope, every part checked first; ``expected``
    (a class tag) is the class the caller restores, ``None`` to accept any (the caller then checks
    the tag); ``versions`` the state versions the caller reads (``None``: any).
    :class:`CheckpointError` names what is wrong."""
    what = f"a pickle of {expected}" if expected else "a gradfree pickle"
    if not isinstance(env, dict):
        raise CheckpointError(f"not {what}: its state is a {type(env).__name__}, not gradfree's checked state")
    keys = set(env) - {"refs"}
    if keys != _KEYS:
        missing, extra = sorted(_KEYS - keys), sorted(map(repr, keys - _KEYS))
        raise CheckpointError(f"not {what}: its state is damaged (missing {missing or 'nothing'}, "
                              f"unexpected {extra or 'nothing'})")
    if env["format"] != FORMAT:
        raise CheckpointError(f"not {what}: format tag {env['format']!r}, expected {FORMAT!r} (the pickle was changed "
                              "or damaged)")
    tag = env["class"]
    if not isinstance(tag, str):
        raise CheckpointError(f"not {what}: its class tag is a {type(tag).__name__} (the pickle was changed or damaged)")
    if expected is not None and FORMER_TAGS.get(tag, tag) != expected:
        raise CheckpointError(f"a pickle of {tag}, not of {expected}: unpickle it as the class that saved it")
    version = env["version"]
    if isinstance(version, bool) or not isinstance(version, int) or (versions is not None and version not in versions):
        raise CheckpointError(f"{what}: state version {version!r}, this gradfree reads version "
                              f"{', '.join(map(str, versions or ()))} (a pickle of another gradfree version, or damaged)")
    payload, digest = env["payload"], env["sha256"]
    if not isinstance(payload, bytes) or not isinstance(digest, bytes):
        raise CheckpointError(f"{what}: its payload or checksum is not bytes (the pickle was changed or damaged)")
    if not hmac.compare_digest(_digest(tag, version, payload), digest):
        raise CheckpointError(f"{what}: checksum mismatch: the pickle was changed or damaged")
    try:
        state = pickle.loads(payload)
    except CheckpointError:
        raise
    except Exception as e:  # a payload that verifies but no longer loads: classes moved or removed
        raise CheckpointError(f"{what}: its state does not load in this gradfree ({type(e).__name__}: {e})") from None
    refs = env.get("refs", {})
    if not isinstance(refs, dict):
        raise CheckpointError(f"{what}: its shared objects are a {type(refs).__name__}, not a dict (damaged)")
    return tag, version, state, refs


class Checked:
    """A class whose instances pickle as a checked envelope (module documentation).

    Subclasses choose what is pickled: ``_pickle_state()`` (default: a copy of ``__dict__``) and
    ``_unpickle_state(state)`` (default: ``__dict__.update``), which runs the class's own checks;
    ``_pickle_refs`` maps attributes pickled beside the payload to the type they must have;
    ``_unpickle_legacy(state)`` receives a state from before checked pickles (default: refused).
    The state is pickled on its own, so it must not refer back to the object (a bound method of
    it, say): leave such attributes out and rebuild them in ``_unpickle_state``.
    """

    #: The layout of the state this class pickles (bumped when it changes).
    _pickle_version = 1
    #: Attributes pickled beside the checked payload (shared, self-checking objects) and their types.
    _pickle_refs: dict = {}

    def _pickle_state(self) -> dict:
        return dict(self.__dict__)

    def _unpickle_state(self, state: dict) -> None:
        self.__dict__.update(state)

    def _unpickle_legacy(self, state) -> None:
        raise CheckpointError(f"not a pickle of {class_tag(type(self))} with gradfree's checksum: a pickle from an older "
                              "gradfree (states without a checksum are not loaded), or not a gradfree state; create "
                              "the object again")

    # Copies go through the state, as they did through __getstate__/__setstate__ before pickles were
    # checked, without pickling it (so attributes that do not pickle still copy).
    def __copy__(self):
        new = type(self).__new__(type(self))
        new._unpickle_state(self._pickle_state())
        return new

    def __deepcopy__(self, memo):
        new = type(self).__new__(type(self))
        memo[id(self)] = new
        new._unpickle_state(copy.deepcopy(self._pickle_state(), memo))
        return new

    def __getstate__(self):
        state = self._pickle_state()
        refs = {k: state.pop(k) for k in self._pickle_refs if k in state}
        return seal(type(self), state, self._pickle_version, refs)

    def __setstate__(self, env):
        if not is_envelope(env):
            self._unpickle_legacy(env)
            return
        _, _, state, refs = open_envelope(env, class_tag(type(self)), (self._pickle_version,))
        if not isinstance(state, dict):
            raise CheckpointError(f"a pickle of {class_tag(type(self))}: its state is a {type(state).__name__}, not a dict")
        for name, value in refs.items():
            kind = self._pickle_refs.get(name)
            if kind is None or not (value is None or isinstance(value, kind)):
                raise CheckpointError(f"a pickle of {class_tag(type(self))}: its shared object {name!r} is a "
                                      f"{type(value).__name__} (the pickle was changed or damaged)")
        state.update(refs)
        self._unpickle_state(state)


#: Classes restored by :func:`restore` (pickled by ``__reduce__``), by class tag.
_RESTORABLE: dict = {}


def restorable(cls: type) -> type:
    """Class decorator: instances pickle as ``restore(envelope)`` (``cls.__reduce__``), rebuilt by
    ``cls._from_pickle(state)``; for classes that are not rebuilt by ``__setstate__`` (results
    made from a fit, dicts)."""
    _RESTORABLE[class_tag(cls)] = cls

    def __reduce__(self):
        return (restore, (seal(type(self), self._to_pickle(), type(self)._pickle_version),))

    cls.__reduce__ = __reduce__
    cls.__reduce_ex__ = lambda self, protocol: __reduce__(self)
    cls.__copy__ = lambda self: type(self)._from_pickle(self._to_pickle())
    cls.__deepcopy__ = lambda self, memo: type(self)._from_pickle(copy.deepcopy(self._to_pickle(), memo))
    return cls


def restore(env):
    """Unpickles an object of a :func:`restorable` class from its envelope (checked first)."""
    tag = env.get("class") if isinstance(env, dict) else None
    cls = _RESTORABLE.get(tag) if isinstance(tag, str) else None
    if cls is None:
        open_envelope(env, None, (1,))   # names the damage when there is one
        raise CheckpointError(f"a pickle of {tag}, which is not a gradfree class restored from a pickle")
    _, _, state, _ = open_envelope(env, tag, (cls._pickle_version,))
    return cls._from_pickle(state)


class _OnlyRestore(pickle.Unpickler):
    """An unpickler whose stream may name only :func:`restore` (so a foreign pickle is refused
    before any of its code runs); ``what`` is what the caller expects, for the message."""

    def __init__(self, file, what: str):
        super().__init__(file)
        self.what = what

    def find_class(self, module, name):
        if (module, name) == (__name__, "restore"):
            return restore
        raise CheckpointError(f"not {self.what}: the file holds a pickle of {module}.{name}")


def load_restorable(file, what: str, kind: type):
    """An object of type ``kind`` (a :func:`restorable` class) from an open binary ``file``: the
    stream may only restore gradfree's checked objects, and the object must be a ``kind``;
    otherwise :class:`CheckpointError` names what the file holds (``what``: the expected thing)."""
    try:
        obj = _OnlyRestore(file, what).load()
    except CheckpointError:
        raise
    except Exception as e:
        raise CheckpointError(f"not {what}: the file is not a pickle ({type(e).__name__}: {e})") from None
    if not isinstance(obj, kind):
        raise CheckpointError(f"not {what}: the file holds a pickle of {class_tag(type(obj))}")
    return obj

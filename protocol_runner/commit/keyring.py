"""The commit gate's signing keys: fresh Ed25519 keys kept in a file only its owner can read.

Every agent identity of a run, the gate and the human reviewer get an Ed25519 key generated
from the operating system's randomness (``Ed25519PrivateKey.generate``, OpenSSL's CSPRNG); no
seed or other run parameter ever enters key material, so knowing a run's configuration gives no
key. The private keys live in one JSON file of mode 0600 (like an SSH private key): the run
directory's ``keyring.json`` by default, or a path the user gives so that a long-lived
deployment keeps its identities across runs. Own code because no maintained library keeps a
set of raw Ed25519 keys in a file with these guarantees (``keyring`` is an OS credential
store; PKCS#8 PEM holds one key per file).

File layout::

    {"format": "robustgraph-keyring/1", "gate": HEX, "reviewer": HEX,
     "agents": {"<agent id>": HEX, ...}}

each HEX the raw 32-byte private key (RFC 8032 seed) in 64 hex digits.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterable
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat

from robustgraph.errors import ParameterError

__all__ = ["KEYRING_FILE", "Keyring", "KeyringError"]

KEYRING_FILE = "keyring.json"
"""The keyring's default name in a run directory."""

_FORMAT = "robustgraph-keyring/1"


class KeyringError(ParameterError):
    """A keyring file is unreadable, malformed, readable by others, or cannot be written."""


def _raw(key: Ed25519PrivateKey) -> str:
    return key.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption()).hex()


def _key(path: Path, name: str, text: object) -> Ed25519PrivateKey:
    try:
        if not isinstance(text, str) or len(text) != 64:
            raise ValueError
        return Ed25519PrivateKey.from_private_bytes(bytes.fromhex(text))
    except ValueError:
        raise KeyringError(f"{path}: key {name!r} is not 32 bytes in hex") from None


class Keyring:
    """The private keys of a run's agents, its gate and its reviewer.

    Use :meth:`open`; the constructor takes already loaded keys.

    Parameters
    ----------
    path : Path
        The file the keys live in.
    gate, reviewer : Ed25519PrivateKey
        The gate's key (signs every ledger entry it appends) and the reviewer's (signs human
        resolutions of escalated decisions).
    agents : dict of str to Ed25519PrivateKey
        One key per agent identity.
    """

    def __init__(self, path: Path, gate: Ed25519PrivateKey, reviewer: Ed25519PrivateKey,
                 agents: dict[str, Ed25519PrivateKey]) -> None:
        self.path = path
        self.gate = gate
        self.reviewer = reviewer
        self.agents = agents

    @classmethod
    def open(cls, path: str | Path, agent_ids: Iterable[str] = ()) -> Keyring:
        """Load the keyring at ``path``, creating it or adding fresh keys for new agent ids.

        Parameters
        ----------
        path : str or Path
        agent_ids : iterable of str
            Identities that must have a key; the missing ones get a fresh key and the file is
            rewritten atomically (mode 0600).

        Raises
        ------
        KeyringError
            If the file exists and is not a regular file, grants any permission to group or
            others, is not a keyring, or cannot be written.

        Examples
        --------
        >>> import tempfile, os
        >>> path = os.path.join(tempfile.mkdtemp(), "keys.json")
        >>> ring = Keyring.open(path, ["a", "b"])
        >>> oct(os.stat(path).st_mode & 0o777), sorted(ring.agents)
        ('0o600', ['a', 'b'])
        >>> again = Keyring.open(path, ["a"])
        >>> again.agents["a"].public_key() == ring.agents["a"].public_key()
        True

        Notes
        -----
        One key generation (about 50 microseconds) per new identity.
        """
        path = Path(path)
        wanted = list(agent_ids)
        if path.exists() or path.is_symlink():
            ring = cls._load(path)
        else:
            ring = cls(path, Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate(), {})
        missing = [a for a in wanted if a not in ring.agents]
        for agent in missing:
            ring.agents[agent] = Ed25519PrivateKey.generate()
        if missing or not path.exists():
            ring._save()
        return ring

    @classmethod
    def _load(cls, path: Path) -> Keyring:
        try:
            info = path.stat()
        except OSError as exc:
            raise KeyringError(f"{path}: cannot read the keyring ({exc.strerror})") from None
        if not stat.S_ISREG(info.st_mode):
            raise KeyringError(f"{path}: the keyring is not a regular file")
        if info.st_mode & 0o077:
            raise KeyringError(f"{path}: the keyring is readable or writable by others "
                               f"(mode {stat.S_IMODE(info.st_mode):04o}); run 'chmod 600 {path}'")
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise KeyringError(f"{path}: not a robustgraph keyring ({exc})") from None
        if not isinstance(data, dict) or data.get("format") != _FORMAT:
            raise KeyringError(f"{path}: not a robustgraph keyring (expected format {_FORMAT})")
        agents = data.get("agents")
        if not isinstance(agents, dict):
            raise KeyringError(f"{path}: the keyring has no 'agents' object")
        return cls(path, _key(path, "gate", data.get("gate")),
                   _key(path, "reviewer", data.get("reviewer")),
                   {str(a): _key(path, a, k) for a, k in agents.items()})

    def _save(self) -> None:
        data = {"format": _FORMAT, "gate": _raw(self.gate), "reviewer": _raw(self.reviewer),
                "agents": {a: _raw(k) for a, k in sorted(self.agents.items())}}
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(data, handle, indent=1)
                handle.write("\n")
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, self.path)
        except OSError as exc:
            tmp.unlink(missing_ok=True)
            raise KeyringError(f"{self.path}: cannot write the keyring ({exc.strerror})") from None

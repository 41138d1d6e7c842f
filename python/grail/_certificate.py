"""Certificates: witnesses of the levels that hold, and their verification (``docs/certificates.md``)."""

from __future__ import annotations

import json
import os
from typing import Any, Dict, List, Mapping, Optional, Union

__all__ = ["Verification", "CertificateSource"]

#: A certificate: the dict :attr:`grail.Report.certificate` gives, its JSON text (str or bytes),
#: or the path of a file that holds it.
CertificateSource = Union[Mapping[str, Any], str, bytes, "os.PathLike[str]"]


def certificate_bytes(certificate: CertificateSource) -> bytes:
    """The JSON text of a certificate given in any of the forms :data:`CertificateSource` names."""
    if isinstance(certificate, Mapping):
        return json.dumps(dict(certificate)).encode()
    if isinstance(certificate, bytes):
        return certificate
    if isinstance(certificate, str):
        return certificate.encode()
    if isinstance(certificate, os.PathLike):
        with open(certificate, "rb") as f:
            return f.read()
    raise TypeError(f"a certificate is a dict, its JSON text or a path, not {type(certificate).__name__}")


class Verification:
    """What :func:`grail.verify` found: each witness verified or where it fails.

    >>> import grail
    >>> h = grail.read('''
    ... {:index 0, :type :ok, :process 0, :value [[:append :x 1]]}
    ... {:index 1, :type :ok, :process 1, :value [[:r :x [1]]]}''')
    >>> v = h.verify(h.check().certificate)
    >>> v.ok, v.proved, v.disproved
    (True, ['SER', 'SI', 'PSI', 'PL-2', 'PL-1'], [])
    """

    __slots__ = ("_data",)

    def __init__(self, data: Dict[str, Any]) -> None:
        self._data = data

    @property
    def ok(self) -> bool:
        """True when no witness and no counterexample fails (and none contradicts another)."""
        items = self._data["witnesses"] + self._data.get("counterexamples", [])
        return all(w.get("failure") is None for w in items) and not self._data.get("contradictions")

    def __bool__(self) -> bool:
        return self.ok

    @property
    def proved(self) -> List[str]:
        """The levels the witnesses that verified prove, each once (those setting no read aside)."""
        return list(self._data.get("proved", []))

    @property
    def proved_with_set_aside(self) -> List[str]:
        """The levels proved only of the history without the garbage reads or internal
        inconsistencies a witness sets aside (``holds (with internal set aside)``)."""
        return list(self._data.get("proved_with_set_aside", []))

    @property
    def disproved(self) -> List[str]:
        """The levels the counterexamples that verified show violated, each once."""
        return list(self._data.get("disproved", []))

    @property
    def failure(self) -> Optional[str]:
        """The first place a witness or counterexample fails ("T17 read x = [1 2] but the
        replay has [1]"), or None."""
        for w in self._data["witnesses"] + self._data.get("counterexamples", []):
            if w.get("failure") is not None:
                return str(w["failure"])
        for c in self._data.get("contradictions", []):
            return str(c)
        return None

    @property
    def witnesses(self) -> List[Dict[str, Any]]:
        """Each witness: its ``kind``, ``respects``, ``levels`` and ``failure`` (None when it verified)."""
        return [dict(w) for w in self._data["witnesses"]]

    @property
    def counterexamples(self) -> List[Dict[str, Any]]:
        """Each counterexample: its ``level``, ``anomaly`` and ``failure`` (None when the history
        shows the cycle step by step)."""
        return [dict(c) for c in self._data.get("counterexamples", [])]

    @property
    def violations_not_certified(self) -> Dict[str, str]:
        """Levels the certificate says are violated without a counterexample, with the reason."""
        return {n["level"]: n["reason"] for n in self._data.get("violations_not_certified", [])}

    @property
    def not_certified(self) -> Dict[str, str]:
        """Levels the certificate says hold without a witness, with the reason."""
        return {n["level"]: n["reason"] for n in self._data["not_certified"]}

    def to_dict(self) -> Dict[str, Any]:
        """The verification as `grail verify --json` prints it (a copy)."""
        data: Dict[str, Any] = json.loads(json.dumps(self._data))
        return data

    def __repr__(self) -> str:
        if self.ok:
            return f"<Verification: verified {', '.join(self.proved) or 'no level'}>"
        return f"<Verification: fails: {self.failure}>"

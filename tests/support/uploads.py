"""Uploads as AppTest needs them (it cannot upload): a file object that counts its reads, and CSVs of known shape."""

from __future__ import annotations

import numpy as np


class FakeUpload:
    """What ``st.file_uploader`` returns, holding ``data``; ``reads`` counts every read of its bytes (a plan-first
    page must read none before Release)."""

    def __init__(self, data: bytes, name: str = "mine.csv", file_id: str = "one") -> None:
        self._data, self.name, self.file_id, self.reads = data, name, file_id, 0

    def getvalue(self) -> bytes:
        self.reads += 1
        return self._data

    read = getvalue


def diabetes_like_csv(n: int = 200) -> bytes:
    """Features on different scales (years, kg/m², mg/dL) and a response named 'target', as scikit-learn's diabetes."""
    rng = np.random.default_rng(8)
    age, bmi, chol = rng.uniform(20, 80, n), rng.uniform(18, 45, n), rng.uniform(120, 300, n)
    target = 2 * bmi + 0.2 * chol + rng.normal(0, 20, n)
    rows = ["age,bmi,chol,target"] + [f"{a:.1f},{b:.1f},{c:.1f},{t:.1f}" for a, b, c, t in zip(age, bmi, chol, target)]
    return "\n".join(rows).encode()


#: columns of the widest header the wide-header tests send
WIDE = 1_000_000


def wide_csv(columns: int = WIDE) -> bytes:
    """About 10 MB: a header of ``columns`` distinct names and two rows of digits."""
    header = ",".join(f"c{i}" for i in range(columns)).encode()
    return b"\n".join([header, b",".join([b"1"] * columns), b",".join([b"2"] * columns)]) + b"\n"

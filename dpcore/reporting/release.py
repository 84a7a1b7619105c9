"""What a release exports: DP values, public parameters, and the privacy statement.

A :class:`ReleaseBundle` is built by a method's release function from
OpenDP-noised statistics and their post-processing only — never from raw
data or non-private estimates (privacy.md, "What a release exports"). It
serialises to JSON, to a ZIP (JSON + one CSV per table + the HTML report)
and feeds :mod:`dpcore.reporting.report`. A release function fills it with data only; the report layer
(:mod:`dpcore.reporting.release_figures`) decides which figures its report and ZIP show. This is the export
face of a release, so it imports :mod:`dpcore.reporting.report` (for the ZIP's ``report.html``, and
``figures_for``, the report layer's choice of figures, which the ZIP also holds as PNG, SVG and PDF files);
the report never imports this module back.
"""

from __future__ import annotations

import io
import json
import math
import zipfile
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Mapping

import numpy as np
import pandas as pd

from dpcore import __version__

from dpcore.reporting import alt_text
from dpcore.reporting.figure_export import ExportUnavailable, export, slug
from dpcore.provenance import UNKNOWN, SettingsChoice
from dpcore.reporting.report import figures_for, html_report

RELATIONS = {
    "replace-one": "two data sets are neighbours when one record (one {unit}) is replaced by another "
    "(the number of records n is public)",
    "add/remove-one": "two data sets are neighbours when one has one extra record (one more {unit})",
}


def privacy_statement(method: str, epsilon: float, delta: float, relation: str, unit: str,
                      settings: SettingsChoice | None = None) -> str:
    """Plain-language privacy statement for a stakeholder who is not a DP expert; ``settings`` says how the
    release's settings were chosen and what that means for the guarantee (:mod:`dpcore.provenance`)."""
    odds = math.exp(epsilon)
    text = (
        f"This release of {method} is ({epsilon:g}, {delta:g})-differentially private. "
        f"The unit of privacy is one {unit}: {RELATIONS[relation].format(unit=unit)}. "
        f"Whatever anyone knows beforehand, seeing this release changes the odds of any conclusion about one "
        f"{unit} by at most a factor of e^ε ≈ {odds:.3g}"
    )
    text += f", except with probability at most δ = {delta:g}." if delta > 0 else "."
    settings = settings or SettingsChoice()
    chosen = (settings.statement() if settings.how != UNKNOWN else
              "The guarantee assumes every parameter listed as a public input was fixed without looking at the data.")
    text += (
        f" The noise came from OpenDP's vetted samplers seeded by the operating system. {chosen} Every value listed "
        "as derived from DP outputs was computed from this release's own noisy values (post-processing, paid for in "
        "the cost above). Figures and numbers derived from this release are also "
        "private (post-processing); anything else computed from the same data must be charged separately."
    )
    return text


#: what a text cell must not start with in a CSV: a spreadsheet would read it as a formula (OWASP, "CSV injection")
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with every text cell and column name that starts like a formula prefixed with a single quote.

    The one escaping every CSV the dashboard writes goes through (OWASP's rule): ``=cmd|' /C calc'!A0`` becomes
    ``'=cmd|' /C calc'!A0``, which a spreadsheet shows as the text it is. Numbers (and anything else that is not a
    ``str``) are left as they are, so ``-0.5`` stays a number; a label that is the text ``"-1"`` gets its quote.
    """

    def text(value):
        return "'" + value if isinstance(value, str) and value.startswith(FORMULA_STARTS) else value

    out = table.rename(columns=text)
    for position in range(out.shape[1]):
        column = out.iloc[:, position]
        if not pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_datetime64_any_dtype(column):
            out.isetitem(position, column.map(text))
    return out


def text_alternatives(figures: Mapping[str, Any]) -> dict[str, bytes]:
    """Each figure's text alternative as files beside it: ``<slug>.txt`` its one-line summary, ``<slug>-<table>.csv``
    its plotted numbers and any table it prints (:mod:`dpcore.reporting.alt_text`), for readers who cannot see the image."""
    out = {}
    for name, fig in figures.items():
        stem = slug(name)
        out[f"{stem}.txt"] = (alt_text.summary(fig) + "\n").encode()
        for table_name, table in alt_text.tables(fig).items():
            out[f"{stem}-{slug(table_name)}.csv"] = csv_text(table).encode()
    return out


def csv_text(table: pd.DataFrame) -> str:
    """``table`` as CSV text (no index), every cell made spreadsheet-safe (:func:`spreadsheet_safe`).

    Lines end in CRLF (RFC 4180), so a cell holding a carriage return or a line feed is quoted rather than
    breaking its row."""
    return spreadsheet_safe(table).to_csv(index=False, lineterminator="\r\n")


def _jsonable(value: Any) -> Any:
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating,)):
        return float(value)
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


@dataclass(frozen=True)
class ReleaseBundle:
    """One frozen release: DP tables plus everything a reviewer needs to judge it.

    ``fingerprint`` keys the session ledger and is never exported: a hash of
    the raw data lets anyone who knows all records but one test candidate
    values of the last record against it, which no DP guarantee covers.
    """

    method: str
    dataset: str
    fingerprint: str
    epsilon: float
    delta: float
    mechanisms: tuple[str, ...]
    public_params: Mapping[str, Any]
    tables: Mapping[str, pd.DataFrame]
    #: values the release used or reports that were computed from its own DP outputs (a DP centre, a noise scale
    #: that follows a privately selected support, a count of rejections): not public inputs, and never listed as
    #: such — a reviewer must see which parameters were fixed before looking at the data and which were not
    derived_params: Mapping[str, Any] = field(default_factory=dict)
    unit: str = "person"
    relation: str = "replace-one"
    parts: Mapping[str, float] = field(default_factory=dict)
    figures: Mapping[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    #: a script that makes this release again (its public parameters, the data read from a path the reader fills
    #: in; :mod:`dpcore.notebooks`); "" when the caller made none. In the ZIP, never in the JSON or the ledger
    script: str = ""
    #: how its settings were chosen (``dpcore.provenance.SettingsChoice.to_dict()``; empty: not recorded), set by
    #: the release panel, which knows what the page showed before the release
    settings: Mapping[str, Any] = field(default_factory=dict)
    created: str = field(default_factory=lambda: datetime.now(timezone.utc).isoformat(timespec="seconds"))

    @property
    def statement(self) -> str:
        return privacy_statement(self.method, self.epsilon, self.delta, self.relation, self.unit,
                                 self.settings_choice)

    @property
    def settings_choice(self) -> SettingsChoice:
        """How this release's settings were chosen (:mod:`dpcore.provenance`)."""
        return SettingsChoice.from_dict(self.settings)

    def metadata(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "dataset": self.dataset,
            "epsilon": self.epsilon,
            "delta": self.delta,
            "budget_parts": _jsonable(dict(self.parts)),
            "neighbouring_relation": self.relation,
            "unit_of_privacy": self.unit,
            "mechanisms": list(self.mechanisms),
            "public_parameters": _jsonable(dict(self.public_params)),
            "derived_from_dp_outputs": _jsonable(dict(self.derived_params)),
            "notes": list(self.notes),
            "settings_chosen": self.settings_choice.to_dict(),
            "privacy_statement": self.statement,
            "noise_source": "OpenDP (opendp.prelude), seeded by the operating system",
            "dpcore_version": __version__,
            "created": self.created,
        }

    @classmethod
    def from_json(cls, text: str) -> "ReleaseBundle":
        """The bundle a stored export (:meth:`to_json`) describes, without its figures (the ledger keeps values)."""
        data = json.loads(text)
        return cls(
            method=data["method"], dataset=data["dataset"], fingerprint="", epsilon=data["epsilon"],
            delta=data["delta"], mechanisms=tuple(data["mechanisms"]), public_params=data["public_parameters"],
            derived_params=data.get("derived_from_dp_outputs", {}),
            tables={name: pd.DataFrame(rows) for name, rows in data["tables"].items()},
            unit=data["unit_of_privacy"], relation=data["neighbouring_relation"], parts=data["budget_parts"],
            notes=tuple(data["notes"]), settings=data.get("settings_chosen") or {}, created=data["created"],
        )

    def to_json(self) -> str:
        payload = self.metadata()
        payload["tables"] = {name: json.loads(t.to_json(orient="records")) for name, t in self.tables.items()}
        return json.dumps(payload, indent=2, ensure_ascii=False)

    def to_zip(self) -> bytes:
        """ZIP with ``release.json``, one CSV per DP table (spreadsheet-safe: :func:`csv_text`), a self-contained ``report.html``, the script that
        makes the release (``reproduce.py``, when there is one) and every report figure as PNG (300 dpi), SVG
        and PDF under ``figures/`` (or, where no browser can draw them, ``figures/README.txt`` saying why), each
        with its text alternative beside it (:func:`text_alternatives`)."""
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr("release.json", self.to_json())
            for name, table in self.tables.items():
                archive.writestr(f"{name}.csv", csv_text(table))
            archive.writestr("report.html", html_report([self]))
            if self.script:
                archive.writestr("reproduce.py", self.script)
            figures = figures_for(self)
            try:
                files = export(figures)
            except ExportUnavailable as err:
                files = {"README.txt": f"The figures are in report.html only: {err}\n".encode()}
            files.update(text_alternatives(figures))
            for name, data in files.items():
                archive.writestr(f"figures/{name}", data)
        return buffer.getvalue()

    def file_stem(self) -> str:
        safe = "".join(ch if ch.isalnum() else "-" for ch in f"{self.method}-{self.dataset}".lower())
        return "-".join(filter(None, safe.split("-"))) + f"-eps{self.epsilon:g}"

"""Steps every method's notebook shares: reading the user's CSV from a path, and the guarded release."""

from __future__ import annotations

from dpcore.notebooks.code import Cell, code

#: the placeholder path of the user's own CSV: an upload is never embedded, nor its file name
CSV_PLACEHOLDER = "your_data.csv"

READ_CSV = Cell(
    "Read your CSV from a path you fill in (the file itself is not part of this notebook); it is checked as "
    "the dashboard checks an upload.",
    code("from pathlib import Path\n\nfrom dpcore.core.validation import read_csv\n\n"
         "CSV_PATH = Path({path})  # fill in the path of your CSV\n"
         "frame = read_csv(CSV_PATH.read_bytes())", path=CSV_PLACEHOLDER),
)

_RELEASE_MARKDOWN = (
    "A real release: one draw of OpenDP noise, seeded by the operating system, charged to a privacy ledger before "
    "anything is shown. It runs only when you set MAKE_RELEASE to True, so running this notebook never spends a "
    "budget by accident. The ledger here lives in memory; a deployment's durable ledger is opened with "
    "dpcore.ledger.open_ledger, and every release on the same data must be charged to the same one."
)


def release_cell(method: str, epsilon: str, delta: str, release_call: str, stem: str, params: str = "") -> Cell:
    """The guarded release: ``release_call`` (code returning a ReleaseBundle) runs only after the charge.

    ``epsilon``, ``delta`` and ``params`` (the charge's public parameters, e.g. which noise ran; empty: none) are
    code (names defined in earlier cells); ``method`` and ``stem`` are fixed text.
    """
    body = "\n".join("    " + line for line in release_call.splitlines())
    return Cell(_RELEASE_MARKDOWN, (
        "from pathlib import Path\n\nfrom dpcore.ledger import Ledger\n\n"
        "MAKE_RELEASE = False  # True: charge the ledger, then draw and save one release\n"
        "if MAKE_RELEASE:\n"
        "    ledger = Ledger()\n"
        "    dataset = ledger.dataset_key(\"my data set\")\n"
        "    ledger.set_budget(dataset, epsilon=10.0, delta=1e-3)  # the data set's cap (refuses releases past it)\n"
        + code("    record = ledger.charge(dataset, {method}, ", method=method)
        + f"{epsilon}, {delta}{', params=' + params if params else ''})\n"
        f"{body}\n"
        "    ledger.record_values(record, bundle.to_json())\n"
        + code("    Path({name}).write_bytes(bundle.to_zip())\n", name=f"{stem}-release.zip")
        + code("    print('saved', {name})", name=f"{stem}-release.zip")
    ))

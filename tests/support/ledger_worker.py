"""A separate process charging the deployment ledger (its configuration from the environment), for the race
and crash tests in test_ledger_store.py.

    python tests/support/ledger_worker.py race KEY N GO_FILE   # wait for GO_FILE, try N charges of ε = 0.1 on KEY
    python tests/support/ledger_worker.py crash KEY            # charge ε = 0.1 on KEY, say so, wait to be killed
    python tests/support/ledger_worker.py persons KEYING N GO_FILE   # the same cohort's persons, keyed by KEYING
                                                             # (a column or "none"), N charges of ε = 0.1
"""

import sys
import time
from pathlib import Path

from dpcore.ledger import BudgetExceeded
from dpcore.ledger.config import LedgerConfig, open_ledger


def main(mode: str, key: str, *args: str) -> None:
    ledger = open_ledger(LedgerConfig.from_env(Path("unused-default")))
    if mode == "crash":
        record = ledger.charge(key, "crash test", 0.1, label="crash test", page="test", session="doomed")
        print(f"charged {record.id}", flush=True)
        time.sleep(600)  # the test kills this process here: after the charge, before any display
        return
    count, go_file = int(args[0]), Path(args[1])
    holding = key
    if mode == "persons":  # ``key`` names the person column of the cohort's upload ("none": whole rows)
        import numpy as np
        import pandas as pd

        from dpcore.ledger import Persons

        rng = np.random.default_rng(0)
        frame = pd.DataFrame({"patient": [f"P{i:03d}" for i in range(40)], "record": np.arange(900, 940),
                              "time": rng.integers(1, 500, 40), "event": rng.integers(0, 2, 40)})
        persons = Persons.of_rows(frame) if key == "none" else Persons.of_column(frame[key], key, frame)
        holding = ledger.holding(persons)
    print("ready", flush=True)
    while not go_file.exists():
        time.sleep(0.01)
    accepted = refused = 0
    for _ in range(count):
        try:
            ledger.charge(holding, "race", 0.1, label="race test", page="test", session=str(key))
            accepted += 1
        except BudgetExceeded:
            refused += 1
    print(f"{accepted} {refused}", flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:])

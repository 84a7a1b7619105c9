"""A separate process charging the deployment ledger (its configuration from the environment), for the race
and crash tests in test_ledger_store.py.

    python tests/ledger_worker.py race KEY N GO_FILE   # wait for GO_FILE, try N charges of ε = 0.1 on KEY
    python tests/ledger_worker.py crash KEY            # charge ε = 0.1 on KEY, say so, wait to be killed
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
    print("ready", flush=True)
    while not go_file.exists():
        time.sleep(0.01)
    accepted = refused = 0
    for _ in range(count):
        try:
            ledger.charge(key, "race", 0.1, label="race test", page="test", session=str(key))
            accepted += 1
        except BudgetExceeded:
            refused += 1
    print(f"{accepted} {refused}", flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:])

"""The kernel every layer and method imports: calibrated noise, input checks, persons, bundled data, the black-box audit, neighbouring pairs of additive releases (``pairs``, for the attacker's view), Monte-Carlo summaries and the one utility-curve type (``utility``), named seed streams (``seeds``), Dask, thread limits and column guessing.

It imports nothing above it (``tests/architecture/test_architecture.py``).
"""

__all__: list[str] = []

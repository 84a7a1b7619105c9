"""What the tests share: page runners and fake uploads, figure and release cases, browser steps, ledger workers.

Test modules import from here, never from one another (``tests/architecture/test_architecture.py`` checks it).
"""

"""Above the methods: release bundles and their exports (CSV, JSON, ZIP, report), the figures that go with a release, the shared figure look, text alternatives, and the attacker's view.
"""

__all__: list[str] = []

"""In Chromium, on both stores: after an upload's cap is spent, the review's near-copies of it cannot release again.

The review (issue 27) spent 40 ε on the same 137 people under a cap of 10 through four near-copies: a number written
72.0 instead of 72, a renamed column, an extra constant column, one row dropped. Here the cap is ε = 1 and one
release at ε = 1 spends it; every near-copy's release button is then disabled, with the reason.
"""

import pytest
from conftest import start_app, stop_app, wait_for_idle

pytestmark = pytest.mark.browser

ROWS = [(t, e, "AB"[i % 2]) for i, (t, e) in enumerate(zip(range(5, 5 + 3 * 137, 3), [1, 0, 1, 1, 0] * 28))]


def _csv(header: str, rows) -> str:
    return header + "\n" + "\n".join(",".join(str(v) for v in row) for row in rows) + "\n"


NEAR_COPIES = {
    "72.0 for 72": _csv("time,status,arm", [(f"{ROWS[0][0]:.1f}", *ROWS[0][1:]), *ROWS[1:]]),
    "renamed column": _csv("futime,status,arm", ROWS),
    "extra constant column": _csv("time,status,arm,site", [(*r, 7) for r in ROWS]),
    "one row dropped": _csv("time,status,arm", ROWS[1:]),
}


def _upload(page, path) -> None:
    page.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(str(path))
    wait_for_idle(page)


@pytest.mark.parametrize("store", ["sqlite", "postgres"])
def test_near_copies_of_a_spent_upload_cannot_release(store, _browser, tmp_path, request):
    url_env = ""
    if store == "postgres":
        from conftest import postgres_schema

        schema = postgres_schema(request.getfixturevalue("postgres_server"))
        url_env = schema.__enter__()
        request.addfinalizer(lambda: schema.__exit__(None, None, None))
    proc, url = start_app(tmp_path / "ledger", ledger_url=url_env, extra_env={"DPCORE_DEFAULT_EPSILON_CAP": "1"})
    context = _browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        page = context.new_page()
        page.set_default_timeout(90_000)
        page.goto(f"{url}/survival?eps=1")
        wait_for_idle(page)
        page.get_by_text("upload a CSV").click()
        wait_for_idle(page)
        original = tmp_path / "trial.csv"
        original.write_text(_csv("time,status,arm", ROWS))
        _upload(page, original)
        page.get_by_role("button", name="Release with ε = 1").click()
        page.get_by_role("button", name="Release and charge ε = 1").click()
        wait_for_idle(page)
        page.get_by_text("Released DP survival analysis").first.wait_for()
        for i, (variant, text) in enumerate(NEAR_COPIES.items()):
            copy = tmp_path / f"copy{i}.csv"
            copy.write_text(text)
            _upload(page, copy)
            page.get_by_text("Not enough budget left for this release").first.wait_for()
            assert page.get_by_role("button", name="Release with ε = 1").is_disabled(), variant
        unrelated = tmp_path / "other-study.csv"  # the control: other people keep their own budget
        unrelated.write_text(_csv("time,status,arm", [(t + 1000, e, g) for t, e, g in ROWS]))
        _upload(page, unrelated)
        page.get_by_text("Remaining under the cap: ε = 1").first.wait_for()
        assert page.get_by_role("button", name="Release with ε = 1").is_enabled()
        assert page.locator('[data-testid="stException"]').count() == 0
    finally:
        context.close()
        stop_app(proc)

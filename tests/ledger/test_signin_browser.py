"""In Chromium, against a local OpenID Connect provider: two custodians and a reviewer sign in and each sees their
own name and role; Bob sees and changes nothing of Alice's (and cannot tell whether his table matches hers); the
reviewer reads Alice's history but cannot release or cap; signing out ends access."""

from __future__ import annotations

import re

import pytest
from conftest import wait_for_idle
from tests.support.oidc_provider import oidc_provider, signin_app

# the provider (oidc-provider-mock, in this process) still uses Authlib's older JOSE and JWT-config interfaces
pytestmark = [pytest.mark.browser, pytest.mark.filterwarnings("ignore::DeprecationWarning:authlib.*"),
              pytest.mark.filterwarnings("ignore::DeprecationWarning:oidc_provider_mock.*")]

#: the provider vouches for each address (identify_by = "email" accepts a token only with email_verified true)
PEOPLE = {
    "alice": {"email": "alice@hospital.example", "email_verified": True, "name": "Alice Ames"},
    "bob": {"email": "bob@hospital.example", "email_verified": True, "name": "Bob Brown"},
    "rita": {"email": "rita@hospital.example", "email_verified": True, "name": "Rita Reviewer"},
}
ACCESS = """
[access]
identify_by = "email"
custodians = ["alice@hospital.example", "bob@hospital.example"]
[access.reviewers]
"rita@hospital.example" = ["alice@hospital.example"]
"""


@pytest.fixture(scope="module")
def signin_server(_browser, tmp_path_factory):
    """The app signing in with a local provider that knows Alice, Bob and Rita; yields the app's URL."""
    with oidc_provider(PEOPLE) as issuer, signin_app(issuer, tmp_path_factory.mktemp("signin"), ACCESS) as url:
        yield url


def sidebar(page) -> str:
    return page.locator('[data-testid="stSidebar"]').inner_text()


def open_signed_out(browser, url: str, path: str = ""):
    """A page in a browser context of its own (``page.context.close()`` ends it)."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.set_default_timeout(90_000)
    page.goto(f"{url}/{path}")
    wait_for_idle(page)
    return page


def sign_in(browser, url: str, who: str):
    """A new browser that signs in as ``who`` on the provider's page; returns its page, back on the app."""
    page = open_signed_out(browser, url)
    page.locator('[data-testid="stSidebar"]').get_by_role("button", name="Sign in").click()
    page.get_by_role("button", name=who, exact=True).click()  # the provider's one-click person
    page.wait_for_url(f"{url}/**")
    wait_for_idle(page)
    page.get_by_text(PEOPLE[who]["name"]).first.wait_for()
    return page


def test_each_person_sees_their_own_name_and_role(_browser, signin_server, page_screenshot):
    for who, role in [("alice", "Custodian"), ("bob", "Custodian"), ("rita", "Reviewer")]:
        page = sign_in(_browser, signin_server, who)
        text = sidebar(page)
        assert PEOPLE[who]["name"] in text and role in text, text
        others = [p["name"] for name, p in PEOPLE.items() if name != who]
        assert not any(name in text for name in others)
        if who == "alice":
            page_screenshot(page, "signed-in-custodian")
        page.context.close()


COHORT = "alice-oncology-cohort.csv"
ROWS = [f"{i + 1},{i % 2},{'AB'[i % 2]}" for i in range(60)]  # distinct rows: identical ones without ids are refused


def write_cohort(folder, rows, name: str = COHORT):
    path = folder / name
    path.write_text("time,event,arm\n" + "\n".join(rows) + "\n")
    return path


def upload_on_survival(page, url: str, csv) -> str:
    """Upload ``csv`` on the survival page; returns the release panel's standing ("Already spent …")."""
    page.goto(f"{url}/survival?sv_src=upload")  # the page's link to its upload source
    page.locator('input[type="file"]').set_input_files(str(csv))
    wait_for_idle(page)
    return page.locator('[data-testid="stMarkdownContainer"]', has_text="It reads ").inner_text()


def release(page) -> None:
    page.get_by_role("button", name="Release with ε = 1").click()
    page.get_by_role("button", name="Release and charge ε = 1").click()
    page.get_by_text("Released DP survival analysis").first.wait_for()
    wait_for_idle(page)


RELEASES, TOTALS = 0, 2  # the Ledger page's tables (spend per person between them)


def open_ledger(page, url: str) -> str:
    """The Ledger page's text, with its tables' cells (drawn on a canvas; read from their accessible copy) and
    the values its select boxes show."""
    page.locator('[data-testid="stSidebarNav"]').get_by_text("Ledger & report").click()  # same session
    page.wait_for_url(f"{url}/ledger")
    wait_for_idle(page)
    chosen = page.locator('[data-testid="stSelectbox"] input')
    return "\n".join([page.locator('[data-testid="stMain"]').text_content(),
                      *(chosen.nth(i).input_value() for i in range(chosen.count()))])


def set_cap(page, epsilon: float) -> None:
    """On the Ledger page: cap the data set the form offers first at ``epsilon``."""
    box = page.get_by_label("Total ε cap")
    box.fill(f"{epsilon:g}")
    box.press("Enter")
    wait_for_idle(page)
    page.get_by_role("button", name="Set cap").click()
    page.get_by_text("Cap for").first.wait_for()
    wait_for_idle(page)


def table(page, index: int) -> list[dict[str, str]]:
    """The page's ``index``-th table, one dict per row (read from the accessible copy of the canvas grid, which
    is filled once the grid is drawn)."""
    grid = page.locator('[data-testid="stDataFrame"]').nth(index)
    grid.locator("td").first.wait_for(state="attached")
    header, *rows = grid.evaluate("grid => [...grid.querySelectorAll('tr')]"
                                  ".map(row => [...row.querySelectorAll('th, td')].map(cell => cell.textContent))")
    return [dict(zip(header, row)) for row in rows]


def test_custodians_see_only_their_own_ledger_and_the_reviewer_reads_without_releasing(
        _browser, signin_server, tmp_path, page_screenshot):
    alice = sign_in(_browser, signin_server, "alice")
    assert "none of them was read by an earlier release" in upload_on_survival(alice, signin_server,
                                                                          write_cohort(tmp_path, ROWS))
    release(alice)
    assert COHORT in sidebar(alice)
    assert COHORT in open_ledger(alice, signin_server)
    set_cap(alice, 3)

    # Bob, another custodian: nothing of Alice's anywhere, and his identical copy is a budget of his own
    bob = sign_in(_browser, signin_server, "bob")
    ledger_text = open_ledger(bob, signin_server)
    assert COHORT not in ledger_text and "No release yet on your data sets" in ledger_text
    assert "Open a method page and pick a data set to set its cap" in ledger_text  # no data set of Alice's to cap
    assert COHORT not in sidebar(bob)
    page_screenshot(bob, "bob-ledger")
    # Bob's two guesses at Alice's table, under her file name: an exact copy, and one with a value changed
    guesses = {name: tmp_path / name for name in ("copy", "changed")}
    for folder in guesses.values():
        folder.mkdir()
    copy = write_cohort(guesses["copy"], ROWS)
    changed = write_cohort(guesses["changed"], ["31,1,A", *ROWS[1:]])
    matching, other = (upload_on_survival(bob, signin_server, guess) for guess in (copy, changed))
    # no membership oracle: the same words whether or not Bob's guess matches Alice's table (the count of people is
    # Bob's own file's)
    assert re.sub(r"\d+ people", "N people", matching) == re.sub(r"\d+ people", "N people", other)
    assert "none of them was read by an earlier release" in matching
    upload_on_survival(bob, signin_server, copy)
    release(bob)  # charged to his own copy: Alice's budget is untouched
    assert re.search(rf"{re.escape(COHORT)} \(uploaded\)\nmost-charged person: ε 0\.99\d* of 10 \(their ε add up to "
                     r"1\) spent", sidebar(bob))
    open_ledger(bob, signin_server)
    set_cap(bob, 2)  # the cap of his copy; Alice's stays where she set it
    assert [(row["ε spent"], row["ε cap"]) for row in table(bob, TOTALS)] == [("1", "2")]
    open_ledger(alice, signin_server)
    assert [(row["data set"], row["ε spent"], row["ε cap"]) for row in table(alice, TOTALS)] == [
        (f"{COHORT} (uploaded)", "1", "3")]
    bob.context.close()

    # Rita, granted Alice's scope: reads her releases and history, cannot cap or release
    rita = sign_in(_browser, signin_server, "rita")
    open_ledger(rita, signin_server)
    assert [(row["data set"], row["method"]) for row in table(rita, RELEASES)] == [
        (f"{COHORT} (uploaded)", "DP survival analysis")]  # Alice's release; nothing of Bob's
    assert [(row["ε spent"], row["ε cap"]) for row in table(rita, TOTALS)] == [("1", "3")]
    page_screenshot(rita, "reviewer-ledger")
    assert rita.get_by_role("button", name="Set cap").count() == 0
    assert rita.get_by_role("button", name="Download its history report (HTML)").count() == 1
    rita.goto(f"{signin_server}/survival")
    wait_for_idle(rita)
    assert rita.get_by_text("Releases are made by a data set's custodian").count() == 1
    assert rita.get_by_role("button", name="Release with ε = 1").count() == 0
    rita.context.close()
    alice.context.close()


def test_signing_out_ends_access(_browser, signin_server, page_screenshot):
    page = sign_in(_browser, signin_server, "alice")
    page.locator('[data-testid="stSidebar"]').get_by_role("button", name="Sign out").click()
    # the provider asks to confirm ending its session, then returns to the app, signed out
    page.get_by_role("button", name="End session").click()
    page.wait_for_url(f"{signin_server}/**")
    wait_for_idle(page)
    page.get_by_text("Not signed in").first.wait_for()
    assert "Alice" not in sidebar(page)
    page.reload()
    wait_for_idle(page)
    assert "Not signed in" in sidebar(page) and "Alice" not in sidebar(page)
    page_screenshot(page, "signed-out")
    # runs after Alice's release above (module order): none of it is left to the signed-out browser
    ledger_text = open_ledger(page, signin_server)
    assert "to see it, sign in (sidebar) as a custodian or reviewer" in ledger_text
    assert COHORT not in ledger_text and COHORT not in sidebar(page)
    page.context.close()

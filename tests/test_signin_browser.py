"""In Chromium, against a local OpenID Connect provider: two custodians and a reviewer sign in, each sees their
own name and role, and signing out ends access."""

from __future__ import annotations

import pytest
from conftest import wait_for_idle
from oidc_provider import oidc_provider, signin_app

# the provider (oidc-provider-mock, in this process) still uses Authlib's older JOSE and JWT-config interfaces
pytestmark = [pytest.mark.browser, pytest.mark.filterwarnings("ignore::DeprecationWarning:authlib.*"),
              pytest.mark.filterwarnings("ignore::DeprecationWarning:oidc_provider_mock.*")]

PEOPLE = {
    "alice": {"email": "alice@hospital.example", "name": "Alice Ames"},
    "bob": {"email": "bob@hospital.example", "name": "Bob Brown"},
    "rita": {"email": "rita@hospital.example", "name": "Rita Reviewer"},
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
    page.context.close()

"""In Chromium: no page asks anything of another machine. Every request the browser makes is routed
through the test; one that leaves the loopback address fails it. The favicon is the server's own file, and the
Material icons of the navigation and of the page's notices are drawn from the font Streamlit serves itself."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

pytestmark = pytest.mark.browser

PAGES = ["", "survival", "regression", "sparse", "fdr", "audit", "ledger", "plan-first", "survival?sv_src=upload"]
LOCAL = {"127.0.0.1", "localhost", "::1"}


@pytest.mark.parametrize("path", PAGES)
def test_no_request_leaves_the_machine(app_server, _browser, streamlit_idle, path):
    context = _browser.new_context(viewport={"width": 1400, "height": 1000})
    outside: list[str] = []

    def route(request_route):
        url = request_route.request.url
        if urlsplit(url).scheme in ("http", "https", "ws", "wss") and urlsplit(url).hostname not in LOCAL:
            outside.append(url)
            request_route.abort()
        else:
            request_route.continue_()

    context.route("**/*", route)
    page = context.new_page()
    page.goto(f"{app_server}/{path}")
    streamlit_idle(page)
    favicon = page.evaluate("() => document.querySelector(\"link[rel='shortcut icon']\").href")
    icons = page.locator('[data-testid="stIconMaterial"]').count()
    context.close()
    assert not outside, f"/{path} asked other machines for {outside}"
    assert urlsplit(favicon).hostname in LOCAL, favicon
    assert icons > 0  # the navigation's Material icons are drawn, from the local font

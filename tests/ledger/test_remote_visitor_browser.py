"""The embedded default (no sign-in) serves the person at this machine: a browser on another machine is a visitor.

The server is started on every interface and reached through this machine's own non-loopback address, as a
colleague on the network would reach a server started with ``--server.address 0.0.0.0``: no uploads, no ledger,
no release; the same server reached through 127.0.0.1 is the local custodian.
"""

import socket

import pytest
from conftest import start_app, stop_app, wait_for_idle

from ui.identity import is_local_address


@pytest.mark.parametrize("address, local", [(None, True), ("127.0.0.1", True), ("::1", True), ("127.8.9.1", True),
                                            ("192.0.2.2", False), ("10.0.0.7", False), ("fd00::2", False),
                                            ("not an address", False)])
def test_only_loopback_is_this_machine(address, local):
    assert is_local_address(address) is local


def _own_address() -> str:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.255.255.255", 1))  # no packet is sent: this picks the outgoing interface
            return probe.getsockname()[0]
        except OSError:
            return ""


@pytest.mark.browser
def test_a_browser_on_another_address_is_a_visitor(_browser, tmp_path):
    own = _own_address()
    if not own or own.startswith("127."):
        pytest.skip("this machine has no non-loopback address to reach itself through")
    proc, url = start_app(tmp_path / "ledger", address="0.0.0.0")
    context = _browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        page = context.new_page()
        page.set_default_timeout(90_000)
        page.goto(url.replace("127.0.0.1", own) + "/survival")
        wait_for_idle(page)
        page.get_by_text("upload a CSV").click()
        wait_for_idle(page)
        page.get_by_text("Uploads are for data custodians").wait_for()
        assert page.locator('input[type="file"]').count() == 0
        page.goto(url.replace("127.0.0.1", own) + "/ledger")
        wait_for_idle(page)
        page.get_by_text("The ledger is shown to data custodians").wait_for()
        assert "Privacy ledger" not in page.locator('[data-testid="stSidebar"]').inner_text()
        page.goto(url + "/ledger")  # the same server from this machine: the local custodian
        wait_for_idle(page)
        assert "Privacy ledger (your data sets" in page.locator('[data-testid="stSidebar"]').inner_text()
    finally:
        context.close()
        stop_app(proc)

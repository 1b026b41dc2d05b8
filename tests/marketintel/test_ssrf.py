"""Where webhooks may go: https to public addresses; loopback and private only with the setting; link-local,
multicast, unspecified and cloud metadata addresses never."""
from __future__ import annotations

import ipaddress

import pytest

from marketintel.ssrf import RefusedURL, Unresolvable, check_address, check_url, checked_target

NEVER = ["169.254.169.254", "fd00:ec2::254", "169.254.170.2", "100.100.100.200", "0.0.0.0", "::", "224.0.0.1",
         "ff02::1", "169.254.1.1", "fe80::1", "::ffff:169.254.169.254"]
ONLY_WITH_SETTING = ["127.0.0.1", "::1", "10.0.0.1", "172.16.5.4", "192.168.1.1", "100.64.0.1", "fc00::1",
                     "::ffff:127.0.0.1", "192.0.2.1"]


@pytest.mark.parametrize("address", NEVER)
@pytest.mark.parametrize("allow_private", [False, True])
def test_metadata_link_local_multicast_and_unspecified_are_always_refused(address, allow_private):
    with pytest.raises(RefusedURL):
        check_address(ipaddress.ip_address(address), allow_private)


@pytest.mark.parametrize("address", ONLY_WITH_SETTING)
def test_loopback_and_private_need_the_setting(address):
    with pytest.raises(RefusedURL):
        check_address(ipaddress.ip_address(address), allow_private=False)
    check_address(ipaddress.ip_address(address), allow_private=True)


def test_public_addresses_pass():
    for address in ("93.184.215.14", "2606:4700::6810:84e5"):
        check_address(ipaddress.ip_address(address), allow_private=False)


def test_urls_must_be_https_with_a_host_and_no_credentials():
    assert check_url("https://hooks.example.com:8443/in?x=1", False).port == 8443
    for url, why in (("http://hooks.example.com/in", "must use https"), ("ftp://x/", "must use https"),
                     ("https:///path", "no host"), ("https://u:p@hooks.example.com/", "credentials"),
                     ("https://hooks.example.com:99999/", "not a valid URL"),
                     ("https://h.example.com/" + "a" * 2000, "longer than")):
        with pytest.raises(RefusedURL, match=why):
            check_url(url, False)
    assert check_url("http://127.0.0.1:8080/in", True).host_header == "127.0.0.1:8080"


def test_names_are_resolved_and_every_address_checked():
    with pytest.raises(RefusedURL, match="loopback"):
        checked_target("https://localhost/in", False)
    assert checked_target("http://localhost:9/in", True)[1][0].is_loopback
    with pytest.raises(RefusedURL, match="metadata"):
        checked_target("http://169.254.169.254/latest/meta-data/", True)
    with pytest.raises(RefusedURL, match="metadata"):
        checked_target("http://[fd00:ec2::254]/latest/meta-data/", True)
    with pytest.raises(Unresolvable):
        checked_target("https://no-such-host.invalid/in", False)

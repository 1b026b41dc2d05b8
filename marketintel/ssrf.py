"""Where a webhook may be sent: no server-side request forgery.

A callback URL is `https` with a host; the host's every address is checked at subscribe and again at each
delivery (DNS may change in between), and the delivery connects to the address checked here, not to a second
lookup (jobs/webhooks.py pins it), so a rebinding DNS answer cannot slip a private address in between.

Always refused: cloud metadata addresses, unspecified, multicast and link-local addresses (169.254.0.0/16 is where
metadata services live). Refused unless `MI_WEBHOOK_ALLOW_PRIVATE=true` (local tests on loopback): plain `http`,
loopback, and every other address that is not globally routable (private, shared, reserved, documentation)."""
from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
MAX_URL_CHARS = 2000
# AWS/GCP/Azure/OCI (and AWS over IPv6), AWS ECS task metadata, Alibaba Cloud (inside the shared 100.64/10 range)
METADATA_ADDRESSES = frozenset(ipaddress.ip_address(a) for a in (
    "169.254.169.254", "fd00:ec2::254", "169.254.170.2", "100.100.100.200"))


class RefusedURL(ValueError):
    """The URL or one of its host's addresses may not receive webhooks; the message says why."""


class Unresolvable(RefusedURL):
    """The host has no address now: refused at subscribe, retried at delivery (DNS may be down for a while)."""


@dataclass(frozen=True)
class CallbackTarget:
    url: str
    scheme: str
    host: str  # as written (a name, or an address without brackets)
    port: int
    host_header: str  # host[:port] as the URL gave it


def check_url(url: str, allow_private: bool) -> CallbackTarget:
    """The URL's parts when its form is acceptable (no DNS here); RefusedURL otherwise."""
    if len(url) > MAX_URL_CHARS:
        raise RefusedURL(f"the URL is longer than {MAX_URL_CHARS} characters")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as ex:
        raise RefusedURL(f"not a valid URL: {ex}") from None
    allowed = ("https", "http") if allow_private else ("https",)
    if parts.scheme not in allowed:
        raise RefusedURL("the callback URL must use https" + (" or http" if allow_private else ""))
    if not parts.hostname:
        raise RefusedURL("the callback URL has no host")
    if parts.username is not None or parts.password is not None:
        raise RefusedURL("the callback URL may not carry credentials (user:password@)")
    default_port = 443 if parts.scheme == "https" else 80
    return CallbackTarget(url=url, scheme=parts.scheme, host=parts.hostname, port=port or default_port,
                          host_header=parts.netloc.rpartition("@")[2])


def check_address(address: IPAddress, allow_private: bool) -> None:
    """RefusedURL when a webhook may not be sent to `address`."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped  # ::ffff:127.0.0.1 is 127.0.0.1
    if address in METADATA_ADDRESSES:
        raise RefusedURL(f"{address} is a cloud metadata address")
    for refused, what in ((address.is_unspecified, "an unspecified"), (address.is_multicast, "a multicast"),
                          (address.is_link_local, "a link-local")):
        if refused:
            raise RefusedURL(f"{address} is {what} address")
    if allow_private:
        return
    if address.is_loopback:
        raise RefusedURL(f"{address} is a loopback address")
    if not address.is_global:
        raise RefusedURL(f"{address} is a private or reserved address")


def resolve(target: CallbackTarget, allow_private: bool) -> list[IPAddress]:
    """The host's addresses, every one checked (one refused address refuses the URL: a name that can answer with
    a private address is never trusted). RefusedURL for a refused address or a name that does not resolve."""
    try:
        literal = ipaddress.ip_address(target.host)
    except ValueError:
        literal = None
    if literal is not None:
        addresses = [literal]
    else:
        try:
            infos = socket.getaddrinfo(target.host, target.port, type=socket.SOCK_STREAM)
        except (socket.gaierror, UnicodeError) as ex:
            raise Unresolvable(f"{target.host} does not resolve: {ex}") from None
        addresses = list(dict.fromkeys(ipaddress.ip_address(info[4][0].split("%")[0]) for info in infos))
    for address in addresses:
        check_address(address, allow_private)
    return addresses


def checked_target(url: str, allow_private: bool) -> tuple[CallbackTarget, list[IPAddress]]:
    """check_url, then resolve: what subscribe and every delivery attempt call."""
    target = check_url(url, allow_private)
    return target, resolve(target, allow_private)

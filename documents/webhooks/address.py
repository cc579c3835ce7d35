"""Where a webhook may be sent: one reading of its URL, the addresses its host resolves to, and the
rules those addresses must pass.

The URL is read once, with urllib3's parser (the one the sender connects with), and refused
wherever another parser could read it differently: backslashes, userinfo, percent-encoded or
non-ASCII-looking hosts, IPv4-mapped IPv6 literals. The host is then resolved once, every address
it resolves to must be allowed, and the sender connects to the address checked here, never
resolving the name again (so a name cannot point elsewhere between the check and the connection).

An address is allowed when it is on the public internet, or inside WEBHOOK_ALLOWED_NETWORKS (for
receivers on an internal network). Addresses that carry an IPv4 address inside an IPv6 one
(mapped, 6to4, Teredo, NAT64) are judged by the IPv4 address they carry.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils.translation import gettext

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

DEFAULT_PORTS = {"http": 80, "https": 443}
# A host name as a resolver reads it: ASCII letters, digits, hyphens and dots (IDNA already applied).
HOST_NAME = re.compile(r"^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.?$")
NAT64_NETWORKS = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))


class AddressRefused(Exception):
    """The URL may not be sent to: its form, its scheme, or an address outside the allowed ones."""


class HostUnresolved(Exception):
    """The URL's host name does not resolve now (a name server's answer may change: worth a retry)."""


@dataclass(frozen=True)
class WebhookUrl:
    """A URL as the sender reads it: scheme, host (a lower-case name or an IP literal), port, target."""

    scheme: str
    host: str
    port: int
    request_target: str

    @property
    def host_header(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if self.port == DEFAULT_PORTS[self.scheme] else f"{host}:{self.port}"


@dataclass(frozen=True)
class WebhookTarget:
    """A URL with the one address, checked, that the sender connects to."""

    url: WebhookUrl
    address: IPAddress


def webhook_url_parse(url: str) -> WebhookUrl:
    """Read `url` as the sender will, or raise AddressRefused naming what is wrong with it."""
    import urllib3.util  # lazily: only webhook code needs it

    if any(ch in url for ch in "\\\t\r\n ") or not url.isprintable():
        raise AddressRefused(gettext("the URL holds a backslash, a space or a control character"))
    try:
        parsed = urllib3.util.parse_url(url)
        split = urlsplit(url)
        split_port = split.port
    except (ValueError, urllib3.exceptions.LocationParseError) as exc:
        raise AddressRefused(gettext("the URL cannot be read (%(error)s)") % {"error": exc}) from None
    scheme = (parsed.scheme or "").lower()
    if scheme not in DEFAULT_PORTS:
        raise AddressRefused(gettext("only http and https URLs are sent to"))
    if parsed.auth is not None or "@" in split.netloc:
        raise AddressRefused(
            gettext("the URL holds a user name or password before its host; put credentials elsewhere")
        )
    host = (parsed.host or "").strip("[]").lower()
    if not host or "%" in host:
        raise AddressRefused(gettext("the URL's host is missing or percent-encoded"))
    if host != (split.hostname or "") or (parsed.port or None) != split_port:
        raise AddressRefused(gettext("the URL's host reads differently to different parsers"))
    literal = ip_literal(host)
    if literal is None and not HOST_NAME.match(host):
        raise AddressRefused(gettext("%(host)r is not a host name") % {"host": host})
    if isinstance(literal, ipaddress.IPv6Address) and literal.ipv4_mapped is not None:
        raise AddressRefused(gettext("an IPv4-mapped IPv6 address is refused; write the IPv4 address itself"))
    target = (parsed.path or "/") + (f"?{parsed.query}" if parsed.query else "")
    return WebhookUrl(scheme=scheme, host=host, port=parsed.port or DEFAULT_PORTS[scheme], request_target=target)


def webhook_target(url: str) -> WebhookTarget:
    """The URL read and its host resolved once; raise AddressRefused or HostUnresolved."""
    parsed = webhook_url_parse(url)
    addresses = host_addresses(parsed)
    for address in addresses:
        refusal = address_refusal(address)
        if refusal:
            said = gettext("%(host)s resolves to %(address)s, %(refusal)s")
            raise AddressRefused(said % {"host": parsed.host, "address": address, "refusal": refusal})
    return WebhookTarget(url=parsed, address=addresses[0])


def webhook_url_validate(url: str) -> None:
    """A model-field validator: the URL is refused when saved as it would be when sent.

    A name that does not resolve now is accepted (a name server may answer later); every send
    resolves and checks it again."""
    try:
        webhook_target(url)
    except HostUnresolved:
        return
    except AddressRefused as exc:
        said = gettext("This URL cannot receive webhooks: %(refusal)s.") % {"refusal": exc}
        raise ValidationError(said, code="webhook_address") from None


def host_addresses(url: WebhookUrl) -> list[IPAddress]:
    literal = ip_literal(url.host)
    if literal is not None:
        return [literal]
    try:
        infos = socket.getaddrinfo(url.host, url.port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise HostUnresolved(f"the host {url.host} does not resolve ({exc.args[-1]})") from None
    found: list[IPAddress] = []
    for info in infos:
        address = ipaddress.ip_address(str(info[4][0]).split("%")[0])
        if address not in found:
            found.append(address)
    if not found:
        raise HostUnresolved(f"the host {url.host} resolves to no address")
    return found


def address_refusal(address: IPAddress) -> str:
    """Why `address` may not be sent to, or "" when it may."""
    if any(address in network for network in settings.WEBHOOK_ALLOWED_NETWORKS):
        return ""
    carried = embedded_ipv4(address)
    if carried is not None:
        inner = address_refusal(carried)
        if not inner:
            return ""
        return gettext("which carries %(carried)s, %(refusal)s") % {"carried": carried, "refusal": inner}
    if not address.is_global:
        return gettext("which is not a public address (WEBHOOK_ALLOWED_NETWORKS lists the internal networks allowed)")
    return ""


def embedded_ipv4(address: IPAddress) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 one carries (mapped, 6to4, Teredo, NAT64), else None."""
    if not isinstance(address, ipaddress.IPv6Address):
        return None
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address.teredo is not None:
        return address.teredo[1]
    if any(address in network for network in NAT64_NETWORKS):
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def ip_literal(host: str) -> IPAddress | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None

"""The addresses a user-given URL may not reach, as data: the IANA registries' special ranges.

Source: the IANA IPv4 and IPv6 Special-Purpose Address Registries (RFC 6890, RFC 8190),
compared entry by entry on 2026-11-26 (their newest entry then: 100:0:0:1::/64, RFC 9780,
April 2025), with the IPv4 Multicast, IPv6 Multicast and IPv6 Address Space registries for the
blocks those list. Each row is one registry entry whose "Globally Reachable" is not True
(False, N/A, or a terminated entry), or one we add for a reason given beside it. The
interpreter's `ipaddress` tables are not used: they lag the registries (Python 3.11's let
192.0.0.0/24 and 2002::/16 through).

The rule (`refusal`): an address inside any row is refused, even where the registry marks a
smaller block inside it reachable (the PCP and TURN anycast addresses in 192.0.0.0/24; AMT,
AS112-v6, ORCHIDv2 and drone tags in 2001::/23): none of them is a web server. An IPv6
address outside 2000::/3, the only block the IPv6 Address Space registry allocates for global
unicast, is refused too. Every IPv6 form that carries an IPv4 address (IPv4-mapped, the
deprecated IPv4-compatible, NAT64's two prefixes, 6to4, Teredo) is refused whatever address it
carries, so a private IPv4 address cannot travel inside one.
"""

import ipaddress
from typing import Final

Network = ipaddress.IPv4Network | ipaddress.IPv6Network

# (block, the registry's name, the reference); review them against the registries yearly.
REFUSED: Final[tuple[tuple[Network, str, str], ...]] = tuple(
    (ipaddress.ip_network(block), name, reference)
    for block, name, reference in (
        # IPv4 Special-Purpose Address Registry
        ("0.0.0.0/8", '"This network"', "RFC 791"),
        ("10.0.0.0/8", "Private-Use", "RFC 1918"),
        ("100.64.0.0/10", "Shared Address Space (carrier-grade NAT)", "RFC 6598"),
        ("127.0.0.0/8", "Loopback", "RFC 1122"),
        ("169.254.0.0/16", "Link Local", "RFC 3927"),
        ("172.16.0.0/12", "Private-Use", "RFC 1918"),
        ("192.0.0.0/24", "IETF Protocol Assignments", "RFC 6890"),
        ("192.0.2.0/24", "Documentation (TEST-NET-1)", "RFC 5737"),
        ("192.88.99.0/24", "Deprecated (6to4 Relay Anycast)", "RFC 7526"),
        ("192.168.0.0/16", "Private-Use", "RFC 1918"),
        ("198.18.0.0/15", "Benchmarking", "RFC 2544"),
        ("198.51.100.0/24", "Documentation (TEST-NET-2)", "RFC 5737"),
        ("203.0.113.0/24", "Documentation (TEST-NET-3)", "RFC 5737"),
        ("240.0.0.0/4", "Reserved", "RFC 1112"),
        ("255.255.255.255/32", "Limited Broadcast", "RFC 919"),
        # IPv4 Multicast Address Space Registry
        ("224.0.0.0/4", "Multicast", "RFC 5771"),
        # IPv6 Special-Purpose Address Registry
        ("::1/128", "Loopback Address", "RFC 4291"),
        ("::/128", "Unspecified Address", "RFC 4291"),
        ("::ffff:0:0/96", "IPv4-mapped Address", "RFC 4291"),
        # Globally reachable in the registry, refused here: a NAT64 gateway forwards to the
        # IPv4 address inside, which may be private.
        ("64:ff9b::/96", "IPv4-IPv6 Translation (NAT64, well-known)", "RFC 6052"),
        ("64:ff9b:1::/48", "IPv4-IPv6 Translation (NAT64, local use)", "RFC 8215"),
        ("100::/64", "Discard-Only Address Block", "RFC 6666"),
        ("100:0:0:1::/64", "Dummy IPv6 Prefix", "RFC 9780"),
        ("2001::/23", "IETF Protocol Assignments (Teredo 2001::/32 among them)", "RFC 2928"),
        ("2001:db8::/32", "Documentation", "RFC 3849"),
        ("2002::/16", "6to4", "RFC 3056"),
        ("3fff::/20", "Documentation", "RFC 9637"),
        ("5f00::/16", "Segment Routing (SRv6) SIDs", "RFC 9602"),
        ("fc00::/7", "Unique-Local", "RFC 4193"),
        ("fe80::/10", "Link-Local Unicast", "RFC 4291"),
        # IPv6 Address Space Registry
        ("::/96", "IPv4-compatible (deprecated)", "RFC 4291"),
        ("fec0::/10", "Site-Local (deprecated)", "RFC 3879"),
        # IPv6 Multicast Address Space Registry
        ("ff00::/8", "Multicast", "RFC 4291"),
    )
)
GLOBAL_UNICAST_V6: Final = ipaddress.IPv6Network("2000::/3")


def refusal(address: str) -> str | None:
    """Why an address may not be reached (the row's name and reference), None when it may."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])  # an IPv6 zone names no other address
    for network, name, reference in REFUSED:
        if ip.version == network.version and ip in network:
            return f"{name}, {network} ({reference})"
    if isinstance(ip, ipaddress.IPv6Address) and ip not in GLOBAL_UNICAST_V6:
        return f"outside the global unicast block {GLOBAL_UNICAST_V6} (RFC 4291)"
    return None

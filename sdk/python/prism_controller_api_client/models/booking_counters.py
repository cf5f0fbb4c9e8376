from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.booking_counters_drops import BookingCountersDrops





T = TypeVar("T", bound="BookingCounters")



@_attrs_define
class BookingCounters:
    """ What a provisioned booking's network has forwarded on its node, read
    by the controller with its own credential for the node: counters since
    the network was placed there (a rate is two readings' difference over
    `at_ms`'s).

        Attributes:
            node (str): The node read.
            network (str): The network's name on that node.
            at_ms (int): When the controller had the node's answer (Unix ms).
            rx_packets (int):
            rx_bytes (int):
            tx_packets (int):
            tx_bytes (int):
            dropped (int): Packets dropped, all reasons together.
            drops (BookingCountersDrops): Packets dropped by `stage/reason` (the node's named drop reasons).
     """

    node: str
    network: str
    at_ms: int
    rx_packets: int
    rx_bytes: int
    tx_packets: int
    tx_bytes: int
    dropped: int
    drops: BookingCountersDrops
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.booking_counters_drops import BookingCountersDrops # noqa: PLC0415
        node = self.node

        network = self.network

        at_ms = self.at_ms

        rx_packets = self.rx_packets

        rx_bytes = self.rx_bytes

        tx_packets = self.tx_packets

        tx_bytes = self.tx_bytes

        dropped = self.dropped

        drops = self.drops.to_dict()


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "node": node,
            "network": network,
            "at_ms": at_ms,
            "rx_packets": rx_packets,
            "rx_bytes": rx_bytes,
            "tx_packets": tx_packets,
            "tx_bytes": tx_bytes,
            "dropped": dropped,
            "drops": drops,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.booking_counters_drops import BookingCountersDrops # noqa: PLC0415
        d = dict(src_dict)
        node = d.pop("node")

        network = d.pop("network")

        at_ms = d.pop("at_ms")

        rx_packets = d.pop("rx_packets")

        rx_bytes = d.pop("rx_bytes")

        tx_packets = d.pop("tx_packets")

        tx_bytes = d.pop("tx_bytes")

        dropped = d.pop("dropped")

        drops = BookingCountersDrops.from_dict(d.pop("drops"))




        booking_counters = cls(
            node=node,
            network=network,
            at_ms=at_ms,
            rx_packets=rx_packets,
            rx_bytes=rx_bytes,
            tx_packets=tx_packets,
            tx_bytes=tx_bytes,
            dropped=dropped,
            drops=drops,
        )


        booking_counters.additional_properties = d
        return booking_counters

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.operation import Operation
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="ServiceLevel")



@_attrs_define
class ServiceLevel:
    """ A service level: allowed operations and quotas.

        Attributes:
            name (str):
            operations (list[Operation]):
            max_hw_networks (int): Networks in the hardware tier (one slot each).
            max_sw_networks (int):
            max_bandwidth_mbps (int): Total guaranteed bandwidth of the project's current bookings.
            max_lease_hours (int): Hours booked by the project's current bookings, added up (FABRIC's
                quotas in resource-hours).
            max_lease_s (int): The longest a lease may run from now (a renewal is clamped to it).
            default_lease_s (int):
            max_public_addresses (int | Unset): Public addresses the project holds at once (the gateway service).
            max_storage_bytes (int | Unset): Bytes the project's bucket holds at most (the storage service).
     """

    name: str
    operations: list[Operation]
    max_hw_networks: int
    max_sw_networks: int
    max_bandwidth_mbps: int
    max_lease_hours: int
    max_lease_s: int
    default_lease_s: int
    max_public_addresses: int | Unset = UNSET
    max_storage_bytes: int | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        name = self.name

        operations = []
        for operations_item_data in self.operations:
            operations_item = operations_item_data.value
            operations.append(operations_item)



        max_hw_networks = self.max_hw_networks

        max_sw_networks = self.max_sw_networks

        max_bandwidth_mbps = self.max_bandwidth_mbps

        max_lease_hours = self.max_lease_hours

        max_lease_s = self.max_lease_s

        default_lease_s = self.default_lease_s

        max_public_addresses = self.max_public_addresses

        max_storage_bytes = self.max_storage_bytes


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "name": name,
            "operations": operations,
            "max_hw_networks": max_hw_networks,
            "max_sw_networks": max_sw_networks,
            "max_bandwidth_mbps": max_bandwidth_mbps,
            "max_lease_hours": max_lease_hours,
            "max_lease_s": max_lease_s,
            "default_lease_s": default_lease_s,
        })
        if max_public_addresses is not UNSET:
            field_dict["max_public_addresses"] = max_public_addresses
        if max_storage_bytes is not UNSET:
            field_dict["max_storage_bytes"] = max_storage_bytes

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        name = d.pop("name")

        operations = []
        _operations = d.pop("operations")
        for operations_item_data in (_operations):
            operations_item = Operation(operations_item_data)



            operations.append(operations_item)


        max_hw_networks = d.pop("max_hw_networks")

        max_sw_networks = d.pop("max_sw_networks")

        max_bandwidth_mbps = d.pop("max_bandwidth_mbps")

        max_lease_hours = d.pop("max_lease_hours")

        max_lease_s = d.pop("max_lease_s")

        default_lease_s = d.pop("default_lease_s")

        max_public_addresses = d.pop("max_public_addresses", UNSET)

        max_storage_bytes = d.pop("max_storage_bytes", UNSET)

        service_level = cls(
            name=name,
            operations=operations,
            max_hw_networks=max_hw_networks,
            max_sw_networks=max_sw_networks,
            max_bandwidth_mbps=max_bandwidth_mbps,
            max_lease_hours=max_lease_hours,
            max_lease_s=max_lease_s,
            default_lease_s=default_lease_s,
            max_public_addresses=max_public_addresses,
            max_storage_bytes=max_storage_bytes,
        )

        return service_level


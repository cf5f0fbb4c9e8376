from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.part_request import PartRequest





T = TypeVar("T", bound="BookingRequest")



@_attrs_define
class BookingRequest:
    """ A booking request.

        Attributes:
            name (str): Unique among the project's current bookings.
            spec (Any): For a network: the fields of a network document without `name`;
                the controller adds its VLAN mapping and rate limit.
            bandwidth_mbps (int): The bandwidth to guarantee, Mbit/s (at least 1).
            type_ (str | Unset):
            lease_s (int | None | Unset): The lease's length in seconds (default: the service level's).
            provision (bool | Unset): Apply it to a node now (allocate and provision in one call).
            parts (list[PartRequest] | Unset): A network spanning nodes over the wide area: one part per node
                (docs/wan.md); none for a network on one node placed by the controller.
            nat (bool | Unset): The gateway service's outgoing NAT (docs/wan.md): the network's
                hosts reach the wide area from their node's WAN address, by a
                default route the controller adds unless the spec routes
                0.0.0.0/0 itself. Its node (each part's) needs a gateway: a WAN
                port with a router beyond it.
     """

    name: str
    spec: Any
    bandwidth_mbps: int
    type_: str | Unset = UNSET
    lease_s: int | None | Unset = UNSET
    provision: bool | Unset = UNSET
    parts: list[PartRequest] | Unset = UNSET
    nat: bool | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.part_request import PartRequest # noqa: PLC0415
        name = self.name

        spec = self.spec

        bandwidth_mbps = self.bandwidth_mbps

        type_ = self.type_

        lease_s: int | None | Unset
        if isinstance(self.lease_s, Unset):
            lease_s = UNSET
        else:
            lease_s = self.lease_s

        provision = self.provision

        parts: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.parts, Unset):
            parts = []
            for parts_item_data in self.parts:
                parts_item = parts_item_data.to_dict()
                parts.append(parts_item)



        nat = self.nat


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "name": name,
            "spec": spec,
            "bandwidth_mbps": bandwidth_mbps,
        })
        if type_ is not UNSET:
            field_dict["type"] = type_
        if lease_s is not UNSET:
            field_dict["lease_s"] = lease_s
        if provision is not UNSET:
            field_dict["provision"] = provision
        if parts is not UNSET:
            field_dict["parts"] = parts
        if nat is not UNSET:
            field_dict["nat"] = nat

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.part_request import PartRequest # noqa: PLC0415
        d = dict(src_dict)
        name = d.pop("name")

        spec = d.pop("spec")

        bandwidth_mbps = d.pop("bandwidth_mbps")

        type_ = d.pop("type", UNSET)

        def _parse_lease_s(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        lease_s = _parse_lease_s(d.pop("lease_s", UNSET))


        provision = d.pop("provision", UNSET)

        _parts = d.pop("parts", UNSET)
        parts: list[PartRequest] | Unset = UNSET
        if _parts is not UNSET:
            parts = []
            for parts_item_data in _parts:
                parts_item = PartRequest.from_dict(parts_item_data)



                parts.append(parts_item)


        nat = d.pop("nat", UNSET)

        booking_request = cls(
            name=name,
            spec=spec,
            bandwidth_mbps=bandwidth_mbps,
            type_=type_,
            lease_s=lease_s,
            provision=provision,
            parts=parts,
            nat=nat,
        )

        return booking_request


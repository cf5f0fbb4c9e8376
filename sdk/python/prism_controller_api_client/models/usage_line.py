from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="UsageLine")



@_attrs_define
class UsageLine:
    """ One line of a usage report: a user's bookings of one tier.

        Attributes:
            user (str):
            tier (str): `hardware`, `software`, or the resource type for other bookings.
            bookings (int):
            resource_hours (float): Hours provisioned, within the report's range.
            bandwidth_mbps_hours (float): Mbit/s × hours guaranteed, within the range.
     """

    user: str
    tier: str
    bookings: int
    resource_hours: float
    bandwidth_mbps_hours: float
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        user = self.user

        tier = self.tier

        bookings = self.bookings

        resource_hours = self.resource_hours

        bandwidth_mbps_hours = self.bandwidth_mbps_hours


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "user": user,
            "tier": tier,
            "bookings": bookings,
            "resource_hours": resource_hours,
            "bandwidth_mbps_hours": bandwidth_mbps_hours,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        user = d.pop("user")

        tier = d.pop("tier")

        bookings = d.pop("bookings")

        resource_hours = d.pop("resource_hours")

        bandwidth_mbps_hours = d.pop("bandwidth_mbps_hours")

        usage_line = cls(
            user=user,
            tier=tier,
            bookings=bookings,
            resource_hours=resource_hours,
            bandwidth_mbps_hours=bandwidth_mbps_hours,
        )


        usage_line.additional_properties = d
        return usage_line

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

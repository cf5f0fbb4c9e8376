from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.quota_use import QuotaUse





T = TypeVar("T", bound="QuotaView")



@_attrs_define
class QuotaView:
    """ 
        Attributes:
            service_level (str):
            hw_networks (QuotaUse): OpenStack's quota detail: in use (provisioned), held (allocated, not
                yet provisioned) and the limit.
            sw_networks (QuotaUse): OpenStack's quota detail: in use (provisioned), held (allocated, not
                yet provisioned) and the limit.
            bandwidth_mbps (QuotaUse): OpenStack's quota detail: in use (provisioned), held (allocated, not
                yet provisioned) and the limit.
            lease_hours (QuotaUse): OpenStack's quota detail: in use (provisioned), held (allocated, not
                yet provisioned) and the limit.
            public_addresses (QuotaUse): OpenStack's quota detail: in use (provisioned), held (allocated, not
                yet provisioned) and the limit.
     """

    service_level: str
    hw_networks: QuotaUse
    sw_networks: QuotaUse
    bandwidth_mbps: QuotaUse
    lease_hours: QuotaUse
    public_addresses: QuotaUse
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.quota_use import QuotaUse # noqa: PLC0415
        service_level = self.service_level

        hw_networks = self.hw_networks.to_dict()

        sw_networks = self.sw_networks.to_dict()

        bandwidth_mbps = self.bandwidth_mbps.to_dict()

        lease_hours = self.lease_hours.to_dict()

        public_addresses = self.public_addresses.to_dict()


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "service_level": service_level,
            "hw_networks": hw_networks,
            "sw_networks": sw_networks,
            "bandwidth_mbps": bandwidth_mbps,
            "lease_hours": lease_hours,
            "public_addresses": public_addresses,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.quota_use import QuotaUse # noqa: PLC0415
        d = dict(src_dict)
        service_level = d.pop("service_level")

        hw_networks = QuotaUse.from_dict(d.pop("hw_networks"))




        sw_networks = QuotaUse.from_dict(d.pop("sw_networks"))




        bandwidth_mbps = QuotaUse.from_dict(d.pop("bandwidth_mbps"))




        lease_hours = QuotaUse.from_dict(d.pop("lease_hours"))




        public_addresses = QuotaUse.from_dict(d.pop("public_addresses"))




        quota_view = cls(
            service_level=service_level,
            hw_networks=hw_networks,
            sw_networks=sw_networks,
            bandwidth_mbps=bandwidth_mbps,
            lease_hours=lease_hours,
            public_addresses=public_addresses,
        )


        quota_view.additional_properties = d
        return quota_view

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

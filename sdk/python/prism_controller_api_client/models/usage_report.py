from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.usage_line import UsageLine





T = TypeVar("T", bound="UsageReport")



@_attrs_define
class UsageReport:
    """ 
        Attributes:
            project (str):
            from_ms (int):
            to_ms (int):
            lines (list[UsageLine]):
            total_resource_hours (float):
            total_bandwidth_mbps_hours (float):
            storage_byte_hours (float | Unset): The project's bucket on the storage service: bytes held over the
                period, in byte-hours (the integral of its size).
     """

    project: str
    from_ms: int
    to_ms: int
    lines: list[UsageLine]
    total_resource_hours: float
    total_bandwidth_mbps_hours: float
    storage_byte_hours: float | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.usage_line import UsageLine # noqa: PLC0415
        project = self.project

        from_ms = self.from_ms

        to_ms = self.to_ms

        lines = []
        for lines_item_data in self.lines:
            lines_item = lines_item_data.to_dict()
            lines.append(lines_item)



        total_resource_hours = self.total_resource_hours

        total_bandwidth_mbps_hours = self.total_bandwidth_mbps_hours

        storage_byte_hours = self.storage_byte_hours


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "project": project,
            "from_ms": from_ms,
            "to_ms": to_ms,
            "lines": lines,
            "total_resource_hours": total_resource_hours,
            "total_bandwidth_mbps_hours": total_bandwidth_mbps_hours,
        })
        if storage_byte_hours is not UNSET:
            field_dict["storage_byte_hours"] = storage_byte_hours

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.usage_line import UsageLine # noqa: PLC0415
        d = dict(src_dict)
        project = d.pop("project")

        from_ms = d.pop("from_ms")

        to_ms = d.pop("to_ms")

        lines = []
        _lines = d.pop("lines")
        for lines_item_data in (_lines):
            lines_item = UsageLine.from_dict(lines_item_data)



            lines.append(lines_item)


        total_resource_hours = d.pop("total_resource_hours")

        total_bandwidth_mbps_hours = d.pop("total_bandwidth_mbps_hours")

        storage_byte_hours = d.pop("storage_byte_hours", UNSET)

        usage_report = cls(
            project=project,
            from_ms=from_ms,
            to_ms=to_ms,
            lines=lines,
            total_resource_hours=total_resource_hours,
            total_bandwidth_mbps_hours=total_bandwidth_mbps_hours,
            storage_byte_hours=storage_byte_hours,
        )


        usage_report.additional_properties = d
        return usage_report

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

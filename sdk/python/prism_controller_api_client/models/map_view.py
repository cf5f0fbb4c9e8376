from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.map_entry import MapEntry





T = TypeVar("T", bound="MapView")



@_attrs_define
class MapView:
    """ A map of a network's program and every entry it holds.

        Attributes:
            network (str):
            map_ (str):
            kind (str): `array` or `hash`.
            key_size (int):
            value_size (int):
            max_entries (int):
            entries (list[MapEntry]): An array's every element; a hash table's entries, in no order.
     """

    network: str
    map_: str
    kind: str
    key_size: int
    value_size: int
    max_entries: int
    entries: list[MapEntry]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.map_entry import MapEntry # noqa: PLC0415
        network = self.network

        map_ = self.map_

        kind = self.kind

        key_size = self.key_size

        value_size = self.value_size

        max_entries = self.max_entries

        entries = []
        for entries_item_data in self.entries:
            entries_item = entries_item_data.to_dict()
            entries.append(entries_item)




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "network": network,
            "map": map_,
            "kind": kind,
            "key_size": key_size,
            "value_size": value_size,
            "max_entries": max_entries,
            "entries": entries,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.map_entry import MapEntry # noqa: PLC0415
        d = dict(src_dict)
        network = d.pop("network")

        map_ = d.pop("map")

        kind = d.pop("kind")

        key_size = d.pop("key_size")

        value_size = d.pop("value_size")

        max_entries = d.pop("max_entries")

        entries = []
        _entries = d.pop("entries")
        for entries_item_data in (_entries):
            entries_item = MapEntry.from_dict(entries_item_data)



            entries.append(entries_item)


        map_view = cls(
            network=network,
            map_=map_,
            kind=kind,
            key_size=key_size,
            value_size=value_size,
            max_entries=max_entries,
            entries=entries,
        )


        map_view.additional_properties = d
        return map_view

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

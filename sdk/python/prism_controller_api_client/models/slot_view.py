from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="SlotView")



@_attrs_define
class SlotView:
    """ One slot (region) of a node's device.

        Attributes:
            slot (int):
            state (str): `active` (a network's module), `loading` (a module being loaded:
                a reconfiguration started and not yet done), `gated` (a module no
                network uses, clock-gated) or `blank`.
            mw (float): The region's power, mW (the device profile's model).
            network (None | str | Unset): The network in it, by its name on the node.
            booking (None | str | Unset): The booking and project of that network, when the controller booked it.
            project (None | str | Unset):
            module (None | str | Unset): The module: the network's forwarding (`destination`, `rules`, …).
     """

    slot: int
    state: str
    mw: float
    network: None | str | Unset = UNSET
    booking: None | str | Unset = UNSET
    project: None | str | Unset = UNSET
    module: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        slot = self.slot

        state = self.state

        mw = self.mw

        network: None | str | Unset
        if isinstance(self.network, Unset):
            network = UNSET
        else:
            network = self.network

        booking: None | str | Unset
        if isinstance(self.booking, Unset):
            booking = UNSET
        else:
            booking = self.booking

        project: None | str | Unset
        if isinstance(self.project, Unset):
            project = UNSET
        else:
            project = self.project

        module: None | str | Unset
        if isinstance(self.module, Unset):
            module = UNSET
        else:
            module = self.module


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "slot": slot,
            "state": state,
            "mw": mw,
        })
        if network is not UNSET:
            field_dict["network"] = network
        if booking is not UNSET:
            field_dict["booking"] = booking
        if project is not UNSET:
            field_dict["project"] = project
        if module is not UNSET:
            field_dict["module"] = module

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        slot = d.pop("slot")

        state = d.pop("state")

        mw = d.pop("mw")

        def _parse_network(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        network = _parse_network(d.pop("network", UNSET))


        def _parse_booking(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        booking = _parse_booking(d.pop("booking", UNSET))


        def _parse_project(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        project = _parse_project(d.pop("project", UNSET))


        def _parse_module(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        module = _parse_module(d.pop("module", UNSET))


        slot_view = cls(
            slot=slot,
            state=state,
            mw=mw,
            network=network,
            booking=booking,
            project=project,
            module=module,
        )


        slot_view.additional_properties = d
        return slot_view

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

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="HeartbeatAnswer")



@_attrs_define
class HeartbeatAnswer:
    """ 
        Attributes:
            node_id (str):
            registered (bool): Registered by this heartbeat.
            generation (int): The node's desired state's generation, and the last it reached.
            applied_generation (int):
            every_ms (int): When to send the next heartbeat.
     """

    node_id: str
    registered: bool
    generation: int
    applied_generation: int
    every_ms: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        node_id = self.node_id

        registered = self.registered

        generation = self.generation

        applied_generation = self.applied_generation

        every_ms = self.every_ms


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "node_id": node_id,
            "registered": registered,
            "generation": generation,
            "applied_generation": applied_generation,
            "every_ms": every_ms,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        node_id = d.pop("node_id")

        registered = d.pop("registered")

        generation = d.pop("generation")

        applied_generation = d.pop("applied_generation")

        every_ms = d.pop("every_ms")

        heartbeat_answer = cls(
            node_id=node_id,
            registered=registered,
            generation=generation,
            applied_generation=applied_generation,
            every_ms=every_ms,
        )


        heartbeat_answer.additional_properties = d
        return heartbeat_answer

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

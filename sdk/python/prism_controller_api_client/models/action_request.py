from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.action import Action






T = TypeVar("T", bound="ActionRequest")



@_attrs_define
class ActionRequest:
    """ 
        Attributes:
            action (Action): An operational action (GENI's PerformOperationalAction).
     """

    action: Action





    def to_dict(self) -> dict[str, Any]:
        action = self.action.value


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "action": action,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        action = Action(d.pop("action"))




        action_request = cls(
            action=action,
        )

        return action_request


from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.action_doc import ActionDoc





T = TypeVar("T", bound="RouteDoc")



@_attrs_define
class RouteDoc:
    """ A route: one `prefix` (destination and source modes) or `src` and `dst`
    prefixes (flow mode), and its action.

        Attributes:
            action (ActionDoc): An action result: where the packet goes and what is done to it.
            prefix (None | str | Unset):
            src (None | str | Unset):
            dst (None | str | Unset):
     """

    action: ActionDoc
    prefix: None | str | Unset = UNSET
    src: None | str | Unset = UNSET
    dst: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.action_doc import ActionDoc # noqa: PLC0415
        action = self.action.to_dict()

        prefix: None | str | Unset
        if isinstance(self.prefix, Unset):
            prefix = UNSET
        else:
            prefix = self.prefix

        src: None | str | Unset
        if isinstance(self.src, Unset):
            src = UNSET
        else:
            src = self.src

        dst: None | str | Unset
        if isinstance(self.dst, Unset):
            dst = UNSET
        else:
            dst = self.dst


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "action": action,
        })
        if prefix is not UNSET:
            field_dict["prefix"] = prefix
        if src is not UNSET:
            field_dict["src"] = src
        if dst is not UNSET:
            field_dict["dst"] = dst

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.action_doc import ActionDoc # noqa: PLC0415
        d = dict(src_dict)
        action = ActionDoc.from_dict(d.pop("action"))




        def _parse_prefix(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        prefix = _parse_prefix(d.pop("prefix", UNSET))


        def _parse_src(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        src = _parse_src(d.pop("src", UNSET))


        def _parse_dst(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        dst = _parse_dst(d.pop("dst", UNSET))


        route_doc = cls(
            action=action,
            prefix=prefix,
            src=src,
            dst=dst,
        )

        return route_doc


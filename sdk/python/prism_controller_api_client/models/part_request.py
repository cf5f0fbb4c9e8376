from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.route_doc import RouteDoc





T = TypeVar("T", bound="PartRequest")



@_attrs_define
class PartRequest:
    """ A part of a network that spans nodes, as asked.

        Attributes:
            node (str): The node's name.
            route (list[RouteDoc]): The part's own routes (the network document's `route` entries):
                their prefixes are what the other parts send to this one.
     """

    node: str
    route: list[RouteDoc]





    def to_dict(self) -> dict[str, Any]:
        from ..models.route_doc import RouteDoc # noqa: PLC0415
        node = self.node

        route = []
        for route_item_data in self.route:
            route_item = route_item_data.to_dict()
            route.append(route_item)




        field_dict: dict[str, Any] = {}

        field_dict.update({
            "node": node,
            "route": route,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.route_doc import RouteDoc # noqa: PLC0415
        d = dict(src_dict)
        node = d.pop("node")

        route = []
        _route = d.pop("route")
        for route_item_data in (_route):
            route_item = RouteDoc.from_dict(route_item_data)



            route.append(route_item)


        part_request = cls(
            node=node,
            route=route,
        )

        return part_request


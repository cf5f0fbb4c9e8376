from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.route_doc import RouteDoc





T = TypeVar("T", bound="PartRequest")



@_attrs_define
class PartRequest:
    """ A part of a network that spans nodes, as asked.

        Attributes:
            node (str | Unset): The node's name; absent (or empty): the controller chooses one, up,
                with a WAN port and room, named by no other part, the least loaded
                first.
            route (list[RouteDoc] | Unset): The part's own routes (the network document's `route` entries):
                their prefixes are what the other parts send to this one. None for
                a bridged network (`forwarding = "bridge"`).
            port (None | str | Unset): A bridged network's port on the node for its frames (default: the
                node's first port that is not its WAN port).
     """

    node: str | Unset = UNSET
    route: list[RouteDoc] | Unset = UNSET
    port: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.route_doc import RouteDoc # noqa: PLC0415
        node = self.node

        route: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.route, Unset):
            route = []
            for route_item_data in self.route:
                route_item = route_item_data.to_dict()
                route.append(route_item)



        port: None | str | Unset
        if isinstance(self.port, Unset):
            port = UNSET
        else:
            port = self.port


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if node is not UNSET:
            field_dict["node"] = node
        if route is not UNSET:
            field_dict["route"] = route
        if port is not UNSET:
            field_dict["port"] = port

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.route_doc import RouteDoc # noqa: PLC0415
        d = dict(src_dict)
        node = d.pop("node", UNSET)

        _route = d.pop("route", UNSET)
        route: list[RouteDoc] | Unset = UNSET
        if _route is not UNSET:
            route = []
            for route_item_data in _route:
                route_item = RouteDoc.from_dict(route_item_data)



                route.append(route_item)


        def _parse_port(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        port = _parse_port(d.pop("port", UNSET))


        part_request = cls(
            node=node,
            route=route,
            port=port,
        )

        return part_request


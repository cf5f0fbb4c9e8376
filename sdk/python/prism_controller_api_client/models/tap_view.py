from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.tap_point import TapPoint
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.stage_decision import StageDecision





T = TypeVar("T", bound="TapView")



@_attrs_define
class TapView:
    """ One packet seen by a trace or capture.

        Attributes:
            point (TapPoint): Where a record was taken.
            timestamp_ns (int): Unix time, ns.
            port (str): The port's name: input at ingress, output at egress.
            len_ (int): Length on the wire.
            network (None | str | Unset):
            data (str | Unset): The frame as hex (a capture), at most the snap length.
            stages (list[StageDecision] | Unset): Each stage's decision (ingress).
     """

    point: TapPoint
    timestamp_ns: int
    port: str
    len_: int
    network: None | str | Unset = UNSET
    data: str | Unset = UNSET
    stages: list[StageDecision] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.stage_decision import StageDecision # noqa: PLC0415
        point = self.point.value

        timestamp_ns = self.timestamp_ns

        port = self.port

        len_ = self.len_

        network: None | str | Unset
        if isinstance(self.network, Unset):
            network = UNSET
        else:
            network = self.network

        data = self.data

        stages: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.stages, Unset):
            stages = []
            for stages_item_data in self.stages:
                stages_item = stages_item_data.to_dict()
                stages.append(stages_item)




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "point": point,
            "timestamp_ns": timestamp_ns,
            "port": port,
            "len": len_,
        })
        if network is not UNSET:
            field_dict["network"] = network
        if data is not UNSET:
            field_dict["data"] = data
        if stages is not UNSET:
            field_dict["stages"] = stages

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.stage_decision import StageDecision # noqa: PLC0415
        d = dict(src_dict)
        point = TapPoint(d.pop("point"))




        timestamp_ns = d.pop("timestamp_ns")

        port = d.pop("port")

        len_ = d.pop("len")

        def _parse_network(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        network = _parse_network(d.pop("network", UNSET))


        data = d.pop("data", UNSET)

        _stages = d.pop("stages", UNSET)
        stages: list[StageDecision] | Unset = UNSET
        if _stages is not UNSET:
            stages = []
            for stages_item_data in _stages:
                stages_item = StageDecision.from_dict(stages_item_data)



                stages.append(stages_item)


        tap_view = cls(
            point=point,
            timestamp_ns=timestamp_ns,
            port=port,
            len_=len_,
            network=network,
            data=data,
            stages=stages,
        )


        tap_view.additional_properties = d
        return tap_view

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

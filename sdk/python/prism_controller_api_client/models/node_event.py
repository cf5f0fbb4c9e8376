from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.event_kind import EventKind
from ..models.strategy_name import StrategyName
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="NodeEvent")



@_attrs_define
class NodeEvent:
    """ One entry of the node's event log.

        Attributes:
            seq (int): Increasing from 1 since the node started.
            unix_ms (int): Unix time, ms.
            kind (EventKind): What an event is about.
            network (str):
            message (str):
            strategy (None | StrategyName | Unset):
            modelled_ms (float | None | Unset): The device model's time for the reconfiguration (a model: Prism runs
                no FPGA): the slot's load, or the whole device's.
            measured_ms (float | None | Unset): Measured on this node: from the call to the network forwarding in
                hardware on its new module (router starts and moves included).
     """

    seq: int
    unix_ms: int
    kind: EventKind
    network: str
    message: str
    strategy: None | StrategyName | Unset = UNSET
    modelled_ms: float | None | Unset = UNSET
    measured_ms: float | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        seq = self.seq

        unix_ms = self.unix_ms

        kind = self.kind.value

        network = self.network

        message = self.message

        strategy: None | str | Unset
        if isinstance(self.strategy, Unset):
            strategy = UNSET
        elif isinstance(self.strategy, StrategyName):
            strategy = self.strategy.value
        else:
            strategy = self.strategy

        modelled_ms: float | None | Unset
        if isinstance(self.modelled_ms, Unset):
            modelled_ms = UNSET
        else:
            modelled_ms = self.modelled_ms

        measured_ms: float | None | Unset
        if isinstance(self.measured_ms, Unset):
            measured_ms = UNSET
        else:
            measured_ms = self.measured_ms


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "seq": seq,
            "unix_ms": unix_ms,
            "kind": kind,
            "network": network,
            "message": message,
        })
        if strategy is not UNSET:
            field_dict["strategy"] = strategy
        if modelled_ms is not UNSET:
            field_dict["modelled_ms"] = modelled_ms
        if measured_ms is not UNSET:
            field_dict["measured_ms"] = measured_ms

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        seq = d.pop("seq")

        unix_ms = d.pop("unix_ms")

        kind = EventKind(d.pop("kind"))




        network = d.pop("network")

        message = d.pop("message")

        def _parse_strategy(data: object) -> None | StrategyName | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                strategy_type_1 = StrategyName(data)



                return strategy_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | StrategyName | Unset, data)

        strategy = _parse_strategy(d.pop("strategy", UNSET))


        def _parse_modelled_ms(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        modelled_ms = _parse_modelled_ms(d.pop("modelled_ms", UNSET))


        def _parse_measured_ms(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        measured_ms = _parse_measured_ms(d.pop("measured_ms", UNSET))


        node_event = cls(
            seq=seq,
            unix_ms=unix_ms,
            kind=kind,
            network=network,
            message=message,
            strategy=strategy,
            modelled_ms=modelled_ms,
            measured_ms=measured_ms,
        )


        node_event.additional_properties = d
        return node_event

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

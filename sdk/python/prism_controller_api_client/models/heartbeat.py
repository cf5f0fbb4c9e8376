from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.node_info import NodeInfo





T = TypeVar("T", bound="Heartbeat")



@_attrs_define
class Heartbeat:
    """ What a node says of itself, every `every_ms`.

        Attributes:
            name (str): Its name: the one its key was made for.
            address (str): Where the controller reaches its API (`host:port` of
                `prism node --api-listen`).
            boot_id (str): Changes when the node's process restarts.
            info (NodeInfo): The node: device profile, ports, I/O, workers.
            hw_mbps (int | None | Unset): Aggregate bandwidth of its tiers, Mbit/s; unchanged when absent
                (1000 and 100 for a new node, paper 000's figures).
            sw_mbps (int | None | Unset):
            csr (None | str | Unset): A certificate request (PEM) for this node's name, when the node
                has no certificate or two thirds of its life are gone: the answer
                carries the certificate (docs/deploy.md, node identities).
     """

    name: str
    address: str
    boot_id: str
    info: NodeInfo
    hw_mbps: int | None | Unset = UNSET
    sw_mbps: int | None | Unset = UNSET
    csr: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.node_info import NodeInfo # noqa: PLC0415
        name = self.name

        address = self.address

        boot_id = self.boot_id

        info = self.info.to_dict()

        hw_mbps: int | None | Unset
        if isinstance(self.hw_mbps, Unset):
            hw_mbps = UNSET
        else:
            hw_mbps = self.hw_mbps

        sw_mbps: int | None | Unset
        if isinstance(self.sw_mbps, Unset):
            sw_mbps = UNSET
        else:
            sw_mbps = self.sw_mbps

        csr: None | str | Unset
        if isinstance(self.csr, Unset):
            csr = UNSET
        else:
            csr = self.csr


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "name": name,
            "address": address,
            "boot_id": boot_id,
            "info": info,
        })
        if hw_mbps is not UNSET:
            field_dict["hw_mbps"] = hw_mbps
        if sw_mbps is not UNSET:
            field_dict["sw_mbps"] = sw_mbps
        if csr is not UNSET:
            field_dict["csr"] = csr

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.node_info import NodeInfo # noqa: PLC0415
        d = dict(src_dict)
        name = d.pop("name")

        address = d.pop("address")

        boot_id = d.pop("boot_id")

        info = NodeInfo.from_dict(d.pop("info"))




        def _parse_hw_mbps(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        hw_mbps = _parse_hw_mbps(d.pop("hw_mbps", UNSET))


        def _parse_sw_mbps(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        sw_mbps = _parse_sw_mbps(d.pop("sw_mbps", UNSET))


        def _parse_csr(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        csr = _parse_csr(d.pop("csr", UNSET))


        heartbeat = cls(
            name=name,
            address=address,
            boot_id=boot_id,
            info=info,
            hw_mbps=hw_mbps,
            sw_mbps=sw_mbps,
            csr=csr,
        )

        return heartbeat


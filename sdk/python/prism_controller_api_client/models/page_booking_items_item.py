from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.allocation_state import AllocationState
from ..models.operational_state import OperationalState
from ..models.tier import Tier
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.part_view import PartView





T = TypeVar("T", bound="PageBookingItemsItem")



@_attrs_define
class PageBookingItemsItem:
    """ A booking: a lease on a resource, with a UUID.

        Attributes:
            id (str):
            project (str):
            user (str): The user who booked it.
            name (str):
            type_ (str): A registered resource type (`network`).
            allocation_state (AllocationState): GENI AM API v3's allocation states.
            operational_state (OperationalState): GENI AM API v3's operational states.
            bandwidth_mbps (int): The guaranteed bandwidth, enforced as the node's rate limit.
            created_ms (int): Unix ms.
            expires_ms (int): The lease's end (Unix ms); an allocated booking's hold ends earlier.
            spec (Any): The resource's parameters (for a network, its document as asked).
            error (None | str | Unset):
            tier (None | Tier | Unset):
            node (None | str | Unset):
            node_network (None | str | Unset): The network's name on its node.
            vlan (int | None | Unset): The project's VLAN that maps packets to this network.
            provisioned_ms (int | None | Unset):
            released_ms (int | None | Unset):
            generation (int | Unset): Its generation: 1 as booked, one more for each change accepted
                (`PATCH`; the history at `…/changes`).
            parts (list[PartView] | Unset): A network spanning nodes: its parts (`node` is the first part's).
            s_tag (int | None | Unset): A bridged network's S-tag on the wide area (802.1ad), unique.
            nat (bool | Unset): Outgoing NAT through its node's gateway.
            converging (bool | Unset): A change to it (provision, start, stop, release, expiry) is not yet
                taken by its node(s): a released network may still be on its node
                (the node's `last_error` says why); the controller converges the
                node in the background.
            ssh (None | str | Unset): A processing node's ssh, through its node (`host:port`;
                `prism ctl ssh BOOKING`), as its node last reported it.
            host_keys (list[str] | Unset): A processing node's own host keys (`ssh-ed25519 AAAA…`): the first
                connection checks them.
     """

    id: str
    project: str
    user: str
    name: str
    type_: str
    allocation_state: AllocationState
    operational_state: OperationalState
    bandwidth_mbps: int
    created_ms: int
    expires_ms: int
    spec: Any
    error: None | str | Unset = UNSET
    tier: None | Tier | Unset = UNSET
    node: None | str | Unset = UNSET
    node_network: None | str | Unset = UNSET
    vlan: int | None | Unset = UNSET
    provisioned_ms: int | None | Unset = UNSET
    released_ms: int | None | Unset = UNSET
    generation: int | Unset = UNSET
    parts: list[PartView] | Unset = UNSET
    s_tag: int | None | Unset = UNSET
    nat: bool | Unset = UNSET
    converging: bool | Unset = UNSET
    ssh: None | str | Unset = UNSET
    host_keys: list[str] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.part_view import PartView # noqa: PLC0415
        id = self.id

        project = self.project

        user = self.user

        name = self.name

        type_ = self.type_

        allocation_state = self.allocation_state.value

        operational_state = self.operational_state.value

        bandwidth_mbps = self.bandwidth_mbps

        created_ms = self.created_ms

        expires_ms = self.expires_ms

        spec = self.spec

        error: None | str | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        else:
            error = self.error

        tier: None | str | Unset
        if isinstance(self.tier, Unset):
            tier = UNSET
        elif isinstance(self.tier, Tier):
            tier = self.tier.value
        else:
            tier = self.tier

        node: None | str | Unset
        if isinstance(self.node, Unset):
            node = UNSET
        else:
            node = self.node

        node_network: None | str | Unset
        if isinstance(self.node_network, Unset):
            node_network = UNSET
        else:
            node_network = self.node_network

        vlan: int | None | Unset
        if isinstance(self.vlan, Unset):
            vlan = UNSET
        else:
            vlan = self.vlan

        provisioned_ms: int | None | Unset
        if isinstance(self.provisioned_ms, Unset):
            provisioned_ms = UNSET
        else:
            provisioned_ms = self.provisioned_ms

        released_ms: int | None | Unset
        if isinstance(self.released_ms, Unset):
            released_ms = UNSET
        else:
            released_ms = self.released_ms

        generation = self.generation

        parts: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.parts, Unset):
            parts = []
            for parts_item_data in self.parts:
                parts_item = parts_item_data.to_dict()
                parts.append(parts_item)



        s_tag: int | None | Unset
        if isinstance(self.s_tag, Unset):
            s_tag = UNSET
        else:
            s_tag = self.s_tag

        nat = self.nat

        converging = self.converging

        ssh: None | str | Unset
        if isinstance(self.ssh, Unset):
            ssh = UNSET
        else:
            ssh = self.ssh

        host_keys: list[str] | Unset = UNSET
        if not isinstance(self.host_keys, Unset):
            host_keys = self.host_keys




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "id": id,
            "project": project,
            "user": user,
            "name": name,
            "type": type_,
            "allocation_state": allocation_state,
            "operational_state": operational_state,
            "bandwidth_mbps": bandwidth_mbps,
            "created_ms": created_ms,
            "expires_ms": expires_ms,
            "spec": spec,
        })
        if error is not UNSET:
            field_dict["error"] = error
        if tier is not UNSET:
            field_dict["tier"] = tier
        if node is not UNSET:
            field_dict["node"] = node
        if node_network is not UNSET:
            field_dict["node_network"] = node_network
        if vlan is not UNSET:
            field_dict["vlan"] = vlan
        if provisioned_ms is not UNSET:
            field_dict["provisioned_ms"] = provisioned_ms
        if released_ms is not UNSET:
            field_dict["released_ms"] = released_ms
        if generation is not UNSET:
            field_dict["generation"] = generation
        if parts is not UNSET:
            field_dict["parts"] = parts
        if s_tag is not UNSET:
            field_dict["s_tag"] = s_tag
        if nat is not UNSET:
            field_dict["nat"] = nat
        if converging is not UNSET:
            field_dict["converging"] = converging
        if ssh is not UNSET:
            field_dict["ssh"] = ssh
        if host_keys is not UNSET:
            field_dict["host_keys"] = host_keys

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.part_view import PartView # noqa: PLC0415
        d = dict(src_dict)
        id = d.pop("id")

        project = d.pop("project")

        user = d.pop("user")

        name = d.pop("name")

        type_ = d.pop("type")

        allocation_state = AllocationState(d.pop("allocation_state"))




        operational_state = OperationalState(d.pop("operational_state"))




        bandwidth_mbps = d.pop("bandwidth_mbps")

        created_ms = d.pop("created_ms")

        expires_ms = d.pop("expires_ms")

        spec = d.pop("spec")

        def _parse_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        error = _parse_error(d.pop("error", UNSET))


        def _parse_tier(data: object) -> None | Tier | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                tier_type_1 = Tier(data)



                return tier_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Tier | Unset, data)

        tier = _parse_tier(d.pop("tier", UNSET))


        def _parse_node(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        node = _parse_node(d.pop("node", UNSET))


        def _parse_node_network(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        node_network = _parse_node_network(d.pop("node_network", UNSET))


        def _parse_vlan(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        vlan = _parse_vlan(d.pop("vlan", UNSET))


        def _parse_provisioned_ms(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        provisioned_ms = _parse_provisioned_ms(d.pop("provisioned_ms", UNSET))


        def _parse_released_ms(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        released_ms = _parse_released_ms(d.pop("released_ms", UNSET))


        generation = d.pop("generation", UNSET)

        _parts = d.pop("parts", UNSET)
        parts: list[PartView] | Unset = UNSET
        if _parts is not UNSET:
            parts = []
            for parts_item_data in _parts:
                parts_item = PartView.from_dict(parts_item_data)



                parts.append(parts_item)


        def _parse_s_tag(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        s_tag = _parse_s_tag(d.pop("s_tag", UNSET))


        nat = d.pop("nat", UNSET)

        converging = d.pop("converging", UNSET)

        def _parse_ssh(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        ssh = _parse_ssh(d.pop("ssh", UNSET))


        host_keys = cast(list[str], d.pop("host_keys", UNSET))


        page_booking_items_item = cls(
            id=id,
            project=project,
            user=user,
            name=name,
            type_=type_,
            allocation_state=allocation_state,
            operational_state=operational_state,
            bandwidth_mbps=bandwidth_mbps,
            created_ms=created_ms,
            expires_ms=expires_ms,
            spec=spec,
            error=error,
            tier=tier,
            node=node,
            node_network=node_network,
            vlan=vlan,
            provisioned_ms=provisioned_ms,
            released_ms=released_ms,
            generation=generation,
            parts=parts,
            s_tag=s_tag,
            nat=nat,
            converging=converging,
            ssh=ssh,
            host_keys=host_keys,
        )


        page_booking_items_item.additional_properties = d
        return page_booking_items_item

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

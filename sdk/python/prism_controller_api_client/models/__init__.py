""" Contains all the data models used in inputs/outputs """

from .action import Action
from .action_doc import ActionDoc
from .action_request import ActionRequest
from .allocation_state import AllocationState
from .api_key_request import ApiKeyRequest
from .api_key_view import ApiKeyView
from .audit_entry import AuditEntry
from .booking import Booking
from .booking_change import BookingChange
from .booking_change_spec_type_0 import BookingChangeSpecType0
from .booking_change_view import BookingChangeView
from .booking_change_view_after import BookingChangeViewAfter
from .booking_change_view_before import BookingChangeViewBefore
from .booking_changed import BookingChanged
from .booking_counters import BookingCounters
from .booking_counters_drops import BookingCountersDrops
from .booking_request import BookingRequest
from .capture_request import CaptureRequest
from .cipher_doc import CipherDoc
from .cipher_name import CipherName
from .controller_cert_view import ControllerCertView
from .endpoints import Endpoints
from .error import Error
from .error_code import ErrorCode
from .event_kind import EventKind
from .generic_op import GenericOp
from .heartbeat import Heartbeat
from .heartbeat_answer import HeartbeatAnswer
from .image_view import ImageView
from .login_request import LoginRequest
from .map_entry import MapEntry
from .map_view import MapView
from .map_write import MapWrite
from .member_request import MemberRequest
from .member_view import MemberView
from .node_certificate import NodeCertificate
from .node_event import NodeEvent
from .node_hardware import NodeHardware
from .node_info import NodeInfo
from .node_key_request import NodeKeyRequest
from .node_key_view import NodeKeyView
from .node_request import NodeRequest
from .node_view import NodeView
from .operation import Operation
from .operational_state import OperationalState
from .page_audit_entry import PageAuditEntry
from .page_audit_entry_items_item import PageAuditEntryItemsItem
from .page_booking import PageBooking
from .page_booking_items_item import PageBookingItemsItem
from .part_request import PartRequest
from .part_view import PartView
from .presign_request import PresignRequest
from .presigned_url import PresignedUrl
from .project_request import ProjectRequest
from .project_view import ProjectView
from .public_address import PublicAddress
from .public_address_request import PublicAddressRequest
from .quota_detail import QuotaDetail
from .quota_use import QuotaUse
from .quota_view import QuotaView
from .renew_request import RenewRequest
from .renewed import Renewed
from .resource_type import ResourceType
from .role import Role
from .route_doc import RouteDoc
from .save_image_request import SaveImageRequest
from .service_level import ServiceLevel
from .shared_vlan_view import SharedVlanView
from .slot_view import SlotView
from .slots_info import SlotsInfo
from .ssh_key_request import SshKeyRequest
from .ssh_key_view import SshKeyView
from .stage_decision import StageDecision
from .storage_key_view import StorageKeyView
from .storage_view import StorageView
from .strategy_name import StrategyName
from .tap_answer import TapAnswer
from .tap_point import TapPoint
from .tap_view import TapView
from .tier import Tier
from .token_view import TokenView
from .trace_request import TraceRequest
from .url_method import UrlMethod
from .usage_line import UsageLine
from .usage_report import UsageReport
from .user_request import UserRequest
from .user_view import UserView
from .vlan_member import VlanMember
from .wan_info import WanInfo
from .who_am_i import WhoAmI

__all__ = (
    "Action",
    "ActionDoc",
    "ActionRequest",
    "AllocationState",
    "ApiKeyRequest",
    "ApiKeyView",
    "AuditEntry",
    "Booking",
    "BookingChange",
    "BookingChanged",
    "BookingChangeSpecType0",
    "BookingChangeView",
    "BookingChangeViewAfter",
    "BookingChangeViewBefore",
    "BookingCounters",
    "BookingCountersDrops",
    "BookingRequest",
    "CaptureRequest",
    "CipherDoc",
    "CipherName",
    "ControllerCertView",
    "Endpoints",
    "Error",
    "ErrorCode",
    "EventKind",
    "GenericOp",
    "Heartbeat",
    "HeartbeatAnswer",
    "ImageView",
    "LoginRequest",
    "MapEntry",
    "MapView",
    "MapWrite",
    "MemberRequest",
    "MemberView",
    "NodeCertificate",
    "NodeEvent",
    "NodeHardware",
    "NodeInfo",
    "NodeKeyRequest",
    "NodeKeyView",
    "NodeRequest",
    "NodeView",
    "Operation",
    "OperationalState",
    "PageAuditEntry",
    "PageAuditEntryItemsItem",
    "PageBooking",
    "PageBookingItemsItem",
    "PartRequest",
    "PartView",
    "PresignedUrl",
    "PresignRequest",
    "ProjectRequest",
    "ProjectView",
    "PublicAddress",
    "PublicAddressRequest",
    "QuotaDetail",
    "QuotaUse",
    "QuotaView",
    "Renewed",
    "RenewRequest",
    "ResourceType",
    "Role",
    "RouteDoc",
    "SaveImageRequest",
    "ServiceLevel",
    "SharedVlanView",
    "SlotsInfo",
    "SlotView",
    "SshKeyRequest",
    "SshKeyView",
    "StageDecision",
    "StorageKeyView",
    "StorageView",
    "StrategyName",
    "TapAnswer",
    "TapPoint",
    "TapView",
    "Tier",
    "TokenView",
    "TraceRequest",
    "UrlMethod",
    "UsageLine",
    "UsageReport",
    "UserRequest",
    "UserView",
    "VlanMember",
    "WanInfo",
    "WhoAmI",
)

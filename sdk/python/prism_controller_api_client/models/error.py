from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.error_code import ErrorCode
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.quota_detail import QuotaDetail





T = TypeVar("T", bound="Error")



@_attrs_define
class Error:
    """ Every error the controller answers has this body.

        Attributes:
            code (ErrorCode): What kind of error: stable across versions; clients branch on it.
            message (str):
            field (None | str | Unset): The field of the request concerned (`spec.route[0].action.port`).
            quota (None | QuotaDetail | Unset):
            retry_after_s (int | None | Unset): For `rate_limited`: seconds until a retry may succeed (also the
                `Retry-After` header).
            detail (None | str | Unset): Text too long for `message` that the caller needs to act on: for a
                program the kernel's verifier refused, its whole log (the
                instructions it walked, each register's state, the reason last).
     """

    code: ErrorCode
    message: str
    field: None | str | Unset = UNSET
    quota: None | QuotaDetail | Unset = UNSET
    retry_after_s: int | None | Unset = UNSET
    detail: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.quota_detail import QuotaDetail # noqa: PLC0415
        code = self.code.value

        message = self.message

        field: None | str | Unset
        if isinstance(self.field, Unset):
            field = UNSET
        else:
            field = self.field

        quota: dict[str, Any] | None | Unset
        if isinstance(self.quota, Unset):
            quota = UNSET
        elif isinstance(self.quota, QuotaDetail):
            quota = self.quota.to_dict()
        else:
            quota = self.quota

        retry_after_s: int | None | Unset
        if isinstance(self.retry_after_s, Unset):
            retry_after_s = UNSET
        else:
            retry_after_s = self.retry_after_s

        detail: None | str | Unset
        if isinstance(self.detail, Unset):
            detail = UNSET
        else:
            detail = self.detail


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "code": code,
            "message": message,
        })
        if field is not UNSET:
            field_dict["field"] = field
        if quota is not UNSET:
            field_dict["quota"] = quota
        if retry_after_s is not UNSET:
            field_dict["retry_after_s"] = retry_after_s
        if detail is not UNSET:
            field_dict["detail"] = detail

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.quota_detail import QuotaDetail # noqa: PLC0415
        d = dict(src_dict)
        code = ErrorCode(d.pop("code"))




        message = d.pop("message")

        def _parse_field(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        field = _parse_field(d.pop("field", UNSET))


        def _parse_quota(data: object) -> None | QuotaDetail | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                quota_type_1 = QuotaDetail.from_dict(data)



                return quota_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | QuotaDetail | Unset, data)

        quota = _parse_quota(d.pop("quota", UNSET))


        def _parse_retry_after_s(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        retry_after_s = _parse_retry_after_s(d.pop("retry_after_s", UNSET))


        def _parse_detail(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        detail = _parse_detail(d.pop("detail", UNSET))


        error = cls(
            code=code,
            message=message,
            field=field,
            quota=quota,
            retry_after_s=retry_after_s,
            detail=detail,
        )


        error.additional_properties = d
        return error

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

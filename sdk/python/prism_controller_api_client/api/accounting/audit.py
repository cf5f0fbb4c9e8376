from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error import Error
from ...models.page_audit_entry import PageAuditEntry
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    *,
    after: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    newest_first: bool | Unset = UNSET,
    principal: str | Unset = UNSET,
    path: str | Unset = UNSET,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    params["after"] = after

    params["limit"] = limit

    params["newest_first"] = newest_first

    params["principal"] = principal

    params["path"] = path


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/audit",
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Error | PageAuditEntry | None:
    if response.status_code == 200:
        response_200 = PageAuditEntry.from_dict(response.json())



        return response_200

    if response.status_code == 400:
        response_400 = Error.from_dict(response.json())



        return response_400

    if response.status_code == 401:
        response_401 = Error.from_dict(response.json())



        return response_401

    if response.status_code == 403:
        response_403 = Error.from_dict(response.json())



        return response_403

    if response.status_code == 413:
        response_413 = Error.from_dict(response.json())



        return response_413

    if response.status_code == 429:
        response_429 = Error.from_dict(response.json())



        return response_429

    if response.status_code == 500:
        response_500 = Error.from_dict(response.json())



        return response_500

    if response.status_code == 507:
        response_507 = Error.from_dict(response.json())



        return response_507

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Error | PageAuditEntry]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    after: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    newest_first: bool | Unset = UNSET,
    principal: str | Unset = UNSET,
    path: str | Unset = UNSET,

) -> Response[Error | PageAuditEntry]:
    """ Every mutating call (administrators): oldest first unless asked, by
    principal and path when asked.

    Args:
        after (str | Unset):
        limit (int | Unset):
        newest_first (bool | Unset):
        principal (str | Unset):
        path (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | PageAuditEntry]
     """


    kwargs = _get_kwargs(
        after=after,
limit=limit,
newest_first=newest_first,
principal=principal,
path=path,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    *,
    client: AuthenticatedClient | Client,
    after: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    newest_first: bool | Unset = UNSET,
    principal: str | Unset = UNSET,
    path: str | Unset = UNSET,

) -> Error | PageAuditEntry | None:
    """ Every mutating call (administrators): oldest first unless asked, by
    principal and path when asked.

    Args:
        after (str | Unset):
        limit (int | Unset):
        newest_first (bool | Unset):
        principal (str | Unset):
        path (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | PageAuditEntry
     """


    return sync_detailed(
        client=client,
after=after,
limit=limit,
newest_first=newest_first,
principal=principal,
path=path,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    after: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    newest_first: bool | Unset = UNSET,
    principal: str | Unset = UNSET,
    path: str | Unset = UNSET,

) -> Response[Error | PageAuditEntry]:
    """ Every mutating call (administrators): oldest first unless asked, by
    principal and path when asked.

    Args:
        after (str | Unset):
        limit (int | Unset):
        newest_first (bool | Unset):
        principal (str | Unset):
        path (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | PageAuditEntry]
     """


    kwargs = _get_kwargs(
        after=after,
limit=limit,
newest_first=newest_first,
principal=principal,
path=path,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    after: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    newest_first: bool | Unset = UNSET,
    principal: str | Unset = UNSET,
    path: str | Unset = UNSET,

) -> Error | PageAuditEntry | None:
    """ Every mutating call (administrators): oldest first unless asked, by
    principal and path when asked.

    Args:
        after (str | Unset):
        limit (int | Unset):
        newest_first (bool | Unset):
        principal (str | Unset):
        path (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | PageAuditEntry
     """


    return (await asyncio_detailed(
        client=client,
after=after,
limit=limit,
newest_first=newest_first,
principal=principal,
path=path,

    )).parsed

from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error import Error
from ...models.usage_report import UsageReport
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    project: str,
    *,
    from_ms: int | Unset = UNSET,
    to_ms: int | Unset = UNSET,
    format_: str | Unset = UNSET,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    params["from_ms"] = from_ms

    params["to_ms"] = to_ms

    params["format"] = format_


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/projects/{project}/usage".format(project=quote(str(project), safe=""),),
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Error | UsageReport | None:
    if response.status_code == 200:
        response_200 = UsageReport.from_dict(response.json())



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

    if response.status_code == 404:
        response_404 = Error.from_dict(response.json())



        return response_404

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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Error | UsageReport]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    project: str,
    *,
    client: AuthenticatedClient | Client,
    from_ms: int | Unset = UNSET,
    to_ms: int | Unset = UNSET,
    format_: str | Unset = UNSET,

) -> Response[Error | UsageReport]:
    """ Resource-hours and bandwidth-hours per user and tier over a range, as
    JSON or CSV.

    Args:
        project (str):
        from_ms (int | Unset):
        to_ms (int | Unset):
        format_ (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | UsageReport]
     """


    kwargs = _get_kwargs(
        project=project,
from_ms=from_ms,
to_ms=to_ms,
format_=format_,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    project: str,
    *,
    client: AuthenticatedClient | Client,
    from_ms: int | Unset = UNSET,
    to_ms: int | Unset = UNSET,
    format_: str | Unset = UNSET,

) -> Error | UsageReport | None:
    """ Resource-hours and bandwidth-hours per user and tier over a range, as
    JSON or CSV.

    Args:
        project (str):
        from_ms (int | Unset):
        to_ms (int | Unset):
        format_ (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | UsageReport
     """


    return sync_detailed(
        project=project,
client=client,
from_ms=from_ms,
to_ms=to_ms,
format_=format_,

    ).parsed

async def asyncio_detailed(
    project: str,
    *,
    client: AuthenticatedClient | Client,
    from_ms: int | Unset = UNSET,
    to_ms: int | Unset = UNSET,
    format_: str | Unset = UNSET,

) -> Response[Error | UsageReport]:
    """ Resource-hours and bandwidth-hours per user and tier over a range, as
    JSON or CSV.

    Args:
        project (str):
        from_ms (int | Unset):
        to_ms (int | Unset):
        format_ (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | UsageReport]
     """


    kwargs = _get_kwargs(
        project=project,
from_ms=from_ms,
to_ms=to_ms,
format_=format_,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    project: str,
    *,
    client: AuthenticatedClient | Client,
    from_ms: int | Unset = UNSET,
    to_ms: int | Unset = UNSET,
    format_: str | Unset = UNSET,

) -> Error | UsageReport | None:
    """ Resource-hours and bandwidth-hours per user and tier over a range, as
    JSON or CSV.

    Args:
        project (str):
        from_ms (int | Unset):
        to_ms (int | Unset):
        format_ (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | UsageReport
     """


    return (await asyncio_detailed(
        project=project,
client=client,
from_ms=from_ms,
to_ms=to_ms,
format_=format_,

    )).parsed

from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error import Error
from ...models.map_view import MapView
from typing import cast



def _get_kwargs(
    project: str,
    id: str,
    map_: str,

) -> dict[str, Any]:
    

    

    

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/projects/{project}/bookings/{id}/maps/{map_}".format(project=quote(str(project), safe=""),id=quote(str(id), safe=""),map_=quote(str(map_), safe=""),),
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Error | MapView | None:
    if response.status_code == 200:
        response_200 = MapView.from_dict(response.json())



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

    if response.status_code == 409:
        response_409 = Error.from_dict(response.json())



        return response_409

    if response.status_code == 413:
        response_413 = Error.from_dict(response.json())



        return response_413

    if response.status_code == 429:
        response_429 = Error.from_dict(response.json())



        return response_429

    if response.status_code == 500:
        response_500 = Error.from_dict(response.json())



        return response_500

    if response.status_code == 502:
        response_502 = Error.from_dict(response.json())



        return response_502

    if response.status_code == 507:
        response_507 = Error.from_dict(response.json())



        return response_507

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Error | MapView]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    project: str,
    id: str,
    map_: str,
    *,
    client: AuthenticatedClient | Client,

) -> Response[Error | MapView]:
    """ A map of the booking's program (its object's maps: docs/customizing.md),
    read from its node: keys and values in hex.

    Args:
        project (str):
        id (str):
        map_ (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | MapView]
     """


    kwargs = _get_kwargs(
        project=project,
id=id,
map_=map_,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    project: str,
    id: str,
    map_: str,
    *,
    client: AuthenticatedClient | Client,

) -> Error | MapView | None:
    """ A map of the booking's program (its object's maps: docs/customizing.md),
    read from its node: keys and values in hex.

    Args:
        project (str):
        id (str):
        map_ (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | MapView
     """


    return sync_detailed(
        project=project,
id=id,
map_=map_,
client=client,

    ).parsed

async def asyncio_detailed(
    project: str,
    id: str,
    map_: str,
    *,
    client: AuthenticatedClient | Client,

) -> Response[Error | MapView]:
    """ A map of the booking's program (its object's maps: docs/customizing.md),
    read from its node: keys and values in hex.

    Args:
        project (str):
        id (str):
        map_ (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | MapView]
     """


    kwargs = _get_kwargs(
        project=project,
id=id,
map_=map_,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    project: str,
    id: str,
    map_: str,
    *,
    client: AuthenticatedClient | Client,

) -> Error | MapView | None:
    """ A map of the booking's program (its object's maps: docs/customizing.md),
    read from its node: keys and values in hex.

    Args:
        project (str):
        id (str):
        map_ (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | MapView
     """


    return (await asyncio_detailed(
        project=project,
id=id,
map_=map_,
client=client,

    )).parsed

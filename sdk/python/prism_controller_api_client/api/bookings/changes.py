from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.booking_change_view import BookingChangeView
from ...models.error import Error
from typing import cast



def _get_kwargs(
    project: str,
    id: str,

) -> dict[str, Any]:
    

    

    

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/projects/{project}/bookings/{id}/changes".format(project=quote(str(project), safe=""),id=quote(str(id), safe=""),),
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Error | list[BookingChangeView] | None:
    if response.status_code == 200:
        response_200 = []
        _response_200 = response.json()
        for response_200_item_data in (_response_200):
            response_200_item = BookingChangeView.from_dict(response_200_item_data)



            response_200.append(response_200_item)

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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Error | list[BookingChangeView]]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    project: str,
    id: str,
    *,
    client: AuthenticatedClient | Client,

) -> Response[Error | list[BookingChangeView]]:
    """ A booking's accepted changes, oldest first: each one's generation,
    time, author and fields before and after.

    Args:
        project (str):
        id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | list[BookingChangeView]]
     """


    kwargs = _get_kwargs(
        project=project,
id=id,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    project: str,
    id: str,
    *,
    client: AuthenticatedClient | Client,

) -> Error | list[BookingChangeView] | None:
    """ A booking's accepted changes, oldest first: each one's generation,
    time, author and fields before and after.

    Args:
        project (str):
        id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | list[BookingChangeView]
     """


    return sync_detailed(
        project=project,
id=id,
client=client,

    ).parsed

async def asyncio_detailed(
    project: str,
    id: str,
    *,
    client: AuthenticatedClient | Client,

) -> Response[Error | list[BookingChangeView]]:
    """ A booking's accepted changes, oldest first: each one's generation,
    time, author and fields before and after.

    Args:
        project (str):
        id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | list[BookingChangeView]]
     """


    kwargs = _get_kwargs(
        project=project,
id=id,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    project: str,
    id: str,
    *,
    client: AuthenticatedClient | Client,

) -> Error | list[BookingChangeView] | None:
    """ A booking's accepted changes, oldest first: each one's generation,
    time, author and fields before and after.

    Args:
        project (str):
        id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | list[BookingChangeView]
     """


    return (await asyncio_detailed(
        project=project,
id=id,
client=client,

    )).parsed

from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error import Error
from typing import cast



def _get_kwargs(
    project: str,
    name: str,

) -> dict[str, Any]:
    

    

    

    _kwargs: dict[str, Any] = {
        "method": "delete",
        "url": "/v1/projects/{project}/images/{name}".format(project=quote(str(project), safe=""),name=quote(str(name), safe=""),),
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Any | Error | None:
    if response.status_code == 204:
        response_204 = cast(Any, None)
        return response_204

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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Any | Error]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    project: str,
    name: str,
    *,
    client: AuthenticatedClient | Client,

) -> Response[Any | Error]:
    """ Deletes an image (its saver or a project owner), and the blobs no
    other image of the project has (their bytes given back to the
    bucket's quota); a booking running it is revoked at its node's next
    pass.

    Args:
        project (str):
        name (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | Error]
     """


    kwargs = _get_kwargs(
        project=project,
name=name,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    project: str,
    name: str,
    *,
    client: AuthenticatedClient | Client,

) -> Any | Error | None:
    """ Deletes an image (its saver or a project owner), and the blobs no
    other image of the project has (their bytes given back to the
    bucket's quota); a booking running it is revoked at its node's next
    pass.

    Args:
        project (str):
        name (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | Error
     """


    return sync_detailed(
        project=project,
name=name,
client=client,

    ).parsed

async def asyncio_detailed(
    project: str,
    name: str,
    *,
    client: AuthenticatedClient | Client,

) -> Response[Any | Error]:
    """ Deletes an image (its saver or a project owner), and the blobs no
    other image of the project has (their bytes given back to the
    bucket's quota); a booking running it is revoked at its node's next
    pass.

    Args:
        project (str):
        name (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | Error]
     """


    kwargs = _get_kwargs(
        project=project,
name=name,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    project: str,
    name: str,
    *,
    client: AuthenticatedClient | Client,

) -> Any | Error | None:
    """ Deletes an image (its saver or a project owner), and the blobs no
    other image of the project has (their bytes given back to the
    bucket's quota); a booking running it is revoked at its node's next
    pass.

    Args:
        project (str):
        name (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | Error
     """


    return (await asyncio_detailed(
        project=project,
name=name,
client=client,

    )).parsed

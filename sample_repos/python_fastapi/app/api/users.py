"""``/users`` endpoints."""

from fastapi import APIRouter, Depends, HTTPException, status

from app.api.deps import get_user_service
from app.models.user import User, UserCreate
from app.services.users import UserNotFoundError, UserService

router = APIRouter(prefix="/users", tags=["users"])


@router.get("/", response_model=list[User])
def list_users(offset: int = 0, limit: int = 50,
               service: UserService = Depends(get_user_service)) -> list[User]:
    """List users page by page."""
    return service.list_users(offset=offset, limit=limit)


@router.get("/{user_id}", response_model=User)
def get_user(user_id: int, service: UserService = Depends(get_user_service)) -> User:
    """Fetch one user; 404 when it does not exist."""
    try:
        return service.get_user(user_id)
    except UserNotFoundError as exc:
        raise HTTPException(status_code=status.HTTP_404_NOT_FOUND, detail=str(exc)) from exc


@router.post("/", status_code=201, response_model=User)
def create_user(payload: UserCreate,
                service: UserService = Depends(get_user_service)) -> User:
    """Register a new user."""
    return service.register(payload)


@router.delete("/{user_id}", status_code=204)
def deactivate_user(user_id: int, service: UserService = Depends(get_user_service)) -> None:
    """Deactivate (soft-delete) a user."""
    service.deactivate(user_id)

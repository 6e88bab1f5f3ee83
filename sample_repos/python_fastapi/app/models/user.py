"""User models."""

from enum import Enum

from pydantic import BaseModel, Field


class Role(str, Enum):
    """What a user may do."""

    CUSTOMER = "customer"
    ADMIN = "admin"


class UserBase(BaseModel):
    """Fields common to every user representation."""

    email: str
    name: str = Field(min_length=1, max_length=80)
    role: Role = Role.CUSTOMER


class UserCreate(UserBase):
    """Payload of ``POST /users``."""

    password: str


class User(UserBase):
    """A stored user."""

    id: int
    active: bool = True

    def display_name(self) -> str:
        """Name shown in e-mails: ``Name <email>``."""
        return f"{self.name} <{self.email}>"

"""User management."""

import app.utils.text as text_utils
from app.models.user import Role, User, UserCreate
from app.repositories.users import UserRepository
from app.services.notifications import Notifier


class UserNotFoundError(LookupError):
    """Raised when a user id does not exist."""

    def __init__(self, user_id: int) -> None:
        """Remember the missing id for the error message."""
        super().__init__(f"user {user_id} not found")
        self.user_id = user_id


class UserService:
    """Registers, finds and deactivates users."""

    def __init__(self, repo: UserRepository, notifier: Notifier) -> None:
        """Both collaborators are injected so tests can pass fakes."""
        self.repo = repo
        self.notifier = notifier

    def register(self, payload: UserCreate) -> User:
        """Create a user and send the welcome message."""
        email = text_utils.normalize_email(payload.email)
        user = User(id=0, email=email, name=payload.name, role=payload.role)
        self.repo.save(user)
        self.notifier.send(user.email, "Welcome", f"Hello {text_utils.truncate(user.name)}")
        return user

    def get_user(self, user_id: int) -> User:
        """The user with ``user_id``; raises :class:`UserNotFoundError`."""
        user = self.repo.find_by_id(user_id)
        if user is None:
            raise UserNotFoundError(user_id)
        return user

    def list_users(self, offset: int = 0, limit: int = 50) -> list[User]:
        """A page of users."""
        return self.repo.find_all(offset=offset, limit=limit)

    def deactivate(self, user_id: int) -> User:
        """Mark a user inactive and tell the admins."""
        user = self.get_user(user_id)
        user.active = False
        self.repo.save(user)
        admins = [a.email for a in self.repo.admins() if a.role == Role.ADMIN]
        self.notifier.send_many(admins, "User deactivated", user.email)
        return user

"""User repository."""

from app.models.user import Role, User
from app.utils.text import normalize_email

from .base import BaseRepository


class UserRepository(BaseRepository[User]):
    """Users, with a secondary index on the e-mail address."""

    entity_name = "user"

    def __init__(self) -> None:
        """Set up the base store and the e-mail index."""
        super().__init__()
        self._by_email: dict[str, int] = {}

    def find_by_email(self, email: str) -> User | None:
        """Look a user up by e-mail (case-insensitive)."""
        user_id = self._by_email.get(normalize_email(email))
        return self.find_by_id(user_id) if user_id is not None else None

    def save(self, entity: User) -> User:
        """Store the user and keep the e-mail index in sync."""
        saved = super().save(entity)
        self._by_email[normalize_email(saved.email)] = saved.id
        return saved

    def admins(self) -> list[User]:
        """All users with the admin role."""
        return [u for u in self.find_all(limit=self.count_all()) if u.role == Role.ADMIN]

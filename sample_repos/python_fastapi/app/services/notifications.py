"""Outgoing notifications.

:class:`Notifier` is the interface the services depend on; the concrete classes below
implement it for e-mail and for the application log.
"""

import logging
from abc import ABC, abstractmethod

from app.config import get_settings
from app.utils.text import truncate


class Notifier(ABC):
    """Sends a short message to a recipient."""

    @abstractmethod
    def send(self, recipient: str, subject: str, body: str) -> None:
        """Deliver one message."""

    def send_many(self, recipients: list[str], subject: str, body: str) -> int:
        """Deliver the same message to several recipients; returns how many were sent."""
        for recipient in recipients:
            self.send(recipient, subject, body)
        return len(recipients)


class EmailNotifier(Notifier):
    """Queues e-mails for the mail relay (kept in memory in this sample)."""

    def __init__(self, sender: str | None = None) -> None:
        """Use ``sender`` or the configured default address."""
        self.sender = sender or get_settings().sender_address
        self.outbox: list[tuple[str, str, str]] = []

    def send(self, recipient: str, subject: str, body: str) -> None:
        """Append the message to the outbox."""
        self.outbox.append((recipient, truncate(subject, 78), body))


class LogNotifier(Notifier):
    """Writes notifications to the log; used in development."""

    def __init__(self, logger_name: str = "notifications") -> None:
        """Log through ``logger_name``."""
        self.logger = logging.getLogger(logger_name)

    def send(self, recipient: str, subject: str, body: str) -> None:
        """Log the message at INFO level."""
        self.logger.info("to=%s subject=%s", recipient, subject)


def notify_all(channel: EmailNotifier | LogNotifier, recipients: list[str], body: str) -> int:
    """Send ``body`` to every recipient through either channel; returns how many."""
    for recipient in recipients:
        channel.send(recipient, "Notice", body)
    return len(recipients)

"""The console e-mail backend, through logging: each message one log line (the subject and
its text), in LOG_FORMAT like every other line, its links and tokens redacted (core.logs).

Django's own console backend writes whole messages, working sign-in links included, to
stdout beside the JSON lines; the settings put this one in its place (docs/operations.md).
"""

import logging
from collections.abc import Sequence

from django.core.mail import EmailMessage
from django.core.mail.backends.base import BaseEmailBackend

from core.logs import redact

logger = logging.getLogger(__name__)


class ConsoleEmailBackend(BaseEmailBackend):
    def send_messages(self, email_messages: Sequence[EmailMessage]) -> int:
        for message in email_messages:
            recipients = len(message.recipients())
            logger.info(
                "E-mail not sent (console backend) to %d recipient%s: %s\n%s",
                recipients,
                "" if recipients == 1 else "s",
                message.subject,
                redact(str(message.body)).strip(),
            )
        return len(email_messages)

"""The webhook tasks (documents/tasks.py exposes them to Celery's discovery): thin and idempotent."""

from __future__ import annotations

from celery import shared_task
from django.utils import timezone

# Retries due sooner than this get their own delayed message; later ones are left to the sweep
# (a broker holds a delayed message only so long before handing it out again).
DELAYED_MESSAGE_MAX_SECONDS = 300


@shared_task(name="documents.tasks.webhook_deliver")
def webhook_deliver_task(delivery_id: int) -> str | None:
    """One attempt of a due delivery; a delivery not due (sent, or taken by another run) is left alone."""
    from documents.webhooks.delivery import delivery_attempt  # lazily: it loads urllib3

    delivery = delivery_attempt(delivery_id)
    if delivery is None:
        return None
    due = delivery.next_attempt_at
    # The retry's message; if it is lost (a worker restart), the sweep finds the row when due.
    if delivery.status == "pending" and due and (due - timezone.now()).total_seconds() <= DELAYED_MESSAGE_MAX_SECONDS:
        webhook_deliver_task.apply_async((delivery_id,), eta=due)
    return delivery.status


@shared_task(name="documents.tasks.webhook_deliveries_sweep")
def webhook_deliveries_sweep_task() -> int:
    """Periodic (beat): queue every pending delivery whose next attempt is due (lost messages,
    retries after a worker restart)."""
    from documents.webhooks.delivery import deliveries_due

    due = deliveries_due()
    for delivery_id in due:
        webhook_deliver_task.delay(delivery_id)
    return len(due)

"""Billing routes (mounted under /api/ and /api/v1/ by config.urls)."""

from django.urls import path

from billing import api

urlpatterns = [
    path(
        "credits/transactions",
        api.CreditTransactionListView.as_view(),
        name="credit-transactions",
    ),
    path("webhooks/payment", api.PaymentWebhookView.as_view(), name="payment-webhook"),
]

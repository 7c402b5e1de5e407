# flake8: noqa

# import apis into api package
from cobro_sdk.generated.admin.api.api_keys_api import APIKeysApi
from cobro_sdk.generated.admin.api.audit_log_api import AuditLogApi
from cobro_sdk.generated.admin.api.bank_feed_api import BankFeedApi
from cobro_sdk.generated.admin.api.client_urls_api import ClientURLsApi
from cobro_sdk.generated.admin.api.earnings_api import EarningsApi
from cobro_sdk.generated.admin.api.events_api import EventsApi
from cobro_sdk.generated.admin.api.go_live_api import GoLiveApi
from cobro_sdk.generated.admin.api.health_api import HealthApi
from cobro_sdk.generated.admin.api.merchants_api import MerchantsApi
from cobro_sdk.generated.admin.api.my_integration_api import MyIntegrationApi
from cobro_sdk.generated.admin.api.notifications_api import NotificationsApi
from cobro_sdk.generated.admin.api.offer_api import OfferApi
from cobro_sdk.generated.admin.api.payment_requests_api import PaymentRequestsApi
from cobro_sdk.generated.admin.api.payout_link_api import PayoutLinkApi
from cobro_sdk.generated.admin.api.platform_production_provisioning_api import PlatformProductionProvisioningApi
from cobro_sdk.generated.admin.api.platform_audit_log_api import PlatformAuditLogApi
from cobro_sdk.generated.admin.api.platform_earnings_api import PlatformEarningsApi
from cobro_sdk.generated.admin.api.platform_go_live_review_api import PlatformGoLiveReviewApi
from cobro_sdk.generated.admin.api.platform_integration_clients_api import PlatformIntegrationClientsApi
from cobro_sdk.generated.admin.api.platform_merchant_accounts_api import PlatformMerchantAccountsApi
from cobro_sdk.generated.admin.api.platform_message_cap_requests_api import PlatformMessageCapRequestsApi
from cobro_sdk.generated.admin.api.platform_statements_api import PlatformStatementsApi
from cobro_sdk.generated.admin.api.platform_unmatched_payments_api import PlatformUnmatchedPaymentsApi
from cobro_sdk.generated.admin.api.sandbox_api import SandboxApi
from cobro_sdk.generated.admin.api.statements_api import StatementsApi
from cobro_sdk.generated.admin.api.tenants_api import TenantsApi
from cobro_sdk.generated.admin.api.unmatched_payments_api import UnmatchedPaymentsApi
from cobro_sdk.generated.admin.api.webhooks_api import WebhooksApi


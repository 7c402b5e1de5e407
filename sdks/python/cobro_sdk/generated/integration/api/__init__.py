# flake8: noqa

# import apis into api package
from cobro_sdk.generated.integration.api.checkout_widget_api import CheckoutWidgetApi
from cobro_sdk.generated.integration.api.health_api import HealthApi
from cobro_sdk.generated.integration.api.merchant_api import MerchantApi
from cobro_sdk.generated.integration.api.payer_lookup_api import PayerLookupApi
from cobro_sdk.generated.integration.api.payer_page_api import PayerPageApi
from cobro_sdk.generated.integration.api.payment_requests_api import PaymentRequestsApi
from cobro_sdk.generated.integration.api.tenant_api import TenantApi
from cobro_sdk.generated.integration.api.unmatched_payments_api import UnmatchedPaymentsApi


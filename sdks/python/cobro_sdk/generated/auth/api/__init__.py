# flake8: noqa

# import apis into api package
from cobro_sdk.generated.auth.api.admin_session_api import AdminSessionApi
from cobro_sdk.generated.auth.api.commission_proposal_page_api import CommissionProposalPageApi
from cobro_sdk.generated.auth.api.discovery_api import DiscoveryApi
from cobro_sdk.generated.auth.api.health_api import HealthApi
from cobro_sdk.generated.auth.api.logos_api import LogosApi
from cobro_sdk.generated.auth.api.merchant_password_pages_api import MerchantPasswordPagesApi
from cobro_sdk.generated.auth.api.o_auth_api import OAuthApi
from cobro_sdk.generated.auth.api.payout_link_page_api import PayoutLinkPageApi


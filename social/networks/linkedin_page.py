"""LinkedIn Pages: an organization the member administers, by OAuth with the organization
scopes (networks/linkedin_page.md). The same app, hosts and error table as `linkedin`."""

from social.networks import linkedin
from social.networks.base import Network, limits
from social.providers.linkedin import PAGE_SCOPES, LinkedInPageAdapter

NETWORK = Network(
    provider="linkedin_page",
    name="LinkedIn Page",
    connect_method="oauth",
    settings=linkedin.NETWORK.settings,
    # What a member's post takes, a page's takes: text, a link, up to 20 images with alt text,
    # one video or one document (named by the title), a first comment; no threads.
    capabilities=linkedin.NETWORK.capabilities,
    limits=limits(3000, max_media=20),
    options=(),
    errors=linkedin.ERRORS,
    error_source=linkedin.SOURCE,
    exactly_once="lookup",  # the page's posts by author, then the comments by actor
    adapter=LinkedInPageAdapter(),
    scopes=tuple(PAGE_SCOPES.split()),
    # A company page's audience reads it on working days, mid-morning.
    best_times=(
        ("tue", "10:00"),
        ("wed", "10:00"),
        ("thu", "10:00"),
        ("wed", "13:00"),
        ("thu", "14:00"),
    ),
)

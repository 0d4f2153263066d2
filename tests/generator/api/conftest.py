"""The import API's fixtures (``import_api_fixtures``, shared with the wizard's browser test)."""

from tests.generator.api.import_api_fixtures import fake_bedrock, no_aws, repo, server

__all__ = ["fake_bedrock", "no_aws", "repo", "server"]

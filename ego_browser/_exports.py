"""Where each public name of ego_browser lives, and what a round finds preloaded. Generated
from ``schema/spec.py`` (``CLASSES``, ``FUNCTIONS``) by ``python -m ego_browser.schema.gen_client``."""

LAZY = {
    "task_space": "ego_browser.client.api",
    "list_task_spaces": "ego_browser.client.api",
    "claim_task_space": "ego_browser.client.api",
    "take_over_task_space": "ego_browser.client.api",
    "profiles": "ego_browser.client.api",
    "embedded": "ego_browser.client.api",
    "help": "ego_browser.helptext",
    "site_skills": "ego_browser.learning",
    "learn_context": "ego_browser.learning",
    "run_site_tool": "ego_browser.learning",
    "run_site_browser_tool": "ego_browser.learning",
    "TaskSpace": "ego_browser.client._generated",
    "Page": "ego_browser.client._generated",
    "FileChooser": "ego_browser.client._generated",
    "Download": "ego_browser.client._generated",
    "ActionReceipt": "ego_browser.client.models",
    "UnmanagedPage": "ego_browser.client.models",
}

RUNNER_GLOBALS = (
    "task_space", "list_task_spaces", "claim_task_space", "take_over_task_space", "profiles", "help", "site_skills",
    "learn_context", "run_site_tool", "run_site_browser_tool", "ego_browser", "EgoError", "asyncio", "json", "re",
)

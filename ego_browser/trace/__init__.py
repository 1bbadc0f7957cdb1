"""A space's trace, for a person: the offline viewer's zip and a Playwright replay script."""

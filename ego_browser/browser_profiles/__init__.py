"""Browser profiles: the store of named profiles a task space can use, and importing the user's
own Chrome/Chromium/Brave/Edge data into one (docs/architecture.md "Profiles").

Nothing here is imported on a round's start-up path: the host loads it when a space or a CLI
command needs a profile.
"""

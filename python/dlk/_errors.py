"""dlk's exceptions."""


class Error(RuntimeError):
    """A dlk library call failed: the message is dlk's own (it names the call, the
    argument and the rule); status is the library's status name."""

    def __init__(self, message, status="error"):
        super().__init__(message)
        self.status = status


class LibraryError(ImportError):
    """A dlk library could not be found, or is of another ABI than this package."""
